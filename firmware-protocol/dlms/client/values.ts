// Reading a meter's answers back into plain values [CL-8]: the object list, scaler and unit, numbers,
// date-times, text, a profile's rows. A value of an unexpected shape gives null, never a guess. Pure.

import { type Obis, obisFromBytes } from '../apdu/cosem.ts';
import type { Data } from '../apdu/data.ts';
import { type DateTime, dateTimeToInstant, decodeDateTime } from '../apdu/datetime.ts';
import { UNITS, type UnitName } from '../cosem/types.ts';

export interface ListedObject {
  classId: number;
  obis: Obis;
}

/** [CL-8.2] Association LN attribute 2: each element's class id and logical name (rights are not needed). */
export function objectListFrom(d: Data): ListedObject[] | null {
  if (d.type !== 'array') return null;
  const out: ListedObject[] = [];
  for (const item of d.items) {
    if (item.type !== 'structure' || item.items.length < 3) return null;
    const [cls, , ln] = item.items;
    if (cls?.type !== 'long-unsigned' || ln?.type !== 'octet-string' || ln.value.length !== 6) return null;
    out.push({ classId: cls.value, obis: obisFromBytes(ln.value) });
  }
  return out;
}

const UNIT_NAMES = new Map<number, UnitName>(
  Object.entries(UNITS).map(([name, code]) => [code, name as UnitName]),
);

/** [CL-8.3] Register attribute 3, scaler_unit: {integer scaler, enum unit}; an unknown unit is null. */
export function scalerUnitFrom(d: Data): { scaler: number; unit: UnitName } | null {
  if (d.type !== 'structure' || d.items.length !== 2) return null;
  const [s, u] = d.items;
  if (s?.type !== 'integer' || u?.type !== 'enum') return null;
  const unit = UNIT_NAMES.get(u.value);
  return unit === undefined ? null : { scaler: s.value, unit };
}

const INTEGER_TYPES = new Set([
  'integer',
  'long',
  'double-long',
  'unsigned',
  'long-unsigned',
  'double-long-unsigned',
  'enum',
]);

/** [CL-8.4] An integer value of any width; long64 within the safe range; anything else null. */
export function numberFrom(d: Data): number | null {
  if (INTEGER_TYPES.has(d.type)) return (d as { value: number }).value;
  if (d.type === 'long64' || d.type === 'long64-unsigned') {
    const n = Number(d.value);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

export function booleanFrom(d: Data): boolean | null {
  return d.type === 'boolean' ? d.value : null;
}

/** [CL-8.4] Text from a visible-string, utf8-string or octet-string (IS 15959 name plates use either). */
export function textFrom(d: Data): string | null {
  if (d.type === 'visible-string' || d.type === 'utf8-string') return d.value;
  if (d.type === 'octet-string') return new TextDecoder('latin1').decode(d.value);
  return null;
}

/**
 * [CL-8.5] An instant from a clock value: a date-time, or an octet-string of 12 bytes holding one. A
 * date-time without deviation is read in the meter's zone (`offsetMinutes` east of UTC).
 */
export function instantFrom(d: Data, offsetMinutes: number): number | null {
  let dt: DateTime;
  if (d.type === 'date-time') dt = d.value;
  else if (d.type === 'octet-string') {
    const r = decodeDateTime(d.value);
    if (!r.ok) return null;
    dt = r.value;
  } else return null;
  return dateTimeToInstant(dt, offsetMinutes);
}

/** A profile row: the clock column as ms, the others as integers or null (null-data, or not a number). */
export type Row = (number | null)[];

/**
 * [CL-8.6] A profile's buffer: an array of structures, each one row in capture-object order. Column
 * `clockColumn` is read as an instant. A buffer of another shape is null.
 */
export function rowsFrom(d: Data, clockColumn: number, offsetMinutes: number): Row[] | null {
  if (d.type !== 'array') return null;
  const rows: Row[] = [];
  for (const r of d.items) {
    if (r.type !== 'structure') return null;
    rows.push(r.items.map((c, i) => (i === clockColumn ? instantFrom(c, offsetMinutes) : numberFrom(c))));
  }
  return rows;
}

/** [CL-8.6] Profile attribute 3, capture_objects: class id, logical name and attribute of each column. */
export function captureColumnsFrom(d: Data): { classId: number; obis: Obis; attribute: number }[] | null {
  if (d.type !== 'array') return null;
  const out: { classId: number; obis: Obis; attribute: number }[] = [];
  for (const item of d.items) {
    if (item.type !== 'structure' || item.items.length !== 4) return null;
    const [cls, ln, at] = item.items;
    if (cls?.type !== 'long-unsigned' || ln?.type !== 'octet-string' || ln.value.length !== 6) return null;
    if (at?.type !== 'integer') return null;
    out.push({ classId: cls.value, obis: obisFromBytes(ln.value), attribute: at.value });
  }
  return out;
}
