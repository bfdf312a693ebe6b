// Reconnection with backoff, for a link that asks for it (the bridges, docs/spec-decisions.md 171): a
// broker that is down is tried after 1 s, 2 s, 4 s … at most every 30 s, not every second forever.
// mqtt.js can only retry at one fixed period, so the link turns its retries off and drives them here.

import type { MqttClient } from 'mqtt';

export interface BackoffOptions {
  /** The wait before the first retry after a connection ends. */
  firstMs: number;
  /** The longest wait: the doubling stops here. */
  maxMs: number;
}

export const BRIDGE_BACKOFF: BackoffOptions = { firstMs: 1_000, maxMs: 30_000 };

/** The waits between attempts: firstMs, doubling while attempts fail, at most maxMs (pure). */
export class Backoff {
  readonly #o: BackoffOptions;
  #failures = 0;

  constructor(opts: BackoffOptions) {
    this.#o = opts;
  }

  /** The wait before the next attempt; each call counts one more failed attempt. */
  next(): number {
    const ms = Math.min(this.#o.firstMs * 2 ** this.#failures, this.#o.maxMs);
    this.#failures++;
    return ms;
  }

  /** A connection succeeded: the next loss is retried after firstMs again. */
  reset(): void {
    this.#failures = 0;
  }
}

/** Calls client.reconnect() after `ms`, unless the link let go of the client or it connected meanwhile. */
export function reconnectLater(client: MqttClient, ms: number, stillOurs: () => boolean): NodeJS.Timeout {
  return setTimeout(() => {
    if (stillOurs() && !client.disconnecting && !client.connected) client.reconnect();
  }, ms);
}
