// Reconnection with backoff, for a link that asks for it (the bridges, docs/spec-decisions.md 171): a
// broker that is down is tried after 1 s, 2 s, 4 s … at most every 30 s, not every second forever.
// mqtt.js can only retry at one fixed period, so the link turns its retries off and drives them here.

import type { MqttClient } from 'mqtt';
import type { LinkEvent } from './events.ts';

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

/**
 * A link's own retries with backoff: told of each attempt's error and end, it emits `retrying` and calls
 * client.reconnect() after the wait. A refused CONNACK is not its business: CONNACK 3 has its own 2 s
 * (link.ts), and a refused login is not retried [SP-7.5].
 */
export class Retries {
  readonly #backoff: Backoff;
  readonly #emit: (event: LinkEvent) => void;
  #timer: NodeJS.Timeout | null = null;
  /** The last error of the present attempt, told with its retry. */
  #error: Error | null = null;
  #connackRefused = false;

  constructor(opts: BackoffOptions, emit: (event: LinkEvent) => void) {
    this.#backoff = new Backoff(opts);
    this.#emit = emit;
  }

  connected(): void {
    this.#backoff.reset();
  }

  /** An error of the present attempt; `connack`: the broker refused it in its CONNACK. */
  failed(error: Error, connack: boolean): void {
    this.#error = error;
    if (connack) this.#connackRefused = true;
  }

  /** The connection of `client` ended: try again after the next wait, unless `ours()` says it was let go. */
  closed(client: MqttClient, ours: () => boolean): void {
    if (!ours() || client.disconnecting) return;
    if (this.#connackRefused) {
      this.#connackRefused = false;
      return;
    }
    if (this.#timer) return;
    const inMs = this.#backoff.next();
    const error = this.#error;
    this.#error = null;
    this.#emit({ type: 'retrying', inMs, error });
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (ours() && !client.disconnecting && !client.connected) client.reconnect();
    }, inMs);
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
