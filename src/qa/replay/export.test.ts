// [HX-6] The parts a long export is asked for in: at most 366 IST days each, end to end.

import { describe, expect, it } from 'vitest';
import { dayParts } from './export.ts';

describe('dayParts', () => {
  it('[HX-6] one part up to 366 days; longer spans in parts of 366, the last one shorter', () => {
    expect(dayParts('2026-01-05', '2026-01-05')).toEqual([['2026-01-05', '2026-01-05']]);
    expect(dayParts('2024-01-01', '2024-12-31')).toEqual([['2024-01-01', '2024-12-31']]);
    expect(dayParts('2024-01-01', '2025-01-01')).toEqual([
      ['2024-01-01', '2024-12-31'],
      ['2025-01-01', '2025-01-01'],
    ]);
    expect(dayParts('2023-03-01', '2025-03-05')).toEqual([
      ['2023-03-01', '2024-02-29'],
      ['2024-03-01', '2025-03-01'],
      ['2025-03-02', '2025-03-05'],
    ]);
  });
});
