// A fleet worker's meters as the world keeps them: provisioned here (device, login, opening ledger
// entry, first snapshot) or restored from their snapshots with every newer ledger entry applied
// (meter-snapshot.ts restoreMeter), then handed to the worker, which runs them.

import type { MeterModel } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { fleetMeterLoad, serializeMeter } from '../../../simulator/meter/index.ts';
import type { LoadProfile, MeterState } from '../../../simulator/meter/types.ts';
import type { DeviceRecord, MeterSnapshot, Store } from '../../store/types.ts';
import { restoreMeter, type SnapshotBody } from '../meter-snapshot.ts';
import { newMeterPlan } from '../new-meter.ts';
import { hashSecret } from '../secrets.ts';
import { WorldError } from '../types.ts';
import { isWorkerMeterId, workerMeterId } from './leases.ts';

/** What the world keeps per worker-hosted meter between snapshots. */
export interface HostedMeter {
  deviceId: string;
  pk: number;
  accountId: number;
  worker: string;
  secret: string;
  /** The newest ledger seq the stored snapshot includes. */
  ledgerSeq: number;
  /** Credits written to the ledger but not yet seen in a snapshot of the meter, oldest first. */
  pending: { seq: number; transactionId: string }[];
}

export interface WorkerMeterSpec {
  name: string;
  prefix: string;
  count: number;
  model?: MeterModel;
  load?: LoadProfile;
  seed?: number;
  balance?: number;
  telemetryPeriodS?: number;
  accountId?: number;
  /** Space of new meters; default: the worker's existing one, else a new space `fleet <name>`. */
  spaceId?: number;
}

export interface HandedMeter {
  hosted: HostedMeter;
  device: DeviceRecord;
  state: MeterState;
  online: boolean;
  /** Set for a new meter: its login must be made on the broker. */
  newSecret?: string;
}

export interface HostingOptions {
  store: Store;
  now: number;
  /** Whether the worker named so holds a live lease (another worker's meters are not taken from it). */
  alive(worker: string): boolean;
  /** [SNAP-8] A virtual meter's MQTT password (World.meterSecret). */
  secretOf(deviceId: string): string;
  log: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

/** The worker's meters: its existing ones restored, new ones provisioned up to `count`. */
export async function hostMeters(spec: WorkerMeterSpec, o: HostingOptions): Promise<HandedMeter[]> {
  const { store } = o;
  const devices = (await store.listDevices()).filter((d) => isWorkerMeterId(spec.prefix, d.deviceId));
  const snaps = new Map<number, MeterSnapshot>();
  if (devices.length > 0) for (const s of await store.loadMeterSnapshots()) snaps.set(s.devicePk, s);
  const handed: HandedMeter[] = [];
  for (const device of devices) {
    const snap = snaps.get(device.pk);
    if (device.kind === 'external')
      throw new WorldError('conflict', `device ${device.deviceId} is external: no worker may run it`);
    if (!snap) {
      o.log('warn', `worker meter ${device.deviceId} has no snapshot; never fully provisioned, skipping`);
      continue;
    }
    const body = JSON.parse(snap.state) as SnapshotBody;
    if (!body.host)
      throw new WorldError(
        'conflict',
        `meter ${device.deviceId} runs in the service itself, not in a worker`,
      );
    if (body.host.worker !== spec.name && o.alive(body.host.worker))
      throw new WorldError(
        'conflict',
        `meter ${device.deviceId} is hosted by live worker ${body.host.worker}`,
      );
    const restored = await restoreMeter(store, device, snap);
    handed.push({
      device,
      state: restored.state,
      online: body.online,
      hosted: {
        deviceId: device.deviceId,
        pk: device.pk,
        accountId: device.accountId,
        worker: spec.name,
        secret: o.secretOf(device.deviceId),
        ledgerSeq: restored.ledgerSeq,
        pending: [],
      },
    });
  }
  const have = new Set(devices.map((d) => d.deviceId));
  let home: { accountId: number; spaceId: number } | null = null;
  for (let n = 1; handed.length < spec.count && n < 1e6; n++) {
    const id = workerMeterId(spec.prefix, n);
    if (have.has(id)) continue;
    home ??= await homeOf(spec, devices[0], o);
    handed.push(await provision(spec, id, home, o));
    // SQLite answers synchronously: without a turn of the event loop now and then, provisioning
    // 10,000 meters would hold every other request (a heartbeat, the v2 API) until it is done.
    if (handed.length % 100 === 0) await new Promise((r) => setImmediate(r));
  }
  return handed;
}

/**
 * Where new meters go: the given account and space, else those of the worker's existing meters, else
 * a new account and a new space named after the worker (the v2 API serves only devices in a space).
 */
async function homeOf(
  spec: WorkerMeterSpec,
  existing: DeviceRecord | undefined,
  o: HostingOptions,
): Promise<{ accountId: number; spaceId: number }> {
  const { store } = o;
  const accountId =
    spec.accountId ?? existing?.accountId ?? (await store.createAccount(`fleet ${spec.name}`, o.now)).id;
  if (!(await store.getAccount(accountId)))
    throw new WorldError('not_found', `account ${accountId} not found`);
  if (spec.spaceId !== undefined) {
    const space = await store.getSpace(spec.spaceId);
    if (!space || space.accountId !== accountId)
      throw new WorldError('not_found', `space ${spec.spaceId} not found in account ${accountId}`);
    return { accountId, spaceId: space.id };
  }
  if (existing?.spaceId != null && existing.accountId === accountId)
    return { accountId, spaceId: existing.spaceId };
  const space = await store.createSpace({
    accountId,
    name: `fleet ${spec.name}`,
    description: `meters of fleet worker ${spec.name}`,
    udf1: null,
    udf2: null,
    udf3: null,
    udf4: null,
    udf5: null,
  });
  return { accountId, spaceId: space.id };
}

async function provision(
  spec: WorkerMeterSpec,
  deviceId: string,
  { accountId, spaceId }: { accountId: number; spaceId: number },
  o: HostingOptions,
): Promise<HandedMeter> {
  const secret = o.secretOf(deviceId);
  const device = await o.store.createDevice(
    {
      deviceId,
      accountId,
      spaceId,
      name: deviceId,
      description: `fleet worker ${spec.name}`,
      model: spec.model ?? 'basic',
      kind: 'virtual',
      mqttSecretHash: hashSecret(secret),
      udf1: null,
      udf2: null,
      udf3: null,
      udf4: null,
      udf5: null,
    },
    o.now,
  );
  const n = Number(deviceId.slice(spec.prefix.length));
  const state = newMeterPlan(
    {
      accountId,
      spaceId,
      model: spec.model,
      // Meter n's own household from the worker's one (issue 20 item 16, spec-decisions 201).
      load: spec.load && fleetMeterLoad(spec.load, n),
      seed: spec.seed === undefined ? undefined : spec.seed + n,
      balance: spec.balance,
      telemetryPeriodS: spec.telemetryPeriodS,
    },
    deviceId,
    o.now,
  ).initial;
  const opening = await o.store.appendLedger({
    devicePk: device.pk,
    kind: 'opening',
    amount: spec.balance ?? 0,
    transactionId: null,
    createdAt: o.now,
  });
  return {
    device,
    state,
    online: true,
    newSecret: secret,
    hosted: {
      deviceId,
      pk: device.pk,
      accountId,
      worker: spec.name,
      secret,
      ledgerSeq: opening.entry.seq,
      pending: [],
    },
  };
}

/** The stored form of a worker meter's state. */
export function hostedSnapshot(h: HostedMeter, meter: string, online: boolean, now: number): MeterSnapshot {
  const body: SnapshotBody = { v: 1, online, meter, host: { worker: h.worker } };
  return { devicePk: h.pk, state: JSON.stringify(body), ledgerSeq: h.ledgerSeq, updatedAt: now };
}

export { serializeMeter };
