// World snapshots, restore and reset (issue 12 §2, spec-decisions 110-116): the world's side of the
// store's WorldSnapshotStore. A snapshot is taken with the fleet held and everything before it stored;
// a restore or reset stops every meter, replaces the store's rows and brings the world back from the
// store as World.open does (reload, restore.ts). One such operation at a time, never during an advance.

import { createMeter } from '../../simulator/meter/index.ts';
import { SEQ_SETTING } from '../events/settings.ts';
import { SnapshotFileError, StoreConflictError } from '../store/errors.ts';
import type { Store, WorldSnapshotInfo } from '../store/types.ts';
import { SNAPSHOT_NAME } from '../store/world-tables.ts';

export { SNAPSHOT_NAME };

import { FOLLOWERS_SEEN_SETTING } from './clock-anchor.ts';
import type { WorldCore } from './core.ts';
import { exclusive, held } from './exclusive.ts';
import { swapMeter } from './replace.ts';
import { reload } from './restore.ts';
import { snapshotProblems, snapshotRefusal } from './snapshot-check.ts';
import { WorldError } from './types.ts';

/** [spec-decisions 112] Settings a restore leaves as they are: event seqs never repeat; followers are processes. */
const KEEP_ON_RESTORE = [SEQ_SETTING, FOLLOWERS_SEEN_SETTING];
/** [spec-decisions 113] A reset keeps the clock too. */
const KEEP_ON_RESET = [...KEEP_ON_RESTORE, 'clock.offset', 'clock.shift', 'clock.speed', 'clock.anchor'];

export function checkSnapshotName(name: string): void {
  if (!SNAPSHOT_NAME.test(name))
    throw new WorldError(
      'invalid',
      `snapshot name must match ${SNAPSHOT_NAME.source}, got ${JSON.stringify(name)}`,
    );
}

export class WorldSnapshots {
  readonly #core: WorldCore;

  constructor(core: WorldCore) {
    this.#core = core;
  }

  async save(name: string): Promise<WorldSnapshotInfo> {
    checkSnapshotName(name);
    const w = this.#core;
    return exclusive(w, 'a snapshot', () =>
      held(w, async () => {
        if (await w.store.getWorldSnapshot(name))
          throw new WorldError('conflict', `snapshot ${name} already exists`);
        const meta = { createdAt: Date.now(), clock: w.clock.now(), speed: w.clock.speed };
        const info = await w.store.saveWorldSnapshot(name, meta).catch(conflict);
        w.bus.emit('world.snapshot', {
          name,
          clock: info.clock,
          devices: info.devices,
          readings: info.readings,
        });
        return info;
      }),
    );
  }

  list(): Promise<WorldSnapshotInfo[]> {
    return this.#core.store.listWorldSnapshots();
  }

  async restore(name: string): Promise<WorldSnapshotInfo> {
    checkSnapshotName(name);
    const w = this.#core;
    return exclusive(w, 'a restore', async () => {
      // [SNAP-4] Every value checked before anything of the world is stopped or replaced.
      const info = await checkedSnapshot(w.store, name);
      const from = w.clock.now();
      await reload(w, async () => {
        const restored = await w.store.restoreWorldSnapshot(name, KEEP_ON_RESTORE).catch((err) => {
          if (err instanceof SnapshotFileError) throw new WorldError('invalid', err.message);
          throw err;
        });
        if (!restored) throw new WorldError('not_found', `snapshot ${name} not found`);
        return { clock: info.clock, speed: info.speed };
      });
      w.bus.emit('world.restored', { name, from, to: w.clock.now(), devices: info.devices });
      return info;
    });
  }

  /** [spec-decisions 113] Every account, key, space, device, meter, ledger entry and reading goes; the clock stays. */
  async reset(): Promise<{ devices: number }> {
    const w = this.#core;
    return exclusive(w, 'a reset', async () => {
      const devices = (await w.store.listDevices()).length;
      await reload(w, async () => {
        await w.store.resetWorld(KEEP_ON_RESET);
        return null;
      });
      w.bus.emit('world.reset', { devices });
      return { devices };
    });
  }

  /**
   * [spec-decisions 116] One virtual meter back to how it started, keeping its configuration (model,
   * mode, tariffs, gateway, load, WiFi, telemetry period): its readings and reports removed, its
   * registers zero, relay on, faults and remembered commands gone, and its balance the opening amount,
   * brought there in the ledger by one `adjustment` entry (append-only: no entry is deleted).
   */
  async resetDevice(deviceId: string): Promise<{ opening: number; adjustment: number }> {
    const w = this.#core;
    return exclusive(w, 'a device reset', async () => {
      let opening = 0;
      let adjustment = 0;
      await swapMeter(w, deviceId, async (old, pk) => {
        const now = w.clock.now();
        await w.store.deleteDeviceReadings(pk);
        const entries = await w.store.ledgerSince(pk, 0);
        opening = entries.find((e) => e.kind === 'opening')?.amount ?? 0;
        adjustment = opening - entries.reduce((sum, e) => sum + e.amount, 0);
        let seq = entries.at(-1)?.seq ?? 0;
        if (adjustment !== 0) {
          const entry = {
            devicePk: pk,
            kind: 'adjustment' as const,
            amount: adjustment,
            transactionId: null,
            createdAt: now,
          };
          seq = (await w.store.appendLedger(entry)).entry.seq;
        }
        const state = createMeter(
          {
            deviceId,
            model: old.model,
            firmware: old.firmware,
            mode: old.mode,
            ebTariff: old.ebTariff,
            dgTariff: old.dgTariff,
            activeTariff: old.activeTariff,
            pgEnabled: old.pgEnabled,
            balance: opening,
            load: old.load,
            seed: old.seed,
            wifi: { ssid: old.wifi.ssid, password: old.wifi.password },
            telemetryPeriodMs: old.telemetryPeriodMs,
          },
          now,
        );
        return { state, ledgerSeq: seq };
      });
      return { opening, adjustment };
    });
  }

  async delete(name: string): Promise<void> {
    checkSnapshotName(name);
    if (!(await this.#core.store.deleteWorldSnapshot(name)))
      throw new WorldError('not_found', `snapshot ${name} not found`);
  }

  /** Writes the snapshot's portable file (a SQLite file, either backend) to `file`. */
  async export(name: string, file: string): Promise<WorldSnapshotInfo> {
    checkSnapshotName(name);
    const info = await this.#get(name);
    if (!(await this.#core.store.exportWorldSnapshot(name, file)))
      throw new WorldError('not_found', `snapshot ${name} not found`);
    return info;
  }

  /** [SNAP-1..4] Kept only if the file and its values pass every check; else nothing of it stays. */
  async import(name: string, file: string): Promise<WorldSnapshotInfo> {
    checkSnapshotName(name);
    const store = this.#core.store;
    const info = await store.importWorldSnapshot(name, file).catch((err) => {
      if (err instanceof SnapshotFileError) throw new WorldError('invalid', err.message);
      return conflict(err);
    });
    try {
      await checkedSnapshot(store, name);
    } catch (err) {
      await store.deleteWorldSnapshot(name);
      throw err;
    }
    return info;
  }

  async #get(name: string): Promise<WorldSnapshotInfo> {
    const info = await this.#core.store.getWorldSnapshot(name);
    if (!info) throw new WorldError('not_found', `snapshot ${name} not found`);
    return info;
  }
}

/** [SNAP-4] The snapshot's info once its values pass snapshot-check.ts; WorldError 'invalid' naming each problem. */
export async function checkedSnapshot(store: Store, name: string): Promise<WorldSnapshotInfo> {
  const contents = await store.readWorldSnapshot(name).catch((err) => {
    if (err instanceof SnapshotFileError) throw new WorldError('invalid', err.message);
    throw err;
  });
  if (!contents) throw new WorldError('not_found', `snapshot ${name} not found`);
  const refusal = snapshotRefusal(snapshotProblems(contents));
  if (refusal) throw new WorldError('invalid', refusal);
  return contents.info;
}

function conflict(err: unknown): never {
  if (err instanceof StoreConflictError) throw new WorldError('conflict', err.message);
  throw err;
}
