// Commands sent to meters and waiting for their reply [MC-8]: each resolves once, with the meter's
// answer, a timeout or the meter going offline, and each step is an event on the bus (command.sent,
// .acked, .refused, .timeout) with its latency, measured with performance.now().

import { performance } from 'node:perf_hooks';
import type { EmitContext, EventBus } from '../events/bus.ts';
import type { CommandOutcome } from './types.ts';

interface Pending {
  resolve: (outcome: CommandOutcome) => void;
  timer: NodeJS.Timeout;
  deviceId: string;
  op: string;
  /** performance.now() when it was sent. */
  sentAt: number;
}

export interface Reply {
  id: string;
  ok: boolean;
  data?: unknown;
  error?: { code: string; message: string };
}

/** What became of a reply: taken, or refused because nothing waits for it or it came from another device. */
export type ReplyVerdict =
  | { ok: true }
  | { ok: false; why: 'unmatched' }
  | { ok: false; why: 'forged'; to: string };

export class PendingCommands {
  readonly #pending = new Map<string, Pending>();
  readonly #bus: EventBus;
  readonly #ctx: (deviceId: string) => EmitContext;

  constructor(bus: EventBus, ctx: (deviceId: string) => EmitContext) {
    this.#bus = bus;
    this.#ctx = ctx;
  }

  /** Registers command `id`, lets `publish` send it, and resolves with what became of it. */
  send(
    deviceId: string,
    id: string,
    op: string,
    timeoutMs: number,
    publish: () => void,
  ): Promise<CommandOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        this.#bus.emit('command.timeout', { id, op, after_ms: timeoutMs }, this.#ctx(deviceId));
        resolve({ ok: false, reason: 'timeout', afterMs: timeoutMs });
      }, timeoutMs);
      this.#pending.set(id, { resolve, timer, deviceId, op, sentAt: performance.now() });
      publish();
      this.#bus.emit('command.sent', { id, op }, this.#ctx(deviceId));
    });
  }

  /** [MC-8.9] A reply counts only from the device its command went to. */
  reply(deviceId: string, msg: Reply): ReplyVerdict {
    const pending = this.#pending.get(msg.id);
    // Late (after a timeout), a repeat, or a guess: nothing waits for it.
    if (!pending) return { ok: false, why: 'unmatched' };
    // Another meter answering a command it never received: the real answer may still come.
    if (pending.deviceId !== deviceId) return { ok: false, why: 'forged', to: pending.deviceId };
    this.#pending.delete(msg.id);
    clearTimeout(pending.timer);
    const latency_ms = performance.now() - pending.sentAt;
    const { op } = pending;
    if (msg.ok) {
      this.#bus.emit('command.acked', { id: msg.id, op, latency_ms }, this.#ctx(deviceId));
      pending.resolve({ ok: true, data: msg.data });
    } else {
      const code = msg.error?.code ?? 'unknown';
      const message = msg.error?.message ?? '';
      this.#bus.emit('command.refused', { id: msg.id, op, code, message, latency_ms }, this.#ctx(deviceId));
      pending.resolve({ ok: false, reason: 'rejected', code, message });
    }
    return { ok: true };
  }

  /** The device went offline: its commands will not be answered (command.refused, code `offline`). */
  failDevice(deviceId: string): void {
    for (const [id, p] of this.#pending) {
      if (p.deviceId !== deviceId) continue;
      clearTimeout(p.timer);
      this.#pending.delete(id);
      const latency_ms = performance.now() - p.sentAt;
      const message = 'the meter went offline before it answered';
      this.#bus.emit(
        'command.refused',
        { id, op: p.op, code: 'offline', message, latency_ms },
        this.#ctx(deviceId),
      );
      p.resolve({ ok: false, reason: 'offline' });
    }
  }

  /** The service stops: every command resolves offline, without events. */
  failAll(): void {
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, reason: 'offline' });
      this.#pending.delete(id);
    }
  }
}
