// A meter's history as CSV (HX-1..HX-4): one row per interval with data, one column per property the
// meter measures, each value the one endpoint 12 answers for that property, interval and time (read
// through the same code, ../api/v2/history-read.ts), stamped as endpoint 12 stamps it. Written a block
// of days at a time, so a year at 15 minutes never sits in memory whole.

import { dayRange, historyStamper, type Interval, readHistory } from '../api/v2/history-read.ts';
import type { PropertyInfo } from '../api/v2/views.ts';
import { type HistoryPoint, SAMPLE_PROPERTIES, type SampleProperty, type Store } from '../store/types.ts';
import { DAY_MS } from '../time/ist.ts';

/** A column of the file: a stored property and the unit endpoint 12 gives it. */
export interface CsvColumn {
  property: SampleProperty;
  unit: string;
}

/** [HX-3] How many IST days one block reads: ~3,000 rows at 15 minutes. */
export const BLOCK_DAYS = 31;

/** The meter's properties that history holds, in the meter's order (energy first). */
export function csvColumns(properties: readonly PropertyInfo[]): CsvColumn[] {
  return properties
    .filter((p) => (SAMPLE_PROPERTIES as readonly string[]).includes(p.property_id))
    .map((p) => ({ property: p.property_id as SampleProperty, unit: p.unit }));
}

/**
 * A cell as RFC 4180 writes it, quoted when it holds a separator, quote or line break; a text cell a
 * spreadsheet would run as a formula (= + - @ first) is quoted and led by an apostrophe.
 */
export function csvCell(text: string): string {
  const formula = /^[=+\-@\t\r]/.test(text);
  if (!formula && !/[",\r\n]/.test(text)) return text;
  return `"${formula ? "'" : ''}${text.replaceAll('"', '""')}"`;
}

/** [HX-2] The header: the time column, then each property with its unit (`energy (kWh)`). */
export function csvHeader(columns: readonly CsvColumn[]): string {
  const names = columns.map((c) => csvCell(c.unit ? `${c.property} (${c.unit})` : c.property));
  return `${['timestamp (IST)', ...names].join(',')}\r\n`;
}

/**
 * [HX-1] Rows from each column's points (ascending by bucket, as the store answers): one row per
 * bucket that any column has, a column without a value there left empty. A value is written as JSON
 * writes it (the shortest decimal that reads back as the same number), so the file says what the API says.
 */
export function csvRows(
  points: readonly (readonly HistoryPoint[])[],
  stamp: (p: HistoryPoint) => string,
): string {
  const at = points.map(() => 0);
  let out = '';
  for (;;) {
    let bucket = Number.POSITIVE_INFINITY;
    let first: HistoryPoint | undefined;
    for (let c = 0; c < points.length; c++) {
      const p = points[c]![at[c]!];
      if (p !== undefined && p.bucketStart < bucket) {
        bucket = p.bucketStart;
        first = p;
      }
    }
    if (first === undefined) return out;
    out += stamp(first);
    for (let c = 0; c < points.length; c++) {
      const p = points[c]![at[c]!];
      if (p?.bucketStart === bucket) {
        out += `,${String(p.value)}`;
        at[c]!++;
      } else out += ',';
    }
    out += '\r\n';
  }
}

export interface CsvRequest {
  devicePk: number;
  columns: readonly CsvColumn[];
  /** IST days, YYYY-MM-DD, validated (from ≤ to, at most 366 days). */
  from: string;
  to: string;
  interval: Interval;
}

/**
 * [HX-3] The file, a block of BLOCK_DAYS days at a time: the header, then each block's rows. Blocks
 * start at IST midnight, where every interval's bucket starts too, so a block's values are the ones a
 * single request over the whole range gives.
 */
export async function* historyCsv(store: Pick<Store, 'history'>, req: CsvRequest): AsyncGenerator<string> {
  yield csvHeader(req.columns);
  const [fromTs, toTs] = dayRange(req.from, req.to);
  const stamp = historyStamper(req.interval);
  for (let start = fromTs; start < toTs; start += BLOCK_DAYS * DAY_MS) {
    const range = [start, Math.min(start + BLOCK_DAYS * DAY_MS, toTs)] as const;
    const points = await Promise.all(
      req.columns.map((c) => readHistory(store, req.devicePk, c.property, range, req.interval)),
    );
    const rows = csvRows(points, stamp);
    if (rows !== '') yield rows;
  }
}

/** [HX-2] The file's name: the device, its range and interval, in characters any file system takes. */
export function csvFileName(deviceId: string, from: string, to: string, interval: Interval): string {
  return `${deviceId.replace(/[^A-Za-z0-9_.-]/g, '_')}_${from}_${to}_${interval}.csv`;
}
