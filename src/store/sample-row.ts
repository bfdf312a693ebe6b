import type { Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import type { SampleRow } from './types.ts';

/** A meter's sample (contract MC-7.4 / the domain's Sample) as the row stored for `devicePk`. */
export function sampleRow(devicePk: number, s: Omit<Sample, 'balance'> & { balance?: number }): SampleRow {
  return {
    devicePk,
    ts: s.ts,
    energy: s.energy,
    active_power: s.active_power,
    voltage: s.voltage,
    current: s.current ?? null,
    power_factor: s.power_factor ?? null,
    apparent_power: s.apparent_power ?? null,
    reactive_power: s.reactive_power ?? null,
    balance: s.balance ?? null,
  };
}
