// The twins' last reported info and state, kept in the store across restarts [MC-5.4]: an offline
// meter (a bridged one after a restart, or a virtual one that lost power) still shows the mode, relay
// and balance it last reported, rather than nothing.

import { decode } from '../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload, SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { energyRefusal } from '../devices/plausibility.ts';
import type { RegisterContinuity } from '../devices/register-continuity.ts';
import type { RestoredTwin } from '../devices/twins.ts';
import type { TwinReport } from '../devices/types.ts';
import type { SampleRow, Store } from '../store/types.ts';

export async function saveReports(
  store: Store,
  reports: TwinReport[],
  pkOf: (deviceId: string) => number | undefined,
  now: number,
): Promise<void> {
  const rows = [];
  for (const r of reports) {
    const devicePk = pkOf(r.deviceId);
    if (devicePk === undefined) continue; // a meter the store does not know: nothing to show it in
    const info = r.info && JSON.stringify(r.info);
    const state = r.state && JSON.stringify(r.state);
    rows.push({ devicePk, info, state, updatedAt: now });
  }
  if (rows.length > 0) await store.saveDeviceReports(rows);
}

/**
 * Every device's saved report and newest stored sample; a saved payload that no longer decodes is left
 * out. A sample stored beyond `notAfter` (by a version that did not check [MC-3.10]) is passed over, so it
 * cannot pin a meter's readings.
 */
export async function loadTwins(store: Store, notAfter: number): Promise<RestoredTwin[]> {
  const reports = new Map((await store.loadDeviceReports()).map((r) => [r.devicePk, r]));
  const registers = new Map((await store.loadRegisterContinuity()).map((r) => [r.devicePk, r]));
  const twins: RestoredTwin[] = [];
  for (const device of await store.listDevices()) {
    const report = reports.get(device.pk);
    const row = await store.latestSample(device.pk, notAfter);
    if (!report && !row) continue;
    // [MC-7.13] The newest sample is checked when the one stored before it agrees with it; a series'
    // only sample (a wild first one an older build stored) is not.
    const before = row && (await store.latestSample(device.pk, row.ts - 1));
    const register = registers.get(device.pk);
    twins.push({
      deviceId: device.deviceId,
      info: payload<InfoPayload>('info', report?.info ?? null),
      state: payload<StatePayload>('state', report?.state ?? null),
      latest: row && toSample(row),
      anchorChecked:
        row !== null && before !== null && energyRefusal(toSample(row), toSample(before)) === null,
      // [MC-7.9] How its registers join into the stored series.
      ...(register ? { register: { epoch: register.epoch, offsetKwh: register.offsetKwh } } : {}),
    });
  }
  return twins;
}

function payload<T>(channel: 'info' | 'state', json: string | null): T | null {
  if (json === null) return null;
  const decoded = decode(channel, Buffer.from(json));
  return decoded.ok ? (decoded.value as T) : null;
}

/** A stored row back as the sample the meter published (properties it did not measure left out). */
function toSample(row: SampleRow): SamplePayload {
  const sample: Record<string, number> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key !== 'devicePk' && typeof value === 'number') sample[key] = value;
  }
  return sample as unknown as SamplePayload;
}

/** [MC-7.9] Saves a device's register continuity, before the samples it applies to are stored. */
export async function saveRegister(
  store: Store,
  register: RegisterContinuity,
  devicePk: number | undefined,
  now: number,
): Promise<void> {
  if (devicePk === undefined) return; // a meter the store does not know: its samples are not stored either
  await store.saveRegisterContinuity([{ devicePk, ...register, updatedAt: now }]);
}
