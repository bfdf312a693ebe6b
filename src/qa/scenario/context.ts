// What a running scenario holds: the embedded service, who is who (accounts, keys, spaces), the MQTT
// messages seen, and HTTP calls made as one of them.

import type { RunningService } from '../../service.ts';
import { didYouMean } from '../did-you-mean.ts';

export interface SeenMessage {
  topic: string;
  retain: boolean;
  json: unknown;
}

/** Where MQTT messages come from: an mqtt.js client subscribed to the meters' topics. */
export interface MessageSource {
  on(
    event: 'message',
    listener: (topic: string, payload: Buffer, packet: { retain: boolean }) => void,
  ): unknown;
}

export interface CallResult {
  status: number;
  body: {
    success?: boolean;
    data?: unknown;
    message?: unknown;
    error?: { code?: string; detail?: unknown };
  } | null;
}

export class ScenarioContext {
  readonly accounts = new Map<string, { id: number; key: string }>();
  readonly spaces = new Map<string, number>();
  readonly seen: SeenMessage[] = [];
  /** A `fault` step's `as_id` -> the fault id the service gave. */
  readonly faultIds = new Map<string, string>();
  /** Index into `seen` where the previous step began. */
  previousStepStart = 0;
  stepStart = 0;
  /** The newest event seq when the previous step and this one began (only kept when a step needs it). */
  previousStepSeq = 0;
  stepSeq = 0;
  /** The virtual time the timeline began at: what `at: 18m45s` counts from [SC-1]; null until known. */
  startVt: number | null = null;

  constructor(
    readonly svc: Pick<RunningService, 'httpUrl' | 'adminToken'>,
    mqtt: MessageSource,
    readonly firstAccount: () => string,
  ) {
    mqtt.on('message', (topic, payload, packet) => {
      let json: unknown = null;
      try {
        json = JSON.parse(payload.toString('utf8'));
      } catch {
        // not JSON: matched by topic only
      }
      this.seen.push({ topic, retain: packet.retain, json });
    });
  }

  /** `{account:name}` and `{space:ref}` in a path, replaced by their ids. */
  expand(path: string): string {
    return path.replace(/\{(account|space):([^}]+)\}/g, (whole, kind: string, ref: string) => {
      const id = kind === 'account' ? this.accounts.get(ref)?.id : this.spaces.get(ref);
      if (id === undefined) {
        const known = kind === 'account' ? this.accounts.keys() : this.spaces.keys();
        throw new Error(`${whole}: no ${kind} ${JSON.stringify(ref)} in the world${didYouMean(ref, known)}`);
      }
      return String(id);
    });
  }

  /** An HTTP call; `as` an account name, `admin` or `nobody` (default: admin for /sim/, the first account else). */
  async call(method: string, path: string, body?: unknown, as?: string): Promise<CallResult> {
    const url = this.expand(path);
    const who = as ?? (url.startsWith('/sim/') ? 'admin' : this.firstAccount());
    const headers: Record<string, string> = {};
    if (who === 'admin') headers['x-admin-token'] = this.svc.adminToken;
    else if (who !== 'nobody') {
      const account = this.accounts.get(who);
      if (!account)
        throw new Error(
          `as: no account ${JSON.stringify(who)} in the world${didYouMean(who, [...this.accounts.keys(), 'admin', 'nobody'])}`,
        );
      headers['x-service-api-key'] = account.key;
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.svc.httpUrl}${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: CallResult['body'] = null;
    try {
      parsed = JSON.parse(text) as CallResult['body'];
    } catch {
      // kept as null: a check on the body then fails saying so
    }
    return { status: res.status, body: parsed };
  }

  /** The newest event seq the service has handed out (the journal's next_since when nothing is new). */
  async eventSeqNow(): Promise<number> {
    const data = (await this.sim('GET', '/events?limit=1')) as { next_since: number };
    return data.next_since;
  }

  /** A /sim/v1 call that must succeed; throws with the service's error otherwise. */
  async sim(method: string, path: string, body?: unknown): Promise<unknown> {
    const r = await this.call(method, `/sim/v1${path}`, body, 'admin');
    if (!r.body?.success) {
      const e = r.body?.error;
      throw new Error(
        `${method} /sim/v1${path}: ${r.status}${e ? ` ${e.code}: ${typeof e.detail === 'string' ? e.detail : JSON.stringify(e.detail)}` : ''}`,
      );
    }
    return r.body.data;
  }
}
