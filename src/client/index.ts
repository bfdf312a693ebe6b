// `meterstack/client`: a typed client of the v2 API (and of /sim/v1), generated from the service's
// OpenAPI document (schema.ts, `npm run gen:client`) and sent with openapi-fetch, with the spec's client
// guidance built in: transient device failures and 429s are retried with backoff (retry.ts,
// transport.ts), `ensureOnline` checks `is_online` first, and every failure is a `MeterstackError`
// typed by its code (errors.ts), returned by `settle` or thrown by `unwrap`, never anything else.
//
//   const ms = createMeterstackClient({ baseUrl, apiKey });
//   const r = await ms.settle(ms.api.GET('/api/v2/devices/{device_id}/', { params: { path: { device_id } } }));
//   if (!r.ok) switch (r.error.code) { case 'device_not_found': …; case 'validation_error': r.error.detail[0].loc }

import createClient, { type Client } from 'openapi-fetch';
import {
  errorFromBody,
  type KnownMeterstackError,
  MeterstackError,
  type MeterstackErrorCode,
  networkError,
} from './errors.ts';
import { DEFAULT_RETRY, decide, type RetryPolicy } from './retry.ts';
import type { paths } from './schema.ts';
import { attemptsOf, OutgoingRequest, type RetryInfo, retryingFetch, SendFailed } from './transport.ts';

export {
  type ApiErrorCode,
  type ClientErrorCode,
  type DetailOf,
  type KnownMeterstackError,
  MeterstackError,
  type MeterstackErrorCode,
  type MeterstackErrorOf,
  type ValidationItem,
} from './errors.ts';
export { DEFAULT_RETRY, type RetryPolicy, TRANSIENT_DEVICE_CODES } from './retry.ts';
export type { paths } from './schema.ts';
export type { RetryInfo } from './transport.ts';

/** The operations under one prefix, so `api` offers only v2 paths and `sim` only /sim/v1 ones. */
type PathsUnder<P extends string> = { [K in keyof paths as K extends `${P}${string}` ? K : never]: paths[K] };
export type V2Paths = PathsUnder<'/api/v2/'>;
export type SimPaths = PathsUnder<'/sim/v1/'>;

/** The `data` of a success envelope (unknown where the document gives the answer no schema). */
export type EnvelopeData<D> = [D] extends [never] ? unknown : D extends { data: infer X } ? X : unknown;

export type Result<T> =
  | { ok: true; data: T; response: Response }
  | { ok: false; error: KnownMeterstackError; response: Response | null };

type Answer<D> = Promise<{ data?: D; error?: unknown; response: Response }>;

type DeviceAnswer =
  V2Paths['/api/v2/devices/{device_id}/']['get']['responses'][200]['content']['application/json'];
/** A device record (endpoint 4), with `is_online` and its current `readings`. */
export type Device = EnvelopeData<DeviceAnswer>;

export interface ClientOptions {
  /** The service, e.g. `http://127.0.0.1:8080` (no path). */
  baseUrl: string;
  /** Sent as X-Service-API-Key on every `api` call. */
  apiKey?: string;
  /** Sent as X-Admin-Token on every `sim` call. */
  adminToken?: string;
  /** The retry policy (unset fields: DEFAULT_RETRY), or false: every request is sent once. */
  retry?: Partial<RetryPolicy> | false;
  /**
   * Each attempt is abandoned after this long (a network error, retried on idempotent methods).
   * Default 0: no timer of the client's own; fetch's (undici's) 300 s header and body timeouts still
   * bound every request, and the service answers every request within bounded time (a command in
   * --command-timeout-ms, spec-decisions 51). A timer per request costs ~25 % of bare fetch's speed.
   */
  timeoutMs?: number;
  /** Called before each retry's wait, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
  /** Injectable for tests: the fetch that sends, the wait between attempts, the jitter's chance. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface MeterstackClient {
  /** openapi-fetch over the v2 API: paths, parameters, bodies and answers typed from the document. */
  readonly api: Client<V2Paths>;
  /** openapi-fetch over the simulation control API /sim/v1 (needs `adminToken`). */
  readonly sim: Client<SimPaths>;
  /** The call's envelope `data`, or its typed error. Never rejects. */
  settle<D>(call: Answer<D>): Promise<Result<EnvelopeData<D>>>;
  /** The call's envelope `data`; rejects only with a MeterstackError. */
  unwrap<D>(call: Answer<D>): Promise<EnvelopeData<D>>;
  /** Endpoint 4: the device record. */
  device(deviceId: string): Promise<Result<Device>>;
  /**
   * The spec's "check is_online first": the device record if the device is online, else
   * `device_offline`, after waiting for it with the retry policy's backoff (device_offline is in its
   * codes by default). Call before a command to fail fast, or to wait for a meter to come back.
   */
  ensureOnline(deviceId: string): Promise<Result<Device>>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createMeterstackClient(options: ClientOptions): MeterstackClient {
  const policy: RetryPolicy =
    options.retry === false ? { ...DEFAULT_RETRY, attempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1)
    throw new TypeError(`retry.attempts must be a whole number ≥ 1, got ${policy.attempts}`);
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const fetch = retryingFetch({
    policy,
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    sleep,
    random,
    now: Date.now,
    timeoutMs: options.timeoutMs ?? 0,
    onRetry: options.onRetry,
  });
  // openapi-fetch types its fetch and Request options as the DOM's; OutgoingRequest has what it uses.
  const transport = {
    fetch: fetch as unknown as (request: Request) => Promise<Response>,
    Request: OutgoingRequest as unknown as typeof Request,
  };
  const api = createClient<V2Paths>({
    baseUrl: options.baseUrl,
    ...transport,
    headers: options.apiKey === undefined ? {} : { 'x-service-api-key': options.apiKey },
  });
  const sim = createClient<SimPaths>({
    baseUrl: options.baseUrl,
    ...transport,
    headers: options.adminToken === undefined ? {} : { 'x-admin-token': options.adminToken },
  });

  async function settle<D>(call: Answer<D>): Promise<Result<EnvelopeData<D>>> {
    let r: Awaited<Answer<D>>;
    try {
      r = await call;
    } catch (err) {
      if (err instanceof SendFailed)
        return { ok: false, error: networkError(err.cause, err.attempts), response: null };
      // openapi-fetch parses a 2xx body as JSON and throws if it is not.
      if (err instanceof SyntaxError) {
        const error = new MeterstackError(
          'invalid_response',
          0,
          `a success answer that is not JSON: ${err.message}`,
        );
        return { ok: false, error: error as KnownMeterstackError, response: null };
      }
      return { ok: false, error: networkError(err), response: null };
    }
    const { response } = r;
    const attempts = attemptsOf.get(response) ?? 1;
    if (!response.ok) {
      const wait = response.status === 429 ? Number(response.headers.get('retry-after')) * 1000 : Number.NaN;
      const extra = { attempts, ...(Number.isFinite(wait) && { retryAfterMs: wait }) };
      return { ok: false, error: errorFromBody(response.status, r.error, extra), response };
    }
    const body = r.data as { success?: unknown; data?: unknown } | undefined;
    if (typeof body === 'object' && body !== null && body.success === true && 'data' in body)
      return { ok: true, data: body.data as EnvelopeData<D>, response };
    return { ok: false, error: errorFromBody(response.status, body, { attempts }), response };
  }

  async function unwrap<D>(call: Answer<D>): Promise<EnvelopeData<D>> {
    const r = await settle(call);
    if (r.ok) return r.data;
    throw r.error;
  }

  const device = (deviceId: string) =>
    settle(api.GET('/api/v2/devices/{device_id}/', { params: { path: { device_id: deviceId } } }));

  async function ensureOnline(deviceId: string): Promise<Result<Device>> {
    for (let attempt = 1; ; attempt++) {
      const r = await device(deviceId);
      if (!r.ok || r.data.is_online) return r;
      const decision = decide(
        { kind: 'answer', status: 400, code: 'device_offline', retryAfter: null },
        attempt,
        'GET',
        policy,
        random,
        Date.now(),
      );
      if (!decision.retry) {
        const code: MeterstackErrorCode = 'device_offline';
        const detail = `Device ${deviceId} is offline (is_online false${attempt > 1 ? `, checked ${attempt} times` : ''}); retry with backoff.`;
        const error = new MeterstackError(code, 400, detail, { attempts: attempt });
        return { ok: false, error: error as KnownMeterstackError, response: r.response };
      }
      options.onRetry?.({
        method: 'GET',
        url: r.response.url,
        attempt,
        delayMs: decision.delayMs,
        reason: 'device_offline',
      });
      await sleep(decision.delayMs);
    }
  }

  return { api, sim, settle, unwrap, device, ensureOnline };
}
