// What a virtual meter shows on its IEC 62056-21 optical port: its readings at an instant as the data
// sets of a mode C readout [IEC-7]. Pure: the caller passes the meter state integrated up to `now`.
// Rule numbers refer to firmware-protocol/iec62056-21/PROTOCOL.md.

import type { DataLine, DataSet } from '../firmware-protocol/iec62056-21/data-set.ts';
import { formatFixed } from '../firmware-protocol/iec62056-21/data-set.ts';
import { IST_OFFSET_MS, readingsAt } from './meter/index.ts';
import type { MeterState } from './meter/types.ts';

const set = (address: string, value: string, unit?: string): DataSet => ({
  address,
  values: [unit === undefined ? { value } : { value, unit }],
});

/** [IEC-7.2] A number at the register's resolution; null (the set left out) when it does not fit. */
function fixed(address: string, n: number | undefined, digits: number, width: number, unit?: string) {
  if (n === undefined) return null;
  const value = formatFixed(n, digits, width);
  return value === null ? null : set(address, value, unit);
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * [IEC-7.1] The readout of `state` at `now`, one data set a line, in the order of IEC-7.1's table.
 * Values are the contract sample's (readingsAt), so a reader sees what the v2 API shows.
 */
export function iecReadout(state: MeterState, now: number): DataLine[] {
  const r = readingsAt(state, now);
  // [IEC-7.3] Meter time is India Standard Time, as on the meter's display.
  const ist = new Date(r.ts + IST_OFFSET_MS);
  const time = `${two(ist.getUTCHours())}${two(ist.getUTCMinutes())}${two(ist.getUTCSeconds())}`;
  const date = `${two(ist.getUTCFullYear() % 100)}${two(ist.getUTCMonth() + 1)}${two(ist.getUTCDate())}`;
  const sets: (DataSet | null)[] = [
    set('C.1.0', state.serial),
    set('F.F', '00000000'),
    set('0.9.1', time),
    set('0.9.2', date),
    fixed('1-0:1.8.0', r.energy, 3, 10, 'kWh'),
    // [IEC-7.2] kW to 0.0001 (0.1 W, the contract's resolution): real meters write power in kW.
    fixed('1-0:1.7.0', r.active_power / 1000, 4, 9, 'kW'),
    fixed('1-0:32.7.0', r.voltage, 2, 6, 'V'),
    fixed('1-0:31.7.0', r.current, 3, 7, 'A'),
    fixed('1-0:33.7.0', r.power_factor, 3, 0),
    fixed('1-0:9.7.0', r.apparent_power === undefined ? undefined : r.apparent_power / 1000, 4, 9, 'kVA'),
    fixed('1-0:3.7.0', r.reactive_power === undefined ? undefined : r.reactive_power / 1000, 4, 9, 'kvar'),
  ];
  return sets.filter((s): s is DataSet => s !== null).map((s) => [s]);
}
