// Building the COSEM Data of attribute values [AS-3]: integers checked against their A-XDR type, date-
// times as 12-byte octet-strings, capture objects, the object list, profile rows. Pure.

import { obisToBytes } from '../apdu/cosem.ts';
import { type Data, INT_RANGES, type IntType } from '../apdu/data.ts';
import { dateTimeFromInstant, encodeDateTime } from '../apdu/datetime.ts';
import { OBIS } from '../cosem/obis.ts';
import { findObject, type ObjectListEntry } from '../cosem/object-list.ts';
import type { Row } from '../cosem/rows.ts';
import type { AxdrType, CaptureObject } from '../cosem/types.ts';

/** [AS-3.2] An integer in its A-XDR type, or null when the type cannot hold it (never a wrapped value). */
export function intData(type: AxdrType, value: number): Data | null {
  const range = INT_RANGES[type as IntType];
  if (range === undefined || !Number.isInteger(value) || value < range[0] || value > range[1]) return null;
  return { type: type as IntType, value };
}

export const octets = (value: Uint8Array): Data => ({ type: 'octet-string', value });
export const visible = (value: string): Data => ({ type: 'visible-string', value });
export const ln = (obis: string): Data => octets(obisToBytes(obis));
export const NULL_DATA: Data = { type: 'null-data' };

/** [AS-3.3] An instant as the meter's clock shows it: a 12-byte date-time in an octet-string (AX-5.1). */
export function dateTimeData(ms: number, offsetMin: number): Data {
  return octets(encodeDateTime(dateTimeFromInstant(ms, offsetMin)));
}

/** [AS-3.3] A date-time of which nothing is specified (DST begin/end on a meter without DST). */
export const UNSPECIFIED_DATE_TIME: Data = octets(
  encodeDateTime({
    year: null,
    month: null,
    day: null,
    dayOfWeek: null,
    hour: null,
    minute: null,
    second: null,
    hundredths: null,
    deviation: null,
    status: null,
  }),
);

/** [CO-4.1] A capture object as profile attribute 3 and the sort object carry it. */
export function captureData(c: CaptureObject): Data {
  return {
    type: 'structure',
    items: [
      { type: 'long-unsigned', value: c.classId },
      ln(c.obis),
      { type: 'integer', value: c.attribute },
      { type: 'long-unsigned', value: c.dataIndex },
    ],
  };
}

/**
 * [AS-3.4, CO-2.6] The object_list (Association LN v1 attribute 2): per object {class id, version,
 * logical name, {attribute access, method access}}; access_selectors is an array of integers for a
 * profile's buffer and null-data elsewhere.
 */
export function objectListData(entries: readonly ObjectListEntry[]): Data {
  return {
    type: 'array',
    items: entries.map((e) => ({
      type: 'structure',
      items: [
        { type: 'long-unsigned', value: e.classId },
        { type: 'unsigned', value: e.version },
        ln(e.obis),
        {
          type: 'structure',
          items: [
            {
              type: 'array',
              items: e.attributes.map((a) => ({
                type: 'structure',
                items: [
                  { type: 'integer', value: a.id },
                  { type: 'enum', value: a.mode },
                  a.selectors.length === 0
                    ? NULL_DATA
                    : { type: 'array', items: a.selectors.map((s) => ({ type: 'integer', value: s })) },
                ],
              })),
            },
            {
              type: 'array',
              items: e.methods.map((m) => ({
                type: 'structure',
                items: [
                  { type: 'integer', value: m.id },
                  { type: 'enum', value: m.mode },
                ],
              })),
            },
          ],
        },
      ],
    })),
  };
}

/** The A-XDR type of a profile column's value: its object's attribute type; time columns are date-times. */
function columnType(c: CaptureObject): AxdrType | 'time' {
  if (c.obis === OBIS.clock || c.obis === OBIS.billingDate) return 'time';
  return findObject(c.obis)?.attributes.find((a) => a.id === c.attribute)?.type ?? 'null-data';
}

/**
 * [AS-3.5, CO-6.4] One profile row as a structure, a cell per column: a time column's ms as a date-time,
 * a number in its column's type, null (not measured) or a number the type cannot hold as null-data.
 */
export function rowData(row: Row, columns: readonly CaptureObject[], offsetMin: number): Data {
  return {
    type: 'structure',
    items: columns.map((c, i) => {
      const v = row[i];
      if (v === null || v === undefined) return NULL_DATA;
      const type = columnType(c);
      if (type === 'time') return dateTimeData(v, offsetMin);
      return intData(type, v) ?? NULL_DATA;
    }),
  };
}

/** [CO-3.1] A register's scaler_unit: {integer scaler, enum unit}. */
export function scalerUnitData(scaler: number, unit: number): Data {
  return {
    type: 'structure',
    items: [
      { type: 'integer', value: scaler },
      { type: 'enum', value: unit },
    ],
  };
}
