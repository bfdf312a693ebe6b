// The world's narrow core: the state every operation needs (store, clock, twins, fleet, bus, log, the
// per-device index, the savers), made once by `makeCore` and passed to each operation file
// (provision.ts, recharge.ts, replace.ts, advance.ts, exclusive.ts, restore.ts, world-snapshots.ts) as
// one typed object. No operation holds the World facade (world.ts), so none imports it back.

import type { VirtualClock } from '../../simulator/clock.ts';
import { Fleet } from '../../simulator/meter-fleet.ts';
import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { ServiceBroker } from '../broker/service-broker.ts';
import { TwinRegistry } from '../devices/twins.ts';
import { type EventBus, silentBus } from '../events/bus.ts';
import type { Metrics } from '../events/metrics.ts';
import { BatchWriter } from '../store/batch-writer.ts';
import type { DeviceRecord, Store } from '../store/types.ts';
import { Accounts } from './accounts.ts';
import { Backfills } from './backfill.ts';
import { ExternalCredits } from './external-credits.ts';
import { MeterLedger } from './meter-ledger.ts';
import { MeterSecrets } from './meter-secrets.ts';
import { registerWorldMetrics, storeWriteObserver } from './metrics.ts';
import { SnapshotSaver } from './snapshot-saver.ts';
import { saveRegister, saveReports } from './twin-reports.ts';
import type { Log, MeterMeta } from './types.ts';
import { WorkerHub } from './workers/hub.ts';

export interface WorldOptions {
  store: Store;
  clock: VirtualClock;
  mqttUrl: string;
  service: { username: string; password: string };
  /**
   * Where a meter's MQTT login is made on brokers that keep logins themselves (Mosquitto's dynamic
   * security); default: nowhere (the embedded broker checks the store).
   */
  meterLogins?: Pick<ServiceBroker, 'addMeter' | 'removeMeter'>;
  /** [MC-2.3] The QoS the twins take telemetry at (ServiceBroker.telemetryQos); default 1. */
  telemetryQos?: 0 | 1;
  /** The service's metrics, where the twins count what they drop; default their own. */
  metrics?: Metrics;
  commandTimeoutMs?: number;
  snapshotIntervalMs?: number;
  fleetTickMs?: number;
  log?: Log;
  /** The event stream everything observable goes to (src/events); default: a silent one. */
  bus?: EventBus;
  /** Wall ms between sends of external meters' pending credits [LEDGER-5]. Default 10 s. */
  creditRetryMs?: number;
  /** [SNAP-8] Where virtual meters' MQTT passwords come from; default: a key of this process only. */
  meterSecrets?: MeterSecrets;
}

/** What the world knows of each device beside the store: emptied and filled again by a reload. */
export interface DeviceIndex {
  readonly pks: Map<string, number>;
  /** Each device's account, for the events' context. */
  readonly accounts: Map<string, number>;
  /** [MC-11.1] External devices: their meters live on wall time, mapped onto the world's clock. */
  readonly external: Set<string>;
  /** Virtual meters run here: their secret, ledger seq and pk. */
  readonly meta: Map<string, MeterMeta>;
}

/** [spec-decisions 111] What runs now: the whole-world operation, if any, and advances (exclusive.ts). */
export interface WorldGate {
  closed: boolean;
  busy: string | null;
  advances: number;
}

export interface WorldCore {
  readonly opts: WorldOptions;
  readonly store: Store;
  readonly clock: VirtualClock;
  readonly mqttUrl: string;
  readonly bus: EventBus;
  readonly log: Log;
  readonly twins: TwinRegistry;
  readonly fleet: Fleet;
  readonly writer: BatchWriter;
  readonly index: DeviceIndex;
  readonly gate: WorldGate;
  readonly secrets: MeterSecrets;
  readonly saver: SnapshotSaver;
  readonly ledger: MeterLedger;
  readonly backfills: Backfills;
  readonly accounts: Accounts;
  readonly external: ExternalCredits;
  readonly workers: WorkerHub;
}

/** Builds the core; nothing is started (World.open starts it). */
export function makeCore(opts: WorldOptions): WorldCore {
  const { store, clock } = opts;
  const log: Log = opts.log ?? (() => {});
  const bus = opts.bus ?? silentBus();
  const index: DeviceIndex = { pks: new Map(), accounts: new Map(), external: new Set(), meta: new Map() };
  const secrets = opts.meterSecrets ?? MeterSecrets.ephemeral();
  const writer = new BatchWriter({
    store,
    onError: (e) => opts.log?.('error', `store: ${e.message}`),
    onWritten: opts.metrics ? storeWriteObserver(opts.metrics) : undefined,
  });
  const twins = twinRegistry(opts, index, writer, bus);
  const fleet = new Fleet({ clock, tickMs: opts.fleetTickMs });
  const virtual = (id: string) => virtualIn(fleet, index, id);
  const saver = new SnapshotSaver({
    store,
    clock,
    log,
    meters: () => [...index.meta.keys()].flatMap((id) => virtual(id) ?? []),
    meter: virtual,
    intervalMs: opts.snapshotIntervalMs ?? 2000,
  });
  const core: WorldCore = {
    opts,
    store,
    clock,
    mqttUrl: opts.mqttUrl,
    bus,
    log,
    twins,
    fleet,
    writer,
    index,
    gate: { closed: false, busy: null, advances: 0 },
    secrets,
    saver,
    ledger: new MeterLedger({
      store,
      clock,
      fleet,
      meta: index.meta,
      saveSnapshot: (deviceId) => saver.saveSome([deviceId]),
      reportedState: (id) => twins.get(id)?.state ?? null,
      log,
    }),
    backfills: new Backfills(),
    accounts: new Accounts({ store, now: () => clock.now() }),
    external: new ExternalCredits({ store, clock, twins, bus, log, retryMs: opts.creditRetryMs }),
    workers: new WorkerHub({
      world: {
        store,
        clock,
        twins,
        bus,
        mqttUrl: opts.mqttUrl,
        adoptHosted: (device, secret) => adoptHosted(core, device, secret),
        meterSecret: (id) => secrets.secretOf(id),
      },
      log,
    }),
  };
  if (opts.metrics) registerWorldMetrics(opts.metrics, core);
  return core;
}

/** The service's twins of every meter, fed by MQTT; what they store goes through `writer`. */
function twinRegistry(
  opts: WorldOptions,
  index: DeviceIndex,
  writer: BatchWriter,
  bus: EventBus,
): TwinRegistry {
  const { store, clock } = opts;
  return new TwinRegistry({
    mqttUrl: opts.mqttUrl,
    username: opts.service.username,
    password: opts.service.password,
    devicePk: (id) => index.pks.get(id),
    ingest: (rows) => writer.add(rows),
    telemetryQos: opts.telemetryQos,
    metrics: opts.metrics,
    commandTimeoutMs: opts.commandTimeoutMs,
    now: () => clock.now(),
    saveReports: (reports) => saveReports(store, reports, (id) => index.pks.get(id), clock.now()),
    saveRegister: (id, reg) => saveRegister(store, reg, index.pks.get(id), clock.now()),
    log: opts.log,
    bus,
    accountOf: (id) => index.accounts.get(id),
    clockOf: (id) => (index.external.has(id) ? 'wall' : 'virtual'),
    wallOffset: () => clock.wallShift(),
  });
}

/** A virtual meter and its meta, when both exist. */
export function virtualOf(
  core: Pick<WorldCore, 'fleet' | 'index'>,
  deviceId: string,
): { meter: VirtualMeter; meta: MeterMeta } | undefined {
  return virtualIn(core.fleet, core.index, deviceId);
}

function virtualIn(fleet: Fleet, index: DeviceIndex, deviceId: string) {
  const meter = fleet.get(deviceId);
  const meta = index.meta.get(deviceId);
  return meter && meta ? { meter, meta } : undefined;
}

/** The device's pk and account, for the twins and the events' context. */
export function know(core: Pick<WorldCore, 'index'>, device: DeviceRecord): void {
  core.index.pks.set(device.deviceId, device.pk);
  core.index.accounts.set(device.deviceId, device.accountId);
}

/**
 * A device whose meter runs in a fleet worker: known here (twins, v2 API, ledger) but not run here;
 * with `secret`, its MQTT login is made on brokers that keep logins themselves.
 */
export async function adoptHosted(core: WorldCore, device: DeviceRecord, secret?: string): Promise<void> {
  know(core, device);
  if (secret !== undefined) await core.opts.meterLogins?.addMeter(device.deviceId, secret);
}
