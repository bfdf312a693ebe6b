// [CL-9.3, CL-9.4] The block load profile read back into samples with their own timestamps (CO-10.4),
// each block pushed once: a cursor, the end of the newest block pushed, survives re-associations and
// restarts. A meter clock far from the bridge's is not trusted: its rows are moved onto the bridge's
// clock. Pure.

import type { Row } from '../../../firmware-protocol/dlms/client/values.ts';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import { type Scalers, sampleFromBlockRow } from '../../../firmware-protocol/dlms/cosem/rows.ts';
import type { Obis } from '../../../firmware-protocol/dlms/cosem/types.ts';
import type { Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';

/** [CL-9.4] A meter clock more than this far from the bridge's is "off". */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** [CL-9.3] With no cursor yet (the first run), history is read back this far. */
export const FIRST_BACKFILL_MS = 24 * 3_600_000;
/** [CL-9.3] The most rows taken from one read: a day of 15-minute blocks, twice over. */
export const MAX_ROWS_PER_READ = 192;

/** Our column order (CO-7.3): clock, average voltage, block Wh, block VAh, cumulative Wh, credit. */
const OURS: Obis[] = [
  OBIS.clock,
  OBIS.averageVoltage,
  OBIS.blockKwh,
  OBIS.blockKvah,
  OBIS.energyKwh,
  OBIS.credit,
];

export interface ProfilePlan {
  /** For each of our columns, its index in the meter's row, or -1 where the meter has none. */
  index: number[];
  clockColumn: number;
  periodS: number;
}

/** [CL-9.3] Where our columns are in the meter's: clock, average voltage, block and cumulative Wh needed. */
export function profilePlan(
  columns: readonly { obis: Obis; attribute: number }[],
  periodS: number,
): ProfilePlan | { error: string } {
  const index = OURS.map((o) => columns.findIndex((c) => c.obis === o && c.attribute === 2));
  const needed = [0, 1, 2, 4].filter((i) => index[i] === -1).map((i) => OURS[i]);
  if (needed.length > 0) return { error: `block load profile without ${needed.join(', ')} [CL-9.3]` };
  if (!Number.isInteger(periodS) || periodS < 60 || periodS > 86_400)
    return { error: `capture period ${periodS} s [CL-9.3]` };
  return { index, clockColumn: index[0]!, periodS };
}

/** [CL-9.4] The meter clock less the bridge's; `off` when beyond MAX_CLOCK_SKEW_MS. */
export function clockCheck(meterMs: number | null, bridgeMs: number): { offsetMs: number; off: boolean } {
  if (meterMs === null) return { offsetMs: 0, off: true };
  const offsetMs = meterMs - bridgeMs;
  return { offsetMs, off: Math.abs(offsetMs) > MAX_CLOCK_SKEW_MS };
}

export interface RowsContext {
  /** End (ms, bridge clock) of the newest block already pushed; null on the first run. */
  cursorMs: number | null;
  /** [CL-9.4] Subtracted from the meter's stamps when its clock is off; 0 when it is trusted. */
  shiftMs: number;
  nowMs: number;
  /** For rows without a credit column: the balance read live. */
  balance: number;
}

export interface RowsResult {
  samples: Sample[];
  cursorMs: number | null;
  /** Rows left out: already pushed, in the future, or unreadable. */
  skipped: number;
}

/**
 * [CL-9.3] Samples from the rows of one read, oldest first: only blocks that end after the cursor and
 * not after now (on the bridge's clock); the cursor moves to the newest one taken.
 */
export function samplesFromRows(
  rows: readonly Row[],
  plan: ProfilePlan,
  scalers: Scalers,
  ctx: RowsContext,
): RowsResult {
  let cursorMs = ctx.cursorMs;
  let skipped = 0;
  const ordered = rows
    .map((r) => plan.index.map((i, k) => (i === -1 ? (k === 5 ? ctx.balance : null) : (r[i] ?? null))))
    .filter((r) => r[0] !== null)
    .map((r) => [r[0]! - ctx.shiftMs, ...r.slice(1)])
    .sort((a, b) => a[0]! - b[0]!);
  skipped += rows.length - ordered.length;
  const samples: Sample[] = [];
  for (const row of ordered.slice(-MAX_ROWS_PER_READ)) {
    const end = row[0]!;
    if ((cursorMs !== null && end <= cursorMs) || end > ctx.nowMs) {
      skipped++;
      continue;
    }
    const sample = sampleFromBlockRow(row, plan.periodS, scalers);
    if (sample === null) {
      skipped++;
      continue;
    }
    samples.push(sample);
    cursorMs = end;
  }
  skipped += Math.max(0, ordered.length - MAX_ROWS_PER_READ);
  return { samples, cursorMs, skipped };
}

/** [CL-9.3] The range to read, on the meter's clock: from just after the cursor to now. */
export function rangeToRead(
  cursorMs: number | null,
  nowMs: number,
  offsetMs: number,
): { from: number; to: number } {
  const from = (cursorMs ?? nowMs - FIRST_BACKFILL_MS) + 1_000;
  return { from: from + offsetMs, to: nowMs + offsetMs };
}
