// fastForward: the result of step(state, { type: 'advance' }, toTs), bit for bit, fast enough to backfill
// a year of history for a fleet. The hot loop runs per load segment (a minute for households) in plain
// Number arithmetic on integer mW·ms, exact while below 2^53, and folds into the bigint registers only at
// telemetry boundaries, at a cut-off, or when the running sum nears 2^52. Billing is linear, so folding
// in pieces charges exactly what the reference integrator charges segment by segment.

import { billingRate } from './billing.ts';
import { MAX_LOAD_WATTS, nextLoadChange, powerMw } from './profiles.ts';
import { readingsAt } from './readings.ts';
import { relayClosed } from './relay.ts';
import { step } from './step.ts';
import type { MeterState, Sample } from './types.ts';

/** The running sum stays <= FOLD_LIMIT, one increment stays <= MAX_LOAD_WATTS·1000·CHUNK_MS < 2^52. */
const FOLD_LIMIT = 2 ** 52;
const FOLD_LIMIT_BIG = BigInt(FOLD_LIMIT);
const CHUNK_MS = 3_600_000;
const MAX_INCREMENT = MAX_LOAD_WATTS * 1000 * CHUNK_MS;
if (FOLD_LIMIT + MAX_INCREMENT > Number.MAX_SAFE_INTEGER) throw new Error('advance.ts: unsafe chunk size');

export interface FastForwardResult {
  state: MeterState;
  /** Every telemetry sample that fell due, in order. Cut-off state reports are not returned. */
  samples: Sample[];
}

export function fastForward(state: MeterState, toTs: number): FastForwardResult {
  // Faults and prepaid policies split the run at their edges: the reference integrator does that, and
  // such meters are rare enough not to need a fast path (the result is the same).
  if (state.faults.length !== 0 || state.prepaidPolicy !== null) return viaStep(state, toTs);
  const s: MeterState = { ...state };
  const to = Math.max(Math.floor(toTs), s.lastTs);
  const samples: Sample[] = [];
  while (s.lastTs < to) {
    runTo(s, Math.min(to, s.nextTelemetryTs));
    if (s.lastTs === s.nextTelemetryTs) {
      samples.push(readingsAt(s, s.lastTs));
      s.nextTelemetryTs += s.telemetryPeriodMs;
    }
  }
  return { state: s, samples };
}

function viaStep(state: MeterState, toTs: number): FastForwardResult {
  const r = step(state, { type: 'advance' }, toTs);
  return { state: r.state, samples: r.effects.flatMap((e) => (e.type === 'telemetry' ? [e.sample] : [])) };
}

/** floor(a / b) for non-negative safe integers, corrected for the rounding of a / b. */
function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

function addEnergy(s: MeterState, mwms: number, rate: bigint): void {
  const e = BigInt(mwms);
  const charge = rate * e;
  s.energy += e;
  s.balance -= charge;
  s.charged += charge; // [M-15]
}

/** Integrates [s.lastTs, end) with nothing but the load changing; stops early at a prepaid cut-off. */
function runTo(s: MeterState, end: number): void {
  if (!relayClosed(s, s.lastTs)) {
    s.lastTs = end;
    return;
  }
  const load = s.load;
  const rate = billingRate(s);
  const prepaid = s.mode === 'prepaid' && rate > 0n;
  let t = s.lastTs;
  for (;;) {
    // The registers hold everything up to t. How much may the run add before it must fold or cut off?
    const allowed = prepaid ? s.balance / rate : FOLD_LIMIT_BIG; // tariff × E <= balance  ⇔  E <= this
    const budgetIsBalance = prepaid && allowed <= FOLD_LIMIT_BIG;
    const budget = budgetIsBalance ? Number(allowed) : FOLD_LIMIT;
    let acc = 0; // mW·ms since t0
    let p = 0;
    while (t < end) {
      const segEnd = Math.min(end, nextLoadChange(load, t), t + CHUNK_MS);
      p = powerMw(load, t);
      const inc = p * (segEnd - t);
      if (acc + inc > budget) break;
      acc += inc;
      t = segEnd;
    }
    if (t >= end) {
      addEnergy(s, acc, rate);
      s.lastTs = end;
      return;
    }
    if (budgetIsBalance) {
      // [M-6] The first ms at which the balance is below zero; the relay opens there.
      const dt = floorDiv(budget - acc, p) + 1;
      addEnergy(s, acc + p * dt, rate);
      s.lastTs = t + dt;
      return;
    }
    addEnergy(s, acc, rate); // near 2^52: fold and go on
  }
}
