// The instantaneous profile's row and every scaler profile's row [CO-7.1, CO-7.2]. Pure.

import { OBIS } from './obis.ts';
import { findObject } from './object-list.ts';
import { INSTANTANEOUS_COLUMNS } from './objects-profiles.ts';
import type { Row } from './rows.ts';
import { type CaptureObject, CLASSES, UNITS } from './types.ts';
import { counterValue, type MeterSnapshot, prepaidValues, registerValue } from './values.ts';

/** One column's value now: a register's integer (CO-6.4: null when not measured), a counter, the credit. */
function columnValue(c: CaptureObject, m: MeterSnapshot): number | null {
  if (c.obis === OBIS.clock) return m.sample.ts;
  if (c.classId === CLASSES.credit.id) return prepaidValues(m.state, m.sample).balance;
  if (c.classId === CLASSES.data.id) return counterValue(c.obis, m);
  return registerValue(c.obis, m)?.value ?? null;
}

/** [CO-7.1] The instantaneous profile's one row, at the newest sample's time, in its column order. */
export function instantaneousRow(m: MeterSnapshot): Row {
  return INSTANTANEOUS_COLUMNS.map((c) => columnValue(c, m));
}

/** [CO-7.2] A scaler profile's one row: each column's {scaler, unit code}, as attribute 3 carries it. */
export function scalerRow(profileObis: string): { scaler: number; unit: number }[] | null {
  const columns = findObject(profileObis)?.capture?.objects;
  if (columns === undefined || columns.some((c) => c.attribute !== 3)) return null;
  return columns.map((c) => {
    const su = findObject(c.obis)!.scalerUnit!;
    return { scaler: su.scaler, unit: UNITS[su.unit] };
  });
}
