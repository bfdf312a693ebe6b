// The fleet worker's line to the service: /sim/v1 over HTTP with the admin token, and the worker's
// sync stream (server-sent events). Every failure becomes a ServiceError naming the service's address.

export class ServiceError extends Error {
  constructor(
    message: string,
    /** 'unreachable' | 'token' | 'conflict' | 'other' — picks the CLI's exit code. */
    readonly kind: 'unreachable' | 'token' | 'conflict' | 'other',
  ) {
    super(message);
  }
}

export interface ServiceClientOptions {
  url: string;
  adminToken: string;
  /** Wall ms a call may take. Default 120 s (a registration provisions meters). */
  timeoutMs?: number;
}

interface Envelope<T> {
  success: boolean;
  data: T;
  message?: string;
  error?: { code: string; detail: unknown };
}

export class ServiceClient {
  readonly #o: ServiceClientOptions;
  /** Sent with every call once the service handed the worker its lease. */
  leaseId: string | null = null;

  constructor(o: ServiceClientOptions) {
    this.#o = o;
  }

  /** `timeoutMs`: this call's bound, default the client's (120 s). */
  async call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    opts: { timeoutMs?: number } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { 'x-admin-token': this.#o.adminToken };
    if (this.leaseId) headers['x-worker-lease'] = this.leaseId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.#o.url}/sim/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? this.#o.timeoutMs ?? 120_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ServiceError(
        `service at ${this.#o.url} unreachable: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        'unreachable',
      );
    }
    let env: Envelope<T>;
    try {
      env = (await res.json()) as Envelope<T>;
    } catch {
      throw new ServiceError(
        `${this.#o.url} answered ${res.status} without a meterstack envelope: is it a meterstack service?`,
        'other',
      );
    }
    if (res.ok) return env.data;
    const detail =
      typeof env.error?.detail === 'string'
        ? env.error.detail
        : JSON.stringify(env.error?.detail ?? env.message);
    if (res.status === 401 || res.status === 403)
      throw new ServiceError(`service at ${this.#o.url} refused the admin token (${res.status})`, 'token');
    if (res.status === 409) throw new ServiceError(`service at ${this.#o.url}: ${detail}`, 'conflict');
    throw new ServiceError(
      `service at ${this.#o.url}: ${method} ${path} answered ${res.status}: ${detail}`,
      'other',
    );
  }

  /**
   * Reads the SSE stream at `path` until it ends or `signal` aborts, calling `onEvent` per event
   * (awaited in order, so a jump is lived through before the next event is read).
   */
  async stream(
    path: string,
    onEvent: (event: string, data: unknown) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const headers: Record<string, string> = {
      'x-admin-token': this.#o.adminToken,
      accept: 'text/event-stream',
    };
    if (this.leaseId) headers['x-worker-lease'] = this.leaseId;
    const res = await fetch(`${this.#o.url}/sim/v1${path}`, { headers, signal });
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      throw new ServiceError(
        `service at ${this.#o.url}: sync stream refused (${res.status}) ${text}`,
        res.status === 409 ? 'conflict' : 'other',
      );
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) await onEvent(event, JSON.parse(data));
      }
    }
  }
}
