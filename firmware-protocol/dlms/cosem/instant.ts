// The instantaneous profile's row and every scaler profile's row [CO-7.1, CO-7.2]. Pure.

import { OBIS } from './obis.ts';
import { columnsOf, findObject, type MeterKind } from './object-list.ts';
import type { Row } from './rows.ts';
import { type CaptureObject, CLASSES, UNITS } from './types.ts';
import { counterValue, kindOf, type MeterSnapshot, prepaidValues, registerValue } from './values.ts';

/** One column's value now: a register's integer (CO-6.4: null when not measured), a counter, the credit. */
function columnValue(c: CaptureObject, m: MeterSnapshot): number | null {
  if (c.obis === OBIS.clock) return m.sample.ts;
  if (c.classId === CLASSES.credit.id) return prepaidValues(m.state, m.sample).balance;
  if (c.classId === CLASSES.data.id) return counterValue(c.obis, m);
  return registerValue(c.obis, m)?.value ?? null;
}

/**
 * [CO-7.1] The instantaneous profile's one row, at the newest sample's time, in its column order: the
 * columns this meter has (a `basic` meter's profile captures no current, CO-6.4).
 */
export function instantaneousRow(m: MeterSnapshot): Row {
  const profile = findObject(OBIS.instantaneousProfile)!;
  return columnsOf(profile, kindOf(m.info)).map((c) => columnValue(c, m));
}

/** [CO-7.2] A scaler profile's one row: each column's {scaler, unit code}, as attribute 3 carries it. */
export function scalerRow(
  profileObis: string,
  meter: MeterKind = { hasRelay: true, model: 'full' },
): { scaler: number; unit: number }[] | null {
  const profile = findObject(profileObis);
  if (profile?.capture === undefined) return null;
  const columns = columnsOf(profile, meter);
  if (profile.capture.objects.some((c) => c.attribute !== 3)) return null;
  return columns.map((c) => {
    const su = findObject(c.obis)!.scalerUnit!;
    return { scaler: su.scaler, unit: UNITS[su.unit] };
  });
}
