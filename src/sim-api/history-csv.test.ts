// The CSV's pure parts (HX-1, HX-2): cells, header, and rows merged from each column's points.

import { describe, expect, it } from 'vitest';
import type { HistoryPoint } from '../store/types.ts';
import { csvCell, csvColumns, csvFileName, csvHeader, csvRows } from './history-csv.ts';

const pt = (bucketStart: number, value: number): HistoryPoint => ({ bucketStart, ts: bucketStart, value });
const stamp = (p: HistoryPoint) => `t${p.bucketStart}`;

describe('history CSV', () => {
  it.each([
    ['energy (kWh)', 'energy (kWh)'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=cmd()', `"'=cmd()"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['-1+1', `"'-1+1"`],
  ])('[HX-2] a cell %j is written %j (RFC 4180; no formula for a spreadsheet)', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it('[HX-2] the header names each unit; a property without one stands alone', () => {
    expect(
      csvHeader([
        { property: 'energy', unit: 'kWh' },
        { property: 'power_factor', unit: '' },
      ]),
    ).toBe('timestamp (IST),energy (kWh),power_factor\r\n');
  });

  it('[HX-1] columns are the stored properties in the meter’s order; others are left out', () => {
    expect(
      csvColumns([
        { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
        { property_id: 'frequency', context_type: 'instantaneous', unit: 'Hz' },
        { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
      ]),
    ).toEqual([
      { property: 'energy', unit: 'kWh' },
      { property: 'voltage', unit: 'V' },
    ]);
  });

  it('[HX-1] one row per bucket any column has, in order; a missing value is an empty cell', () => {
    const energy = [pt(1, 0.1), pt(2, 0.2), pt(4, 0.30000000000000004)];
    const power = [pt(2, 5), pt(3, -7.5)];
    expect(csvRows([energy, power], stamp)).toBe(
      't1,0.1,\r\nt2,0.2,5\r\nt3,,-7.5\r\nt4,0.30000000000000004,\r\n',
    );
    expect(csvRows([[], []], stamp)).toBe('');
  });

  it('[HX-2] the file name keeps only characters every file system takes', () => {
    expect(csvFileName('MTR-A101', '2026-01-01', '2026-01-31', '15m')).toBe(
      'MTR-A101_2026-01-01_2026-01-31_15m.csv',
    );
    expect(csvFileName('a/b"c', '2026-01-01', '2026-01-01', '1d')).toBe('a_b_c_2026-01-01_2026-01-01_1d.csv');
  });
});
