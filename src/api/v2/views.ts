// Spec shapes (§2) built from a stored record plus what the twin last heard from the meter.

import type { Mode } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { PROPERTY_CATALOGUE } from '../../../simulator/meter/index.ts';
import type { Twin } from '../../devices/types.ts';
import type { DeviceRecord, Space } from '../../store/types.ts';

export interface PropertyInfo {
  property_id: string;
  context_type: 'cumulative' | 'instantaneous';
  unit: string;
}

/** What the meter says it measures [MC-4.3]; the model's catalogue until it has said so. */
export function propertiesOf(device: DeviceRecord, twin: Twin | undefined): readonly PropertyInfo[] {
  return twin?.info?.properties ?? PROPERTY_CATALOGUE[device.model];
}

/**
 * The meter's last reported mode, online or not: the twin keeps it across restarts [MC-5.4]. Only a
 * device that has never reported one (an external meter that has not connected yet) shows
 * `measurement`: it bills nothing and switches nothing (docs/spec-decisions.md #25).
 */
export function modeOf(twin: Twin | undefined): Mode {
  return twin?.state?.mode ?? 'measurement';
}

/** A reading as the twin holds it, or as stored when the twin has heard none since the service started. */
export type LatestSample = Record<string, number | null | undefined> & {
  ts: number;
  balance?: number | null;
};

export function latestOf(twin: Twin | undefined, stored: LatestSample | null): LatestSample | null {
  const live = (twin?.latest ?? null) as LatestSample | null;
  if (live && stored) return live.ts >= stored.ts ? live : stored;
  return live ?? stored;
}

/** Newest balance the meter reported, from its state or its telemetry, whichever is later. */
export function balanceOf(twin: Twin | undefined, sample: LatestSample | null): number {
  const state = twin?.state;
  const sampled = typeof sample?.balance === 'number' ? sample.balance : null;
  if (state && sampled !== null && sample) return sample.ts > state.ts ? sampled : state.balance;
  return state?.balance ?? sampled ?? 0;
}

const udfs = (r: {
  udf1: string | null;
  udf2: string | null;
  udf3: string | null;
  udf4: string | null;
  udf5: string | null;
}) => ({
  udf1: r.udf1,
  udf2: r.udf2,
  udf3: r.udf3,
  udf4: r.udf4,
  udf5: r.udf5,
});

export function deviceSummary(device: DeviceRecord, twin: Twin | undefined) {
  return { device_id: device.deviceId, name: device.name, active_mode: modeOf(twin), ...udfs(device) };
}

export function spaceView(
  space: Space,
  devices: readonly DeviceRecord[],
  twinOf: (id: string) => Twin | undefined,
) {
  return {
    space_id: space.id,
    name: space.name,
    description: space.description,
    devices: devices.map((d) => deviceSummary(d, twinOf(d.deviceId))),
    tags: [],
    ...udfs(space),
  };
}

export function readingsOf(device: DeviceRecord, twin: Twin | undefined, sample: LatestSample | null) {
  if (!sample) return [];
  const readings = [];
  for (const p of propertiesOf(device, twin)) {
    const value = sample[p.property_id];
    if (typeof value === 'number')
      readings.push({ property_id: p.property_id, context_type: p.context_type, value, unit: p.unit });
  }
  return readings;
}

export function deviceView(
  device: DeviceRecord,
  space: Space,
  twin: Twin | undefined,
  sample: LatestSample | null,
) {
  return {
    device_id: device.deviceId,
    name: device.name,
    description: device.description,
    space: { id: space.id, name: space.name, description: space.description },
    public_access: device.publicAccess,
    public_hash: device.publicHash,
    active_mode: modeOf(twin),
    balance: balanceOf(twin, sample),
    has_relay: twin?.info?.has_relay ?? true,
    is_online: twin?.online ?? false,
    is_shared: device.isShared,
    readings: readingsOf(device, twin, sample),
    tags: [],
    ...udfs(device),
  };
}
