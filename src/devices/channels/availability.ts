// The `availability` channel [MC-6]: online or offline, the will included. Retained. Beside the twin's
// flag it keeps who waits for a device to come or go, and why its next offline will come.

import { type OfflineReason, offlineReason } from '../twin-events.ts';
import type { ChannelContext } from './context.ts';

interface Waiter {
  deviceId: string;
  online: boolean;
  resolve: (ok: boolean) => void;
}

export class Availability {
  readonly #cx: ChannelContext;
  readonly #waiters = new Set<Waiter>();
  /** Why the next offline of a device will come, told by whoever knew first (see `expectOffline`). */
  readonly #offlineHints = new Map<string, OfflineReason>();

  constructor(cx: ChannelContext) {
    this.#cx = cx;
  }

  /** One availability message of `deviceId`, its `ts` on the world's clock already [MC-11.2]. */
  on(deviceId: string, a: { online: boolean; ts?: number; reason?: string }): void {
    const twin = this.#cx.twin(deviceId);
    const was = twin.online;
    twin.online = a.online;
    twin.onlineSince = a.ts ?? null;
    if (a.online !== was) this.#emit(deviceId, a.online, a.ts, a.reason);
    if (!a.online) this.#cx.pending.failDevice(deviceId);
    for (const w of this.#waiters) {
      if (w.deviceId === deviceId && w.online === a.online) {
        this.#waiters.delete(w);
        w.resolve(true);
      }
    }
  }

  /** The next offline of `deviceId` is for `reason` (TwinRegistry.expectOffline). */
  expectOffline(deviceId: string, reason: OfflineReason): void {
    this.#offlineHints.set(deviceId, reason);
  }

  /** Resolves true once an availability message of `deviceId` says `online`, false after `timeoutMs`. */
  waitFor(deviceId: string, online: boolean, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = { deviceId, online, resolve };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      waiter.resolve = (ok) => {
        clearTimeout(timer);
        resolve(ok);
      };
      this.#waiters.add(waiter);
    });
  }

  /** Forgets the hints of one device, or of all. */
  forget(deviceId?: string): void {
    if (deviceId === undefined) this.#offlineHints.clear();
    else this.#offlineHints.delete(deviceId);
  }

  #emit(deviceId: string, online: boolean, ts: number | undefined, said: string | undefined): void {
    const hint = this.#offlineHints.get(deviceId);
    this.#offlineHints.delete(deviceId);
    const ctx = this.#cx.ctx(deviceId);
    if (online) this.#cx.bus.emit('meter.online', { since: ts ?? null }, ctx);
    else {
      // [MC-6.8] the meter's own words for why (a bridge: "serial port closed (…)"), beside the kind
      const words = said === undefined ? {} : { said };
      this.#cx.bus.emit('meter.offline', { reason: offlineReason(ts, hint), ...words }, ctx);
    }
  }
}
