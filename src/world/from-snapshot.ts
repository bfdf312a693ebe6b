// `meterstack serve --from-snapshot FILE` (spec-decisions 115): before the service starts, the file
// (a world snapshot's portable file) is imported into the --db and restored, and the clock is set to
// run on from the snapshot's time. Refused (exit 2) when the file is missing or not a snapshot, or when
// the --db already holds a world (a device or an account): nothing in it is replaced unasked.

import { basename } from 'node:path';
import { SEQ_SETTING } from '../events/settings.ts';
import { SnapshotFileError } from '../store/errors.ts';
import { openStore } from '../store/index.ts';
import { checkSnapshotFile } from '../store/sqlite/snapshot-file.ts';
import { WorldError } from './types.ts';
import { checkedSnapshot } from './world-snapshots.ts';

/** What the service starts from: the snapshot's name (kept in the store) and its virtual time. */
export interface Seeded {
  name: string;
  clock: number;
}

export class FromSnapshotError extends Error {}

export async function seedFromSnapshot(db: string, file: string, createDir: boolean): Promise<Seeded> {
  try {
    checkSnapshotFile(file);
  } catch (err) {
    // The path is the caller's own, so it is named here (an HTTP refusal never names one, SNAP-6).
    if (err instanceof SnapshotFileError)
      throw new FromSnapshotError(`--from-snapshot ${file}: ${err.message}`);
    throw err;
  }
  const store = await openStore(db, { createDir });
  try {
    const devices = (await store.listDevices()).length;
    if (devices > 0 || (await store.getAccount(1)))
      throw new FromSnapshotError(
        `--from-snapshot: ${basename(db)} already holds a world (${devices} devices); start with an empty --db, or take the file in with POST /sim/v1/snapshots/import and restore it`,
      );
    // Kept under its own name, so the starting world can be restored again later.
    const name = `start-${new Date().toISOString().replace(/[:]/g, '-')}`;
    await store.importWorldSnapshot(name, file);
    // [SNAP-4] Its values as a restore through the API would check them; refused, nothing of it stays.
    let info: Awaited<ReturnType<typeof checkedSnapshot>>;
    try {
      info = await checkedSnapshot(store, name);
    } catch (err) {
      await store.deleteWorldSnapshot(name);
      if (err instanceof WorldError) throw new FromSnapshotError(`--from-snapshot: ${err.message}`);
      throw err;
    }
    await store.restoreWorldSnapshot(name, [SEQ_SETTING]);
    // The clock runs on from the snapshot's time, at its speed (a --speed given still wins).
    await store.setSetting('clock.offset', String(info.clock - Date.now()));
    await store.setSetting('clock.speed', String(info.speed));
    return { name, clock: info.clock };
  } finally {
    await store.close();
  }
}
