// Profile generic attributes from the meter view [AS-4]: the buffer (instantaneous, scaler and name
// plate profiles one row; block load, daily load and billing from the meter's own samples), with
// selective access by range [CO-7.8]; capture objects, period, sort method, entries. Pure.

import { type AccessSelection, type GetDataResult, rangeFromAccess } from '../apdu/cosem.ts';
import type { Data } from '../apdu/data.ts';
import { dateTimeToInstant, decodeDateTime } from '../apdu/datetime.ts';
import { DAR } from '../apdu/errors.ts';
import { instantaneousRow, scalerRow } from '../cosem/instant.ts';
import { OBIS } from '../cosem/obis.ts';
import { columnsOf, findObject } from '../cosem/object-list.ts';
import { billingRows, blockLoadRows, dailyLoadRows, type Row } from '../cosem/rows.ts';
import type { CaptureObject, CosemObject } from '../cosem/types.ts';
import { kindOf, METER_TYPE_1P2W, nameplateValues } from '../cosem/values.ts';
import type { ReadContext } from './attributes.ts';
import { captureData, NULL_DATA, rowData, scalerUnitData, visible } from './encode.ts';

const ok = (data: Data): GetDataResult => ({ kind: 'data', data });
const refused = (result: number): GetDataResult => ({ kind: 'error', result });

/** Rows whose time lies in [from, to] or, by entry, rows first..last (1-based, oldest first); columns picked. */
type Range = { from: number; to: number; columns: number[]; entries?: { first: number; last: number } };
const ALL: Range = { from: -Infinity, to: Infinity, columns: [] };

/** [AS-4.1] Attribute `id` (2 and up) of a profile generic, with the access selection of the GET. */
export function readProfile(
  o: CosemObject,
  id: number,
  access: AccessSelection | undefined,
  c: ReadContext,
): GetDataResult {
  const capture = o.capture!;
  // [CO-6.4] The columns this meter has: a `basic` meter's profiles capture no current.
  const columns = columnsOf(o, kindOf(c.view.snapshot.info));
  if (access !== undefined && id !== 2) return refused(DAR.scopeOfAccessViolated); // [AS-4.3]
  switch (id) {
    case 2: {
      const range = access === undefined ? ALL : parseRange(access, columns, c.config.offsetMin);
      if (typeof range === 'number') return refused(range);
      return ok(bufferData(o, range, c));
    }
    case 3:
      return ok({ type: 'array', items: columns.map(captureData) });
    case 4:
      return ok({ type: 'double-long-unsigned', value: capture.periodS });
    case 5: // [CO-4.2] FIFO
      return ok({ type: 'enum', value: 1 });
    case 6: // no sort object: the rows are in capture order
      return ok(captureData({ classId: 0, obis: '0.0.0.0.0.0', attribute: 0, dataIndex: 0 }));
    case 7:
      return ok({ type: 'double-long-unsigned', value: rows(o, ALL, c).length });
    default:
      return ok({ type: 'double-long-unsigned', value: profileEntries(o, c) });
  }
}

/** The profiles whose rows come from the meter's samples, newest period first. */
const HISTORY_PROFILES = [OBIS.blockLoadProfile, OBIS.dailyLoadProfile, OBIS.billingProfile];

/**
 * [AS-3.8] A register only a load or billing profile captures: the cell of the newest row that captures
 * it, the interval still running included (a billing-period register runs until the billing date captures
 * it), or null with no row at all.
 */
export function lastCaptured(obis: string, c: ReadContext): number | null {
  for (const p of HISTORY_PROFILES) {
    const o = findObject(p);
    const i = o?.capture?.objects.findIndex((col) => col.obis === obis && col.attribute === 2) ?? -1;
    if (o === undefined || i < 0) continue;
    const all = rows(o, ALL, c, true);
    const v = all[all.length - 1]?.[i];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** [AS-4.4] How many rows a profile can hold: one for a snapshot profile; else what the history spans. */
function profileEntries(o: CosemObject, c: ReadContext): number {
  const period = o.capture!.periodS;
  if (o.obis === OBIS.billingProfile) return 12;
  if (period === 0) return 1;
  const sampleS = telemetrySeconds(c);
  return Math.max(1, Math.ceil((c.view.historyLimit * sampleS) / period));
}

function telemetrySeconds(c: ReadContext): number {
  const h = c.view.history;
  if (h.length < 2) return 60;
  return Math.max(1, (h[h.length - 1]!.ts - h[h.length - 2]!.ts) / 1000);
}

/**
 * [AS-4.2, CO-7.8] A range descriptor on the profile's time column (the clock, or the billing date of the
 * billing profile) with date-time bounds; its selected values a subset of the columns. Another selector
 * is scope-of-access-violated; a descriptor of the wrong shape or bounds that are no instant,
 * type-unmatched; a selected value that is not a column, scope-of-access-violated.
 */
function parseRange(
  a: AccessSelection,
  columns: readonly CaptureObject[],
  offsetMin: number,
): Range | number {
  if (a.selector === 2) return parseEntries(a, columns.length);
  if (a.selector !== 1) return DAR.scopeOfAccessViolated;
  const rd = rangeFromAccess(a);
  if (rd === null) return DAR.typeUnmatched;
  const time = columns[0]!;
  const r = rd.restrictingObject;
  if (r.logicalName !== time.obis || r.classId !== time.classId || r.attributeIndex !== time.attribute)
    return DAR.scopeOfAccessViolated;
  const from = instant(rd.from, offsetMin);
  const to = instant(rd.to, offsetMin);
  if (from === null || to === null) return DAR.typeUnmatched;
  const picked: number[] = [];
  for (const s of rd.selectedValues) {
    const i = columns.findIndex(
      (col) => col.obis === s.logicalName && col.classId === s.classId && col.attribute === s.attributeIndex,
    );
    if (i < 0) return DAR.scopeOfAccessViolated;
    picked.push(i);
  }
  return { from, to, columns: picked };
}

/**
 * [AS-4.5] Selective access by entry (selector 2): {from_entry, to_entry, from_selected_value,
 * to_selected_value}, entries 1-based from the oldest row kept, columns 1-based; a to of 0 is "the last".
 * A from of 0 or after its to, or a column past the profile's, is scope-of-access-violated; another
 * shape, type-unmatched.
 */
function parseEntries(a: AccessSelection, width: number): Range | number {
  const p = a.parameters;
  if (p.type !== 'structure' || p.items.length !== 4) return DAR.typeUnmatched;
  const [fe, te, fv, tv] = p.items.map((d) =>
    d.type === 'double-long-unsigned' || d.type === 'long-unsigned' || d.type === 'unsigned' ? d.value : null,
  );
  if (fe == null || te == null || fv == null || tv == null) return DAR.typeUnmatched;
  const last = te === 0 ? Number.POSITIVE_INFINITY : te;
  const lastColumn = tv === 0 ? width : tv;
  if (fe < 1 || fe > last || fv < 1 || fv > lastColumn || lastColumn > width)
    return DAR.scopeOfAccessViolated;
  const all = fv === 1 && lastColumn === width;
  const columns = all ? [] : Array.from({ length: lastColumn - fv + 1 }, (_, i) => fv - 1 + i);
  return {
    from: Number.NEGATIVE_INFINITY,
    to: Number.POSITIVE_INFINITY,
    columns,
    entries: { first: fe, last },
  };
}

function instant(d: Data, offsetMin: number): number | null {
  if (d.type === 'date-time') return dateTimeToInstant(d.value, offsetMin);
  if (d.type !== 'octet-string') return null;
  const dt = decodeDateTime(d.value);
  return dt.ok ? dateTimeToInstant(dt.value, offsetMin) : null;
}

/**
 * The rows of a profile within the range, as numbers (cosem/rows.ts). [AS-4.6, AS-4.7] The block load,
 * daily load and billing buffers hold closed intervals only: a row's clock is its interval's end, and it
 * is a row once that end has come (a month is billed at its end; a block or a day is captured at its
 * end), so a fresh meter's billing buffer is empty, as a real meter's before its first billing date.
 * `running` adds the interval still running, for the registers only a profile captures (AS-3.8).
 */
function rows(o: CosemObject, range: Range, c: ReadContext, running = false): Row[] {
  const v = c.view;
  const to = running ? range.to : Math.min(range.to, v.now);
  const opts = { from: range.from, to, offsetMin: c.config.offsetMin, vahAtStart: v.vahAtStart };
  switch (o.obis) {
    case OBIS.blockLoadProfile:
      return blockLoadRows(v.history, { ...opts, periodS: o.capture!.periodS });
    case OBIS.dailyLoadProfile:
      return dailyLoadRows(v.history, opts);
    case OBIS.billingProfile:
      return billingRows(v.history, opts);
    case OBIS.instantaneousProfile: {
      const row = instantaneousRow(v.snapshot);
      return row[0]! >= range.from && row[0]! <= range.to ? [row] : [];
    }
    default:
      return [[]]; // scaler and name plate profiles: one row, built in bufferData
  }
}

/** [AS-4.1] The buffer: an array of structures, a cell per (selected) column. */
function bufferData(o: CosemObject, range: Range, c: ReadContext): Data {
  const meter = kindOf(c.view.snapshot.info);
  const columns = columnsOf(o, meter);
  const pick = (cells: Data[]): Data => ({
    type: 'structure',
    items: range.columns.length === 0 ? cells : range.columns.map((i) => cells[i] ?? NULL_DATA),
  });
  // [AS-4.5] By entry, every profile alike: the one-row profiles too (entry 2 of one row is no row).
  const byEntry = <T>(all: T[]): T[] =>
    range.entries ? all.slice(range.entries.first - 1, range.entries.last) : all;
  const scalers = scalerRow(o.obis, meter);
  if (scalers !== null) {
    return { type: 'array', items: byEntry([pick(scalers.map((s) => scalerUnitData(s.scaler, s.unit)))]) };
  }
  if (o.obis === OBIS.namePlate) {
    const p = nameplateValues(c.view.snapshot.info);
    const cells: Data[] = [
      visible(p.serialNumber),
      visible(p.manufacturer),
      visible(p.firmwareVersion),
      { type: 'unsigned', value: METER_TYPE_1P2W },
    ];
    return { type: 'array', items: byEntry([pick(cells)]) };
  }
  const items = byEntry(rows(o, range, c)).map((row) => {
    const whole = rowData(row, columns, c.config.offsetMin);
    return whole.type === 'structure' ? pick(whole.items) : whole;
  });
  return { type: 'array', items };
}
