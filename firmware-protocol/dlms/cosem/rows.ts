// Profile rows from the meter's samples, and back [CO-7]. A row is one value per capture object, in
// the profile's column order (objects-profiles.ts): the clock column holds the capture time in ms, the
// others the register's integer value (at its scaler) or null (null-data: not measured). Pure.

import type { Sample } from '../../mqtt/vocabulary.ts';
import { OBIS } from './obis.ts';
import { findObject } from './object-list.ts';
import { BLOCK_PERIOD_S } from './objects-profiles.ts';
import type { Obis } from './types.ts';
import { physical, toRegister } from './values.ts';

export type Row = (number | null)[];

/** [CO-7.6] India Standard Time, minutes east of UTC: blocks, days and months align to its wall time. */
export const IST_OFFSET_MIN = 330;

export interface RowOptions {
  /** [CO-7.8] Selective access by range: rows whose capture time lies in [from, to], both included (ms). */
  from: number;
  to: number;
  periodS?: number;
  offsetMin?: number;
  /** Cumulative apparent energy (VAh) at the first sample given [CO-6.7]. */
  vahAtStart?: number;
}

function reg(obis: Obis, x: number): number {
  const su = findObject(obis)?.scalerUnit;
  if (su === undefined) throw new TypeError(`${obis} is not a register [CO-3.1]`);
  return toRegister(x, su.scaler);
}

/** [CO-6.7] Cumulative VAh at each sample: apparent power (|active| where absent) held until the next. */
export function cumulativeVah(samples: readonly Sample[], start = 0): number[] {
  const out: number[] = [];
  let vah = start;
  for (let i = 0; i < samples.length; i++) {
    if (i > 0) {
      const p = samples[i - 1]!;
      vah +=
        ((p.apparent_power ?? Math.abs(p.active_power)) * Math.max(0, samples[i]!.ts - p.ts)) / 3_600_000;
    }
    out.push(vah);
  }
  return out;
}

/** The start of the interval of `lengthMs` holding `ts`, aligned to local wall time. */
function align(ts: number, lengthMs: number, offsetMin: number): number {
  const off = offsetMin * 60_000;
  return Math.floor((ts + off) / lengthMs) * lengthMs - off;
}

interface Group {
  start: number;
  end: number;
  /** Indexes into the samples, first and last inside [start, end). */
  first: number;
  last: number;
}

/** [CO-7.6] Samples grouped by the interval their ts falls in, [start, end); empty intervals left out. */
function groups(samples: readonly Sample[], startOf: (ts: number) => number, endOf: (s: number) => number) {
  const out: Group[] = [];
  samples.forEach((s, i) => {
    const start = startOf(s.ts);
    const g = out[out.length - 1];
    if (g !== undefined && g.start === start) g.last = i;
    else out.push({ start, end: endOf(start), first: i, last: i });
  });
  return out;
}

/**
 * [CO-7.3, CO-7.7] Block load rows: [clock = block end, average voltage, block Wh, block VAh, cumulative
 * Wh, balance]. The block [start, end) holds the samples with start ≤ ts < end, as the v2 history's
 * buckets do, so the cumulative Wh is the history endpoint's energy for that interval. Block energy is
 * the cumulative at the block's last sample less that at the last sample before the block (the block's
 * first sample where there is none). Give samples from before `from` to get the first block's energy.
 */
export function blockLoadRows(samples: readonly Sample[], o: RowOptions): Row[] {
  const len = (o.periodS ?? BLOCK_PERIOD_S) * 1000;
  const off = o.offsetMin ?? IST_OFFSET_MIN;
  const vah = cumulativeVah(samples, o.vahAtStart);
  const rows: Row[] = [];
  for (const g of groups(
    samples,
    (ts) => align(ts, len, off),
    (s) => s + len,
  )) {
    const before = g.first > 0 ? g.first - 1 : g.first;
    const inBlock = samples.slice(g.first, g.last + 1);
    const meanV = inBlock.reduce((sum, s) => sum + s.voltage, 0) / inBlock.length;
    const last = samples[g.last]!;
    const wh = reg(OBIS.energyKwh, last.energy * 1000) - reg(OBIS.energyKwh, samples[before]!.energy * 1000);
    if (g.end < o.from || g.end > o.to) continue;
    rows.push([
      g.end,
      reg(OBIS.averageVoltage, meanV),
      Math.max(0, wh),
      Math.max(0, Math.round(vah[g.last]!) - Math.round(vah[before]!)),
      reg(OBIS.energyKwh, last.energy * 1000),
      last.balance,
    ]);
  }
  return rows;
}

/** [CO-7.4] Daily load rows: [clock = the next local midnight, cumulative Wh, cumulative VAh]. */
export function dailyLoadRows(samples: readonly Sample[], o: RowOptions): Row[] {
  const off = o.offsetMin ?? IST_OFFSET_MIN;
  const day = 86_400_000;
  const vah = cumulativeVah(samples, o.vahAtStart);
  return groups(
    samples,
    (ts) => align(ts, day, off),
    (s) => s + day,
  )
    .filter((g) => g.end >= o.from && g.end <= o.to)
    .map((g) => [g.end, reg(OBIS.energyKwh, samples[g.last]!.energy * 1000), Math.round(vah[g.last]!)]);
}

/** The first instant of the local month after the one holding `ts`. */
function nextMonth(ts: number, offsetMin: number): number {
  const local = new Date(ts + offsetMin * 60_000);
  return Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + 1, 1) - offsetMin * 60_000;
}

function monthStart(ts: number, offsetMin: number): number {
  const local = new Date(ts + offsetMin * 60_000);
  return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1) - offsetMin * 60_000;
}

/**
 * [CO-7.5] Billing rows, one per closed local calendar month (billing at 00:00 on the 1st): [billing
 * date, average power factor (Wh / VAh over the month; 1 with no VAh), cumulative Wh, cumulative VAh,
 * power-on minutes]. The month still running is the last group: the caller keeps it out of the buffer
 * (only a billing date closes a month), and the billing registers read it (AS-3.8).
 */
export function billingRows(samples: readonly Sample[], o: RowOptions): Row[] {
  const off = o.offsetMin ?? IST_OFFSET_MIN;
  const vah = cumulativeVah(samples, o.vahAtStart);
  return groups(
    samples,
    (ts) => monthStart(ts, off),
    (s) => nextMonth(s, off),
  )
    .filter((g) => g.end >= o.from && g.end <= o.to)
    .map((g) => {
      const before = g.first > 0 ? g.first - 1 : g.first;
      const wh = (samples[g.last]!.energy - samples[before]!.energy) * 1000;
      const va = vah[g.last]! - vah[before]!;
      // [CO-7.5] A month with no apparent energy yet (a fresh meter, no load) drew no lagging current: unity.
      const pf = reg(OBIS.billingPowerFactor, va > 0 ? Math.min(1, wh / va) : 1);
      // [CO-7.5] Power-on minutes: the span the month's samples cover (a meter that reports is on).
      const on = Math.round((samples[g.last]!.ts - samples[before]!.ts) / 60_000);
      return [g.end, pf, reg(OBIS.energyKwh, samples[g.last]!.energy * 1000), Math.round(vah[g.last]!), on];
    });
}

/** The scaler and unit of each register column, as the meter's scaler profile states them. */
export type Scalers = ReadonlyMap<Obis, { scaler: number; unit: string }>;

/** Ours, for a meter read back that states none. */
export function ourScalers(): Scalers {
  const m = new Map<Obis, { scaler: number; unit: string }>();
  for (const obis of [OBIS.averageVoltage, OBIS.blockKwh, OBIS.blockKvah, OBIS.energyKwh]) {
    const su = findObject(obis)?.scalerUnit;
    if (su) m.set(obis, su);
  }
  return m;
}

/**
 * [CO-10.4] The bridge's way back from a block load row (our column order) to a contract Sample: at the
 * block's end less one second (the v2 history's own stamp for the interval, spec-decisions 14, so the
 * sample falls in the interval it closes); energy from the cumulative Wh, voltage the block's average,
 * active power the block's average (block Wh over the period), balance from the credit column.
 */
export function sampleFromBlockRow(
  row: Row,
  periodS: number,
  scalers: Scalers = ourScalers(),
): Sample | null {
  const [clock, v, wh, , cum, balance] = row;
  if (clock == null || v == null || wh == null || cum == null || balance == null) return null;
  const at = (obis: Obis, value: number) => {
    const su = scalers.get(obis);
    return su === undefined ? null : physical({ value, scaler: su.scaler, unit: 'count' });
  };
  const volts = at(OBIS.averageVoltage, v);
  const blockWh = at(OBIS.blockKwh, wh);
  const cumWh = at(OBIS.energyKwh, cum);
  if (volts === null || blockWh === null || cumWh === null) return null;
  return {
    ts: clock - 1000,
    energy: Number((cumWh / 1000).toFixed(3)),
    active_power: Number(((blockWh * 3600) / periodS).toFixed(1)),
    voltage: Number(volts.toFixed(2)),
    balance,
  };
}
