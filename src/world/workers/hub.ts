// The world's side of the fleet workers (issue 11 §2): leases, the workers' meters, their snapshots,
// money for their meters (ledger first, then a credit over MQTT) and the one virtual clock: a jump
// returns only when every live worker's meters have lived through it and their telemetry is stored.

import { randomBytes } from 'node:crypto';
import type { VirtualClock } from '../../../simulator/clock.ts';
import { readMeterSnapshot, reportedBalance, serializeMeter } from '../../../simulator/meter/index.ts';
import type { TwinRegistry } from '../../devices/twins.ts';
import type { EventBus } from '../../events/bus.ts';
import type { DeviceRecord, MeterSnapshot, Store } from '../../store/types.ts';
import { type LedgerCheck, ledgerCheck } from '../ledger-check.ts';
import { restoreMeter } from '../meter-snapshot.ts';
import { type Log, WorldError } from '../types.ts';
import { type HostedMeter, hostedSnapshot, hostMeters, type WorkerMeterSpec } from './hosted.ts';
import { isAlive, registrationConflict, type WorkerLease } from './leases.ts';
import { type AdvanceReport, WorkerSync } from './sync.ts';

export interface WorkerHubWorld {
  store: Store;
  clock: VirtualClock;
  twins: TwinRegistry;
  bus: EventBus;
  mqttUrl: string;
  adoptHosted(device: DeviceRecord, secret?: string): Promise<void>;
  /** [SNAP-8] A virtual meter's derived MQTT password. */
  meterSecret(deviceId: string): string;
}

export interface WorkerHubOptions {
  world: WorkerHubWorld;
  log: Log;
  /** Wall ms a worker has to live through a jump before the advance reports it late. Default 60 s. */
  advanceTimeoutMs?: number;
}

export interface Registration extends WorkerMeterSpec {
  pid: number;
  host: string;
}

export interface SentSnapshot {
  device_id: string;
  meter: string;
  online: boolean;
}

export class WorkerHub {
  readonly #o: WorkerHubOptions;
  readonly #leases = new Map<string, WorkerLease>();
  readonly #hosted = new Map<string, HostedMeter>();
  readonly sync: WorkerSync;
  /** Registrations, saves and credits one at a time: a snapshot never overtakes a credit's ledger entry. */
  #queue: Promise<unknown> = Promise.resolve();
  #unsubscribe: (() => void)[] = [];

  constructor(o: WorkerHubOptions) {
    this.#o = o;
    this.sync = new WorkerSync({
      log: o.log,
      twins: o.world.twins,
      timeoutMs: o.advanceTimeoutMs ?? 60_000,
      lease: (name) => this.#leases.get(name),
    });
  }

  start(): void {
    const { clock, bus } = this.#o.world;
    this.#unsubscribe.push(clock.onAdvance((_from, to) => this.sync.advance(this.#live(), to)));
    // Speed changes reach every worker's clock at once.
    this.#unsubscribe.push(
      bus.subscribe((e) => {
        if (e.type === 'clock.speed') this.sync.clock(this.#live(), clock.now(), clock.speed);
      }),
    );
  }

  close(): void {
    for (const u of this.#unsubscribe.splice(0)) u();
    this.sync.close();
  }

  /** What the last clock jump found: the workers that did not answer in time. */
  get lastAdvance(): AdvanceReport {
    return this.sync.lastReport;
  }

  hosts(deviceId: string): boolean {
    return this.#hosted.has(deviceId);
  }

  /**
   * A worker meter found in the store when the world opens: known (recharges go to the ledger, the
   * ledger check reads its snapshot) until its worker registers again and runs it.
   */
  adoptStored(device: DeviceRecord, snap: MeterSnapshot, worker: string, secret: string): void {
    this.#hosted.set(device.deviceId, {
      deviceId: device.deviceId,
      pk: device.pk,
      accountId: device.accountId,
      worker,
      secret,
      ledgerSeq: snap.ledgerSeq,
      pending: [],
    });
  }

  /** Every device a fleet worker hosts, with its worker. */
  hosted(): { deviceId: string; worker: string }[] {
    return [...this.#hosted.values()].map((h) => ({ deviceId: h.deviceId, worker: h.worker }));
  }

  /** The worker that hosts `deviceId`, if one does. */
  hostOf(deviceId: string): string | undefined {
    return this.#hosted.get(deviceId)?.worker;
  }

  list(): (WorkerLease & { alive: boolean })[] {
    const now = Date.now();
    return [...this.#leases.values()].map((l) => ({ ...l, alive: isAlive(l, now) }));
  }

  /** [WORKER-1] A worker registers: refused while another live one holds its name or prefix. */
  register(r: Registration) {
    return this.#serial(async () => {
      const wall = Date.now();
      const conflict = registrationConflict(this.#leases.values(), r.name, r.prefix, wall);
      if (conflict) throw new WorldError('conflict', conflict);
      const { store, clock } = this.#o.world;
      const handed = await hostMeters(r, {
        store,
        now: clock.now(),
        alive: (w) => {
          const l = this.#leases.get(w);
          return l !== undefined && isAlive(l, wall);
        },
        log: this.#o.log,
        secretOf: (id) => this.#o.world.meterSecret(id),
      });
      const snapshots = [];
      for (const [i, h] of handed.entries()) {
        await this.#o.world.adoptHosted(h.device, h.newSecret);
        this.#hosted.set(h.hosted.deviceId, h.hosted);
        snapshots.push(hostedSnapshot(h.hosted, serializeMeter(h.state), h.online, clock.now()));
        if (i % 500 === 499) await new Promise((r) => setImmediate(r)); // other requests get their turn
      }
      if (snapshots.length > 0) await store.saveMeterSnapshots(snapshots);
      const lease: WorkerLease = {
        name: r.name,
        leaseId: randomBytes(12).toString('base64url'),
        pid: r.pid,
        host: r.host,
        prefix: r.prefix,
        since: wall,
        lastBeat: wall,
        syncClosedAt: null,
        meters: handed.map((h) => h.hosted.deviceId),
        released: false,
      };
      this.#leases.set(r.name, lease);
      this.#o.log('info', `fleet worker ${r.name} (pid ${r.pid} on ${r.host}) hosts ${handed.length} meters`);
      return {
        lease_id: lease.leaseId,
        broker_url: this.#o.world.mqttUrl,
        clock: { now_ms: clock.now(), speed: clock.speed },
        meters: handed.map((h) => ({
          device_id: h.hosted.deviceId,
          secret: h.hosted.secret,
          meter: serializeMeter(h.state),
          online: h.online,
          ledger_seq: h.hosted.ledgerSeq,
        })),
      };
    });
  }

  /** The lease `leaseId` of `name`, if it is still the current one; else 409 [WORKER-2]. */
  holder(name: string, leaseId: string): WorkerLease {
    const lease = this.#leases.get(name);
    if (!lease || lease.leaseId !== leaseId || lease.released)
      throw new WorldError('conflict', `worker ${name} no longer holds its lease: another process took it`);
    return lease;
  }

  /** A heartbeat renews the lease and carries the meters that changed. */
  async heartbeat(name: string, leaseId: string, snapshots: SentSnapshot[]): Promise<void> {
    const lease = this.holder(name, leaseId);
    lease.lastBeat = Date.now();
    // Answered at once: the saves take turns with registrations (#serial), and another worker's
    // registration of 10,000 meters takes minutes; a heartbeat that waited for it timed out and its
    // worker stopped. The save is queued now, so it still lands before any later one (money's own
    // snapshots are saved, awaited, through POST …/snapshots).
    // Credits still pending are retried once the snapshots that may settle them are in.
    void this.saveSnapshots(name, leaseId, snapshots).then(
      () => this.#retryCredits(lease),
      (err: Error) => this.#o.log('warn', `worker ${name}: heartbeat snapshots not stored: ${err.message}`),
    );
  }

  /** [WORKER-3] Stored only while the sender holds its lease. */
  saveSnapshots(name: string, leaseId: string, sent: SentSnapshot[]): Promise<void> {
    return this.#serial(async () => {
      this.holder(name, leaseId);
      const now = this.#o.world.clock.now();
      const rows = [];
      for (const s of sent) {
        const h = this.#hosted.get(s.device_id);
        if (!h || h.worker !== name) continue;
        if (h.pending.length > 0) settlePending(h, s.meter);
        rows.push(hostedSnapshot(h, s.meter, s.online, now));
      }
      if (rows.length > 0) await this.#o.world.store.saveMeterSnapshots(rows);
    });
  }

  /** A clean stop: the lease is free at once. */
  release(name: string, leaseId: string): void {
    this.holder(name, leaseId).released = true;
    this.sync.drop(name);
  }

  /**
   * [LEDGER-1] Credits a worker's meter: the ledger entry first, then the credit over MQTT, whose reply
   * waits until the worker stored the meter's snapshot. An offline meter takes it when resumed.
   */
  async recharge(deviceId: string, amount: number, transactionId: string) {
    const h = this.#hosted.get(deviceId);
    if (!h) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    const { store, clock, twins, bus } = this.#o.world;
    const written = await this.#serial(async () => {
      const r = await store
        .appendLedger({ devicePk: h.pk, kind: 'recharge', amount, transactionId, createdAt: clock.now() })
        .catch((err: Error) => {
          throw new WorldError('conflict', err.message);
        });
      if (r.duplicate && r.entry.amount !== amount)
        throw new WorldError(
          'conflict',
          `transaction ${transactionId} was already used for ${r.entry.amount} paise`,
        );
      if (!r.duplicate) h.pending.push({ seq: r.entry.seq, transactionId });
      return r;
    });
    const outcome = await twins.creditLedgerEntry(deviceId, { amount, transactionId });
    const data = outcome.ok ? (outcome.data as { balance?: number } | undefined) : undefined;
    const balance = data?.balance ?? (await this.#storedBalance(h));
    const applied = !written.duplicate;
    bus.emit(
      'money.recharge',
      {
        outcome: applied ? 'applied' : 'duplicate',
        transaction_id: transactionId,
        amount,
        ledger_seq: written.entry.seq,
        balance,
      },
      { deviceId, accountId: h.accountId },
    );
    return { balance, applied, delivered: outcome.ok };
  }

  /** [LEDGER-3] Worker meters against the ledger, from their stored snapshots plus newer entries. */
  async checkLedger(deviceId?: string): Promise<LedgerCheck[]> {
    const { store } = this.#o.world;
    const wanted = deviceId === undefined ? null : this.#hosted.get(deviceId);
    if (deviceId !== undefined && !wanted) return [];
    const devices = new Map((await store.listDevices()).map((d) => [d.pk, d]));
    const totals = new Map((await store.ledgerTotals(wanted?.pk)).map((t) => [t.devicePk, t.total]));
    const checks: LedgerCheck[] = [];
    for (const snap of await store.loadMeterSnapshots()) {
      const device = devices.get(snap.devicePk);
      if (!device || !this.#hosted.has(device.deviceId)) continue;
      if (wanted && wanted.pk !== snap.devicePk) continue;
      const { state } = await restoreMeter(store, device, snap);
      checks.push(ledgerCheck(state, totals.get(snap.devicePk) ?? 0));
    }
    return checks;
  }

  #live(): WorkerLease[] {
    const now = Date.now();
    return [...this.#leases.values()].filter((l) => isAlive(l, now));
  }

  /** Credits still pending after a while are sent again (the meter ignores a repeat [MC-8.8]). */
  #retryCredits(lease: WorkerLease): void {
    for (const id of lease.meters) {
      const h = this.#hosted.get(id);
      if (!h || h.pending.length === 0 || !this.#o.world.twins.get(id)?.online) continue;
      void (async () => {
        const entries = await this.#o.world.store.ledgerSince(h.pk, h.ledgerSeq);
        for (const e of entries) {
          if (e.transactionId === null || e.amount <= 0) continue;
          await this.#o.world.twins.creditLedgerEntry(id, {
            amount: e.amount,
            transactionId: e.transactionId,
          });
        }
      })().catch(() => undefined);
    }
  }

  async #storedBalance(h: HostedMeter): Promise<number> {
    const { store } = this.#o.world;
    const device = await store.getDevice(h.deviceId);
    const snap = (await store.loadMeterSnapshots()).find((s) => s.devicePk === h.pk);
    if (!device || !snap) return 0;
    return reportedBalance((await restoreMeter(store, device, snap)).state.balance);
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * The snapshot's ledger seq moves past each pending credit the meter's state shows it applied, in
 * ledger order; a credit not applied yet holds it back, so a restore applies it then (spec-decisions 85).
 */
function settlePending(h: HostedMeter, meter: string): void {
  const applied = new Set(readMeterSnapshot(meter).state.recentRecharges);
  while (h.pending.length > 0 && applied.has(h.pending[0]!.transactionId)) {
    h.ledgerSeq = Math.max(h.ledgerSeq, h.pending.shift()!.seq);
  }
}
