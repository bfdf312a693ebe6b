// Durations as a scenario writes them, both ways: compound `18m45s` read (SC-1) and virtual times
// written back the same way in failures (SC-2).

import { describe, expect, it } from 'vitest';
import { durationMs } from '../../src/qa/scenario/schema.ts';
import { atMs, durationText, whenText } from '../../src/qa/scenario/when.ts';

describe('scenario durations and times', () => {
  it('SC-1: reads one or more parts, largest first', () => {
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('18m45s')).toBe(1_125_000);
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('1d2h3m4.5s')).toBe(93_784_500);
    expect(durationMs('250ms')).toBe(250);
    expect(durationMs(12)).toBe(12_000);
  });

  it('SC-2: writes them back as a scenario would, to the millisecond', () => {
    expect(durationText(0)).toBe('0s');
    expect(durationText(1_125_000)).toBe('18m45s');
    expect(durationText(450_001)).toBe('7m30.001s');
    expect(durationText(3_600_000)).toBe('1h');
    expect(durationText(93_784_500)).toBe('1d2h3m4.5s');
    expect(durationText(-5000)).toBe('-5s');
    for (const ms of [1, 999, 60_000, 86_400_001]) expect(durationMs(durationText(ms))).toBe(ms);
  });

  it('SC-1: at is an offset from the start or an instant; SC-2 says both', () => {
    const start = Date.parse('2026-01-05T00:00:00+05:30');
    expect(atMs('18m45s', start)).toBe(start + 1_125_000);
    expect(atMs(30, start)).toBe(start + 30_000);
    expect(atMs('2026-01-05T00:18:45+05:30', 0)).toBe(start + 1_125_000);
    expect(whenText(start + 1_125_000, start)).toBe('18m45s (2026-01-05T00:18:45.000+05:30)');
    expect(whenText(start, null)).toBe('2026-01-05T00:00:00.000+05:30');
  });
});
