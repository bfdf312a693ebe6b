// Money for external meters (a serial meter behind `meterstack bridge`, real firmware): the same path as a
// fleet worker's meter, ledger first [LEDGER-1], then the credit over MQTT through the twins
// (`creditLedgerEntry`, the one way money travels there [LEDGER-2]). The ledger holds it pending until the
// meter answers; its answer is a receipt written once [LEDGER-4]; pending credits are sent again, by the
// same transaction id, whenever the meter comes online and every `retryMs` while it is [LEDGER-5]; each
// applied credit is checked against the balances the meter reported around it [LEDGER-6].

import type { TwinRegistry } from '../devices/twins.ts';
import type { Twin } from '../devices/types.ts';
import type { EventBus } from '../events/bus.ts';
import type { CreditReceipt, DeviceRecord, LedgerEntry, Store } from '../store/types.ts';
import { type ExternalLedgerCheck, externalLedgerCheck } from './external-ledger-check.ts';
import { type Log, WorldError } from './types.ts';

export interface ExternalCreditsOptions {
  store: Pick<
    Store,
    | 'appendLedger'
    | 'recordCreditReceipt'
    | 'creditReceipts'
    | 'pendingCredits'
    | 'ledgerSince'
    | 'listDevices'
    | 'getDevice'
    | 'ledgerTotals'
  >;
  /** The world's clock: ledger times, and the meter's report times are judged against it. */
  clock: { now(): number };
  twins: Pick<TwinRegistry, 'creditLedgerEntry' | 'get'>;
  bus: EventBus;
  log: Log;
  /** Wall ms between sweeps that send pending credits to online meters again. Default 10 s. */
  retryMs?: number;
}

/** Where one credit stands at the meter. */
export type CreditStatus =
  | { status: 'applied'; balance: number }
  | { status: 'pending'; balance: number | null; why: string }
  | { status: 'refused'; balance: number | null; reason: string };

export type ExternalRecharge = CreditStatus & { applied: boolean; ledgerSeq: number };

export class ExternalCredits {
  readonly #o: ExternalCreditsOptions;
  /** Per device, its credits one at a time, in ledger order. */
  readonly #queues = new Map<string, Promise<unknown>>();
  #timer: NodeJS.Timeout | null = null;
  /** Devices with credits pending: added when one stays pending, dropped when a flush finds none. */
  readonly #pendingDevices = new Set<string>();
  /** Each meter's newest ack: a balance it reported too, maybe before its state says so (MC-8.11). */
  readonly #acked = new Map<string, { balance: number; ts: number }>();
  #unsubscribe: (() => void) | null = null;
  /** While a whole-world operation replaces the ledger, no credit goes out (`pause`). */
  #paused = false;

  constructor(o: ExternalCreditsOptions) {
    this.#o = o;
  }

  /**
   * [LEDGER-5] Pending credits go out when their meter comes online, and on each sweep. Which devices have
   * any is kept here (read once from the store), so a reconnection of thousands of meters costs nothing.
   */
  async start(): Promise<void> {
    await this.reload();
    this.#unsubscribe = this.#o.bus.subscribe((e) => {
      const id = e.type === 'meter.online' ? e.device_id : undefined;
      if (id !== undefined && this.#pendingDevices.has(id) && !this.#paused)
        void this.#flushById(id).catch(() => undefined);
    });
    this.#timer = setInterval(() => void this.sweep().catch(() => undefined), this.#o.retryMs ?? 10_000);
    this.#timer.unref();
  }

  /** Reads which devices have pending credits from the store (at start, and after a world restore or reset). */
  async reload(): Promise<void> {
    const pending = new Set((await this.#o.store.pendingCredits()).map((e) => e.devicePk));
    this.#pendingDevices.clear();
    this.#paused = false;
    if (pending.size === 0) return;
    for (const d of await this.#o.store.listDevices())
      if (pending.has(d.pk)) this.#pendingDevices.add(d.deviceId);
  }

  /**
   * Before a world restore or reset rewrites the ledger: resolves once no credit is in flight, and none
   * starts until `reload` (a receipt must never land on a seq of the world that replaced its credit's).
   */
  async pause(): Promise<void> {
    this.#paused = true;
    await Promise.all(this.#queues.values());
  }

  stop(): void {
    this.#unsubscribe?.();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /**
   * [LEDGER-1] [LEDGER-4] Credits an external meter once per transaction id: the ledger entry first, then
   * the credit to the meter. A repeat of a transaction id the meter answered answers as it did
   * (`applied: false`); a repeat of a pending one sends it again now.
   */
  async recharge(device: DeviceRecord, amount: number, transactionId: string): Promise<ExternalRecharge> {
    let shownBefore: object | null = null;
    const result = await this.#serial(device.deviceId, async () => {
      const { store, clock } = this.#o;
      const written = await store
        .appendLedger({
          devicePk: device.pk,
          kind: 'recharge',
          amount,
          transactionId,
          createdAt: clock.now(),
        })
        .catch((err: Error) => {
          throw new WorldError('conflict', err.message);
        });
      const { entry, duplicate } = written;
      if (duplicate && entry.amount !== amount)
        throw new WorldError(
          'conflict',
          `transaction ${transactionId} was already used for ${entry.amount} paise`,
        );
      const answered = duplicate
        ? (await store.creditReceipts(device.pk)).find((r) => r.ledgerSeq === entry.seq)
        : undefined;
      shownBefore = this.#o.twins.get(device.deviceId)?.state ?? null;
      const status = answered
        ? this.#fromReceipt(device.deviceId, answered)
        : await this.#deliver(device, entry);
      if (duplicate) this.#event(device, entry, { outcome: 'duplicate', balance: status.balance });
      return { ...status, applied: !duplicate, ledgerSeq: entry.seq };
    });
    if (result.status === 'applied' && result.applied) await this.#shown(device.deviceId, shownBefore);
    return result;
  }

  /**
   * [LEDGER-4] As LEDGER-1 for virtual meters: a credit the meter just took is answered once the service
   * has the state the meter publishes with it (MC-8.11), 1 s at most, so the v2 API shows the new balance
   * to the next request.
   */
  async #shown(deviceId: string, before: object | null): Promise<void> {
    const deadline = Date.now() + 1_000;
    const twin = () => this.#o.twins.get(deviceId);
    while (twin()?.online && twin()?.state === before && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
  }

  /** [LEDGER-5] Sends every pending credit of the online external meters again, oldest first. */
  async sweep(): Promise<void> {
    if (this.#paused) return;
    for (const id of [...this.#pendingDevices])
      if (this.#o.twins.get(id)?.online) await this.#flushById(id).catch(() => undefined);
  }

  /** [LEDGER-6] External meters (or one) against the credits the ledger gave them. */
  async check(deviceId?: string): Promise<ExternalLedgerCheck[]> {
    const { store } = this.#o;
    const one = deviceId === undefined ? null : await store.getDevice(deviceId);
    if (deviceId !== undefined && one?.kind !== 'external') return [];
    const credited = new Set((await store.ledgerTotals(one?.pk)).map((t) => t.devicePk));
    const devices = one ? [one] : (await store.listDevices()).filter((d) => d.kind === 'external');
    const checks: ExternalLedgerCheck[] = [];
    for (const d of devices) {
      if (!credited.has(d.pk)) continue;
      const entries = (await store.ledgerSince(d.pk, 0)).filter((e) => e.kind === 'recharge');
      if (entries.length > 0)
        checks.push(externalLedgerCheck(d.deviceId, entries, await store.creditReceipts(d.pk)));
    }
    return checks;
  }

  async #flushById(deviceId: string): Promise<void> {
    const device = await this.#o.store.getDevice(deviceId);
    if (device?.kind === 'external') await this.#flush(device);
    else this.#pendingDevices.delete(deviceId);
  }

  #flush(device: DeviceRecord): Promise<void> {
    return this.#serial(device.deviceId, async () => {
      for (const entry of await this.#o.store.pendingCredits(device.pk)) {
        if (!this.#o.twins.get(device.deviceId)?.online) return;
        const s = await this.#deliver(device, entry);
        if (s.status === 'pending') return; // the next one would fare no better now, and order is kept
      }
      this.#pendingDevices.delete(device.deviceId);
    });
  }

  /** Sends one ledger credit and writes the meter's answer as its receipt; no answer leaves it pending. */
  async #deliver(device: DeviceRecord, entry: LedgerEntry): Promise<CreditStatus> {
    const { twins, store, clock } = this.#o;
    const id = device.deviceId;
    const before = newest(reported(twins.get(id)), this.#acked.get(id));
    const outcome = await twins.creditLedgerEntry(id, {
      amount: entry.amount,
      transactionId: entry.transactionId!,
    });
    const receipt = (r: Omit<CreditReceipt, 'ledgerSeq' | 'devicePk' | 'receivedAt'>) =>
      store.recordCreditReceipt({ ...r, ledgerSeq: entry.seq, devicePk: device.pk, receivedAt: clock.now() });
    const data = outcome.ok ? rechargeData(outcome.data) : null;
    if (outcome.ok && !data) {
      // [MC-8.6] An ack without `{applied, balance}` says nothing sure about the money: still pending.
      this.#o.log(
        'warn',
        `recharge ${entry.transactionId} of ${id}: reply data ${JSON.stringify(outcome.data)} breaks MC-8.6; kept pending`,
      );
    }
    if (data) {
      this.#acked.set(id, { balance: data.balance, ts: clock.now() });
      // [MC-8.8] applied: false is a meter that already holds this transaction (an ack lost before):
      // it is applied, but the balance it reported before may already include it, so it is not compared.
      const wasBefore = data.applied && before ? before : null;
      const { receipt: r, duplicate } = await receipt({
        outcome: 'applied',
        balanceBefore: wasBefore?.balance ?? null,
        balanceAfter: data.balance,
        allowance: wasBefore ? allowance(twins.get(id), wasBefore.ts, clock.now()) : 0,
        reason: null,
      });
      if (!duplicate) {
        this.#event(device, entry, { outcome: 'applied', balance: data.balance });
      }
      return this.#fromReceipt(id, r);
    }
    // [LEDGER-5] busy is "not now, maybe later" (a bridge whose serial link is down says it, SP-7.3).
    if (!outcome.ok && outcome.reason === 'rejected' && outcome.code !== 'busy') {
      const reason = `${outcome.code}: ${outcome.message}`;
      const { receipt: r, duplicate } = await receipt({
        outcome: 'refused',
        balanceBefore: null,
        balanceAfter: null,
        allowance: 0,
        reason,
      });
      if (!duplicate) {
        this.#event(device, entry, { outcome: 'refused', balance: before?.balance ?? null, reason });
      }
      return this.#fromReceipt(id, r);
    }
    const why = outcome.ok
      ? 'its reply broke MC-8.6'
      : outcome.reason === 'offline'
        ? 'the meter is offline'
        : outcome.reason === 'timeout'
          ? `the meter did not answer within ${outcome.afterMs} ms`
          : `the meter is busy: ${outcome.message}`;
    this.#pendingDevices.add(id);
    this.#event(device, entry, { outcome: 'pending', balance: before?.balance ?? null, reason: why });
    return { status: 'pending', balance: before?.balance ?? null, why };
  }

  #fromReceipt(deviceId: string, r: CreditReceipt): CreditStatus {
    if (r.outcome === 'refused')
      return {
        status: 'refused',
        balance: reported(this.#o.twins.get(deviceId))?.balance ?? null,
        reason: r.reason ?? '',
      };
    return { status: 'applied', balance: r.balanceAfter! };
  }

  #event(
    device: DeviceRecord,
    entry: LedgerEntry,
    e: { outcome: 'applied' | 'duplicate' | 'refused' | 'pending'; balance: number | null; reason?: string },
  ): void {
    this.#o.bus.emit(
      'money.recharge',
      { ...e, transaction_id: entry.transactionId!, amount: entry.amount, ledger_seq: entry.seq },
      { deviceId: device.deviceId, accountId: device.accountId },
    );
  }

  #serial<T>(deviceId: string, run: () => Promise<T>): Promise<T> {
    const next = (this.#queues.get(deviceId) ?? Promise.resolve()).then(run);
    const tail = next.catch(() => undefined);
    this.#queues.set(deviceId, tail);
    void tail.then(() => {
      if (this.#queues.get(deviceId) === tail) this.#queues.delete(deviceId);
    });
    return next;
  }
}

/** [MC-8.6] A recharge reply's data, or null when it is not `{applied: boolean, balance: integer}`. */
function rechargeData(data: unknown): { applied: boolean; balance: number } | null {
  const d = data as { applied?: unknown; balance?: unknown } | null | undefined;
  if (typeof d?.applied !== 'boolean' || !Number.isSafeInteger(d.balance)) return null;
  return { applied: d.applied, balance: d.balance as number };
}

type Reported = { balance: number; ts: number };

/** The newest balance a meter reported (its state or its newest sample) and when. */
function reported(twin: Twin | undefined): Reported | null {
  const s = twin?.state ? { balance: twin.state.balance, ts: twin.state.ts } : null;
  const t = twin?.latest?.balance !== undefined ? { balance: twin.latest.balance, ts: twin.latest.ts } : null;
  return newest(s, t);
}

function newest(a: Reported | null | undefined, b: Reported | null | undefined): Reported | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return b.ts > a.ts ? b : a;
}

/**
 * [LEDGER-6] Paise a meter may bill between the balance it reported at `sinceTs` and its ack: its newest
 * power at the dearer of its tariffs over that time, doubled for a load that rises meanwhile, plus one
 * paisa for rounding (MC-5.2: balances are rounded toward minus infinity).
 */
export function allowance(twin: Twin | undefined, sinceTs: number, now: number): number {
  const watts = Math.max(0, twin?.latest?.active_power ?? 0);
  const tariff = twin?.state ? Math.max(twin.state.eb_tariff, twin.state.dg_tariff) : 0;
  const hours = Math.max(0, now - sinceTs) / 3_600_000;
  return 1 + 2 * Math.ceil((watts / 1000) * hours * tariff);
}
