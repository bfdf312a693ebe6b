// Bringing the world back from the store: every device known again, every virtual meter's login made
// and its meter restarted as its snapshot left it (World.open), and a reload that stops every meter,
// lets a snapshot restore or reset replace the store's rows, and brings the world back the same way.

import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import { MAX_FUTURE_SKEW_MS } from '../devices/plausibility.ts';
import type { DeviceRecord, MeterSnapshot } from '../store/types.ts';
import { know, type WorldCore } from './core.ts';
import { CHARGED_BASELINE } from './ledger-check.ts';
import { issueMeterSecrets } from './meter-secrets.ts';
import { restoreMeter, type SnapshotBody } from './meter-snapshot.ts';
import { settle, startMeter } from './meters.ts';
import { loadTwins } from './twin-reports.ts';

/** Meters a restore starts at once when it cannot take an old one on (bench/snapshots-world.ts). */
const RESTART_PARALLEL = 50;

type Reusable = Map<string, { meter: VirtualMeter; secret?: string }>;

/**
 * `parallel`: meters started at once (a restore's: 1 at open, where the order of the log matters).
 * `reuse`: connected meters of the world before (a restore): one that comes back online with the
 * same login takes its restored state on its connection (VirtualMeter.rebase) and leaves the map.
 */
export async function restoreMeters(
  core: WorldCore,
  parallel = 1,
  reuse: Reusable = new Map(),
): Promise<void> {
  const { store, log } = core;
  const devices = await store.listDevices();
  for (const d of devices) {
    know(core, d);
    if (d.kind === 'external') core.index.external.add(d.deviceId);
  }
  const snapshots = new Map((await store.loadMeterSnapshots()).map((s) => [s.devicePk, s]));
  const issued = await issueMeterSecrets(store, core.secrets, devices, snapshots, log);
  await ensureLogins(core, devices, snapshots, issued);
  const starting = new Set<Promise<unknown>>();
  for (const device of devices) {
    if (device.kind !== 'virtual') continue;
    const snap = snapshots.get(device.pk);
    if (!snap) {
      log(
        'warn',
        `virtual meter ${device.deviceId} has no snapshot; it was never fully provisioned, skipping`,
      );
      continue;
    }
    // A fleet worker's meter runs there; it comes back when that worker registers (src/world/workers).
    const { host } = JSON.parse(snap.state) as SnapshotBody;
    const secret = core.secrets.secretOf(device.deviceId);
    if (host) {
      core.workers.adoptStored(device, snap, host.worker, secret);
      continue;
    }
    const restored = await restoreMeter(store, device, snap);
    if (restored.chargedBaseline) log('info', `${device.deviceId}: ${CHARGED_BASELINE}`);
    const kept = reuse.get(device.deviceId);
    if (kept && restored.body.online && kept.secret === secret) {
      reuse.delete(device.deviceId);
      kept.meter.rebase(restored.state);
      core.index.meta.set(device.deviceId, {
        secret: kept.secret,
        ledgerSeq: restored.ledgerSeq,
        pk: device.pk,
      });
      await core.fleet.add(kept.meter);
      continue;
    }
    const start = startMeter(
      core,
      restored.state,
      secret,
      restored.ledgerSeq,
      device.pk,
      restored.body.online,
    );
    starting.add(start);
    void start.finally(() => starting.delete(start)).catch(() => undefined);
    if (starting.size >= parallel) await Promise.race(starting);
  }
  await Promise.all(starting);
}

/**
 * A broker that keeps logins itself (Mosquitto's dynamic security) may have lost or never had a
 * virtual meter's: each is made again from its derived password, all at once (the dynsec client
 * batches them); one whose password was just issued (`issued`) has it set, the others are left as
 * they are. External devices' secrets are stored only hashed, so theirs cannot be: they live on in
 * the broker's own file (docs/brokers.md).
 */
async function ensureLogins(
  core: WorldCore,
  devices: DeviceRecord[],
  snapshots: Map<number, MeterSnapshot>,
  issued: Set<string>,
): Promise<void> {
  const logins = core.opts.meterLogins;
  if (!logins) return;
  const made: Promise<void>[] = [];
  for (const d of devices)
    if (d.kind === 'virtual' && snapshots.has(d.pk))
      made.push(
        logins.addMeter(d.deviceId, core.secrets.secretOf(d.deviceId), { restore: !issued.has(d.deviceId) }),
      );
  await Promise.all(made);
}

/**
 * Stops every meter (retired: its retained messages cleared), lets `replace` change the store's rows,
 * then brings the world back from the store as `open` does, the clock at what `replace` returned. If
 * `replace` throws, the store is as it was and so is the world that comes back. Call in `exclusive`.
 */
export async function reload(
  core: WorldCore,
  replace: () => Promise<{ clock: number; speed: number } | null>,
): Promise<void> {
  const { fleet, index, twins, saver } = core;
  fleet.pause();
  await settle(core);
  await saver.saveAll();
  // Connected meters may be taken on by the restored world (restoreMeters); the others are retired after.
  const old: Reusable = new Map(
    fleet.removeAll().map((m) => [m.id, { meter: m, secret: index.meta.get(m.id)?.secret }]),
  );
  await Promise.all([...old.values()].filter((o) => !o.meter.connected).map((o) => o.meter.retire()));
  for (const [id, o] of old) if (!o.meter.connected) old.delete(id);
  for (const map of [index.meta, index.pks, index.accounts, index.external]) map.clear();
  await saver.saveAll(); // after any save queued for the meters just gone
  await twins.settled();
  await core.writer.flush();
  await twins.saveReports();
  await core.external.pause();
  try {
    const clock = await replace();
    if (clock) await core.clock.set(clock.clock, clock.speed);
  } finally {
    twins.replace(await loadTwins(core.store, core.clock.now() + MAX_FUTURE_SKEW_MS));
    await core.external.reload(); // its pending credits are the restored world's [LEDGER-5]
    await restoreMeters(core, RESTART_PARALLEL, old);
    await Promise.all([...old.values()].map((o) => o.meter.retire()));
    await saver.saveAll();
    await Promise.all([...fleet.meters()].map((m) => m.online && twins.waitForAvailability(m.id, true)));
    fleet.resume();
  }
}
