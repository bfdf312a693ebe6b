// Profile rows from samples and back [CO-7, CO-10.4].
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../mqtt/vocabulary.ts';
import { billingRows, blockLoadRows, cumulativeVah, dailyLoadRows, sampleFromBlockRow } from './rows.ts';

// 2026-01-01 00:00 IST is 2025-12-31 18:30 UTC.
const MIDNIGHT_IST = Date.UTC(2025, 11, 31, 18, 30);
const MIN = 60_000;

/** One sample a minute at a constant 1,200 W and 1,500 VA: 20 Wh and 25 VAh a minute. */
function minutes(n: number, start = MIDNIGHT_IST): Sample[] {
  return Array.from({ length: n }, (_, i) => ({
    ts: start + i * MIN,
    energy: Number((100 + i * 0.02).toFixed(3)),
    active_power: 1200,
    voltage: i % 2 === 0 ? 230 : 232,
    apparent_power: 1500,
    balance: 10_000 - i,
  }));
}

describe('block load rows [CO-7.3]', () => {
  const samples = minutes(31); // 00:00 … 00:30
  const rows = blockLoadRows(samples, { from: 0, to: Number.MAX_SAFE_INTEGER });

  it('[CO-7.6, CO-7.7] one row per 15-minute IST block with samples, stamped at the block end', () => {
    expect(rows.map((r) => r[0])).toEqual([
      MIDNIGHT_IST + 15 * MIN,
      MIDNIGHT_IST + 30 * MIN,
      MIDNIGHT_IST + 45 * MIN,
    ]);
  });

  it("[CO-7.3] average voltage, block Wh and VAh, cumulative Wh and balance of the block's last sample", () => {
    // 00:00..00:14: energies 100.000..100.280; the first block has no sample before it.
    expect(rows[0]).toEqual([MIDNIGHT_IST + 15 * MIN, 23093, 280, 350, 100_280, 9_986]);
    // 00:15..00:29: from 100.280 to 100.580.
    expect(rows[1]).toEqual([MIDNIGHT_IST + 30 * MIN, 23107, 300, 375, 100_580, 9_971]);
    // 00:30 alone: one minute since 00:29.
    expect(rows[2]).toEqual([MIDNIGHT_IST + 45 * MIN, 23000, 20, 25, 100_600, 9_970]);
  });

  it('[CO-7.8] selective access by range keeps rows whose clock is within [from, to], both ends', () => {
    const sel = blockLoadRows(samples, { from: MIDNIGHT_IST + 30 * MIN, to: MIDNIGHT_IST + 45 * MIN });
    expect(sel.map((r) => r[0])).toEqual([MIDNIGHT_IST + 30 * MIN, MIDNIGHT_IST + 45 * MIN]);
    // The block energy still counts from the sample before the range.
    expect(sel[0]![2]).toBe(300);
  });

  it('[CO-7.6] a 30-minute capture period aligns to IST half hours', () => {
    const r = blockLoadRows(samples, { from: 0, to: Number.MAX_SAFE_INTEGER, periodS: 1800 });
    expect(r.map((x) => x[0])).toEqual([MIDNIGHT_IST + 30 * MIN, MIDNIGHT_IST + 60 * MIN]);
  });

  it('[CO-10.4] a row reads back to a sample inside the interval it closes', () => {
    expect(sampleFromBlockRow(rows[1]!, 900)).toEqual({
      ts: MIDNIGHT_IST + 30 * MIN - 1000,
      energy: 100.58,
      active_power: 1200, // 300 Wh in 15 minutes
      voltage: 231.07,
      balance: 9_971,
    });
    expect(sampleFromBlockRow([1, null, 0, 0, 0, 0], 900)).toBeNull();
  });
});

describe('daily load and billing rows [CO-7.4, CO-7.5]', () => {
  it('[CO-6.7] cumulative VAh holds apparent power until the next sample', () => {
    expect(cumulativeVah(minutes(3), 10)).toEqual([10, 35, 60]);
  });

  it("[CO-7.4] a day closes at the next IST midnight with the day's last registers", () => {
    const s = [...minutes(2, MIDNIGHT_IST - 2 * MIN), ...minutes(1, MIDNIGHT_IST + 60 * MIN)];
    const rows = dailyLoadRows(s, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(rows).toEqual(
      [
        [MIDNIGHT_IST, 100_020, 25],
        [MIDNIGHT_IST + 86_400_000, 100_000, 25 + (1500 * 61) / 60 + 0],
      ].map((r) => r.map((x) => Math.round(x))),
    );
  });

  it('[CO-7.5] a month closes at 00:00 IST on the 1st: average PF is Wh over VAh', () => {
    const s = [...minutes(2, MIDNIGHT_IST - 2 * MIN), ...minutes(2)];
    const rows = billingRows(s, { from: 0, to: Number.MAX_SAFE_INTEGER });
    // Power-on: the first month's two samples span one minute.
    expect(rows[0]).toEqual([MIDNIGHT_IST, 800, 100_020, 25, 1]);
    expect(rows[1]![0]).toBe(Date.UTC(2026, 1, 1) - 330 * MIN);
  });
});
