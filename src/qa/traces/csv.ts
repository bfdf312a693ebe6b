// CSV traces: a header row naming the columns, one sample (and/or events) per row, `#` lines before
// the header as `key: value` settings (zone, mode, balance, …). Column names are the MQTT contract's
// sample fields (unit-suffixed spellings accepted); a column this reader does not know is an error.
// The UCI household data set is one more column profile (uci.ts).

import { MWMS_PER_KWH } from '../../../simulator/meter/types.ts';
import { assemble, type RawEntry, rawSample } from './assemble.ts';
import { scaleDecimal, scaleToInt } from './decimal.ts';
import { eventFromText } from './events.ts';
import { META_KEYS, readMeta } from './meta.ts';
import { parseTimestamp } from './time.ts';
import { type Trace, TraceError } from './types.ts';

type NumberField = 'voltage' | 'current' | 'power_factor' | 'apparent_power' | 'reactive_power';

/** What one column means: the timestamp, energy or power (scaled exactly), a reading, or events. */
export type Column =
  | { kind: 'ts' }
  | { kind: 'energy'; perUnit: bigint }
  /** Active power; `shift`: mW = value × 10^shift (3 for W, 6 for kW). */
  | { kind: 'power'; shift: number }
  | { kind: 'number'; field: NumberField; scale: number }
  | { kind: 'event' };

export const CSV_COLUMNS: Record<string, Column> = {
  ts: { kind: 'ts' },
  energy: { kind: 'energy', perUnit: MWMS_PER_KWH },
  energy_kwh: { kind: 'energy', perUnit: MWMS_PER_KWH },
  active_power: { kind: 'power', shift: 3 },
  active_power_w: { kind: 'power', shift: 3 },
  voltage: { kind: 'number', field: 'voltage', scale: 1 },
  voltage_v: { kind: 'number', field: 'voltage', scale: 1 },
  current: { kind: 'number', field: 'current', scale: 1 },
  current_a: { kind: 'number', field: 'current', scale: 1 },
  power_factor: { kind: 'number', field: 'power_factor', scale: 1 },
  apparent_power: { kind: 'number', field: 'apparent_power', scale: 1 },
  apparent_power_va: { kind: 'number', field: 'apparent_power', scale: 1 },
  reactive_power: { kind: 'number', field: 'reactive_power', scale: 1 },
  reactive_power_var: { kind: 'number', field: 'reactive_power', scale: 1 },
  event: { kind: 'event' },
};

export interface CsvProfile {
  format: Trace['format'];
  columns: Record<string, Column>;
  /** A cell holding this means "not measured": the row is skipped as a gap. */
  missing?: string;
}

export const CSV_PROFILE: CsvProfile = { format: 'csv', columns: CSV_COLUMNS };

export function readCsvTrace(file: string, text: string, profile: CsvProfile = CSV_PROFILE): Trace {
  const lines = text.split(/\r?\n/);
  const settings: Record<string, string> = {};
  let i = 0;
  for (; i < lines.length && (lines[i]!.startsWith('#') || lines[i]!.trim() === ''); i++) {
    const m = /^#\s*([a-z_]+)\s*:\s*(.*)$/.exec(lines[i]!);
    if (m && (META_KEYS as readonly string[]).includes(m[1]!)) settings[m[1]!] = m[2]!;
  }
  const headerLine = i + 1;
  const header = (lines[i] ?? '').split(',').map((h) => h.trim());
  const columns = header.map((name, c) => {
    const col = profile.columns[name];
    if (!col)
      throw new TraceError(
        file,
        headerLine,
        name || `column ${c + 1}`,
        `unknown column; known columns are ${Object.keys(profile.columns).join(', ')}`,
      );
    return col;
  });
  const tsCol = columns.findIndex((c) => c.kind === 'ts');
  if (tsCol < 0) throw new TraceError(file, headerLine, null, 'no timestamp column (ts)');
  const meta = readMeta(settings, (field, msg) => new TraceError(file, null, `# ${field}`, msg));

  const raws: RawEntry[] = [];
  let skipped = 0;
  for (let n = i + 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split(',');
    const lineNo = n + 1;
    if (cells.length !== columns.length)
      throw new TraceError(file, lineNo, null, `${cells.length} cells, the header has ${columns.length}`);
    if (profile.missing !== undefined && cells.includes(profile.missing)) {
      skipped++;
      continue;
    }
    const ts = parseTimestamp(cells[tsCol]!.trim(), meta.zone);
    if (typeof ts === 'string') throw new TraceError(file, lineNo, header[tsCol]!, ts);
    const sample = rawSample(lineNo, ts);
    let hasReading = false;
    let events: RawEntry[] | null = null;
    for (let c = 0; c < columns.length; c++) {
      const cell = cells[c]!.trim();
      const col = columns[c]!;
      if (cell === '' || col.kind === 'ts') continue;
      switch (col.kind) {
        case 'energy': {
          const v = scaleDecimal(cell, col.perUnit);
          if (v === null || v < 0n)
            throw cellError(file, lineNo, header[c]!, `${JSON.stringify(cell)} is not a number >= 0`);
          sample.register = v;
          hasReading = true;
          break;
        }
        case 'power': {
          const v = scaleToInt(cell, col.shift);
          if (v === null)
            throw cellError(file, lineNo, header[c]!, `${JSON.stringify(cell)} is not a number`);
          sample.powerMw = v;
          hasReading = true;
          break;
        }
        case 'number': {
          const v = Number(cell);
          if (!Number.isFinite(v))
            throw cellError(file, lineNo, header[c]!, `${JSON.stringify(cell)} is not a number`);
          sample.readings[col.field] = col.scale === 1 ? v : Number((v * col.scale).toPrecision(12));
          hasReading = true;
          break;
        }
        case 'event':
          events = [];
          for (const token of cell.split(';')) {
            const event = eventFromText(token);
            if (typeof event === 'string') throw cellError(file, lineNo, header[c]!, event);
            events.push({ kind: 'event', line: lineNo, ts, event });
          }
          break;
      }
    }
    if (hasReading) raws.push(sample);
    if (events) for (const e of events) raws.push(e);
  }
  return assemble(file, profile.format, meta, raws, skipped);
}

function cellError(file: string, line: number, column: string, msg: string): TraceError {
  return new TraceError(file, line, column, msg);
}
