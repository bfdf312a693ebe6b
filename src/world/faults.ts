// Faults of a virtual meter (issue 12 §1), as the /sim/v1 routes use them: add one from a POST body,
// list, clear. The meter itself acts on them (simulator/meter/faults, simulator/virtual-meter.ts);
// here are the checks a schema cannot make and the fault's public view. Pure but for the meter.

import { rolloverProblem } from '../../simulator/meter/faults/register.ts';
import type { Fault } from '../../simulator/meter/faults/types.ts';
import { hash32, hashString } from '../../simulator/meter/rng.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import { toIstIso } from '../time/ist.ts';
import type { FaultBody } from './fault-schemas.ts';

/** Faults a meter may hold at once (active and scheduled): a bound on what one request can pile up. */
export const MAX_FAULTS_PER_METER = 32;
/** A start_at this little in the past is taken as now: the clock moved while the request travelled. */
export const START_AT_GRACE_MS = 1000;

export type FaultProblem =
  | { kind: 'invalid'; items: { loc: string[]; msg: string }[] }
  | { kind: 'conflict'; message: string };

export type FaultOutcome = { ok: true; fault: Fault } | { ok: false; problem: FaultProblem };

const invalid = (field: string, msg: string): FaultOutcome => ({
  ok: false,
  problem: { kind: 'invalid', items: [{ loc: ['body', field], msg }] },
});

/** The default seed of a fault: from the meter's seed and the fault's id (spec-decisions 95). */
export function defaultFaultSeed(meterSeed: number, faultId: string): number {
  return hash32(meterSeed, hashString(faultId), 12) & 0x7fff_ffff;
}

/** The fault a valid body makes on `state` at virtual `now`, or why it cannot be (nothing applied). */
export function faultFromBody(state: MeterState, body: FaultBody, now: number): FaultOutcome {
  const { kind, start_at, duration_s, seed, ...params } = body;
  let from = now;
  if (start_at !== undefined) {
    const at = Date.parse(start_at);
    if (at < now - START_AT_GRACE_MS)
      return invalid('start_at', `must not be in the past (virtual now is ${toIstIso(now)})`);
    from = Math.max(at, now);
  }
  const until = duration_s === undefined ? null : from + Math.round(duration_s * 1000);
  if (until !== null && until <= from) return invalid('duration_s', 'must be at least 1 ms');
  if (kind === 'register_reset' && duration_s !== undefined)
    return invalid('duration_s', 'register_reset happens at an instant: it takes no duration');
  if (kind === 'reply_delay') {
    const b = body as Extract<FaultBody, { kind: 'reply_delay' }>;
    const fixed = b.delay_ms !== undefined;
    const range = b.min_ms !== undefined || b.max_ms !== undefined;
    if (fixed === range) return invalid('delay_ms', 'give either delay_ms, or min_ms and max_ms');
    if (range && (b.min_ms === undefined || b.max_ms === undefined))
      return invalid(b.min_ms === undefined ? 'min_ms' : 'max_ms', 'min_ms and max_ms go together');
    if (range && b.min_ms! > b.max_ms!) return invalid('min_ms', 'must not be above max_ms');
  }
  if (kind === 'register_rollover') {
    const problem = rolloverProblem(state, body as Extract<FaultBody, { kind: 'register_rollover' }>);
    if (problem) return invalid('max_kwh', problem);
  }
  const live = state.faults.filter((f) => f.until === null || f.until > now);
  if (live.length >= MAX_FAULTS_PER_METER)
    return conflict(
      `meter ${state.deviceId} already has ${live.length} faults (at most ${MAX_FAULTS_PER_METER})`,
    );
  const id = `F${state.faultSeq + 1}`;
  const fault = { id, kind, params, from, until, seed: seed ?? defaultFaultSeed(state.seed, id) } as Fault;
  const clash = live.find((f) => sameSlot(f, fault) && overlaps(f, fault));
  if (clash) return conflict(`${clash.id} (${clash.kind}) already covers part of that time: clear it first`);
  return { ok: true, fault };
}

const conflict = (message: string): FaultOutcome => ({ ok: false, problem: { kind: 'conflict', message } });

/** Two faults that would fight over one thing: the same kind (a tamper: the same type). */
function sameSlot(a: Fault, b: Fault): boolean {
  if (a.kind !== b.kind) return false;
  return a.kind !== 'tamper' || b.kind !== 'tamper' || a.params.type === b.params.type;
}

function overlaps(a: Fault, b: Fault): boolean {
  const aEnd = a.until ?? Number.POSITIVE_INFINITY;
  const bEnd = b.until ?? Number.POSITIVE_INFINITY;
  return a.from < bEnd && b.from < aEnd;
}

/** The faults of a meter not yet ended at `now` (active or scheduled), in the order they were added. */
export function liveFaults(state: MeterState, now: number): Fault[] {
  return state.faults.filter((f) => f.until === null || f.until > now);
}

/** A fault as /sim/v1 shows it: its parameters flat beside its id and kind, times in IST. */
export function faultView(f: Fault, now: number) {
  return {
    fault_id: f.id,
    kind: f.kind,
    ...f.params,
    start_at: toIstIso(f.from),
    end_at: f.until === null ? null : toIstIso(f.until),
    active: now >= f.from && (f.until === null || now < f.until),
    seed: f.seed,
  };
}

/** Adds a fault to a running virtual meter at `now` (the meter integrates up to now first). */
export function addFault(meter: VirtualMeter, body: FaultBody, now: number): FaultOutcome {
  meter.tick(now);
  const out = faultFromBody(meter.state, body, now);
  if (out.ok) meter.addFault(out.fault, now);
  return out;
}

/** Clears one fault (by id) or all; returns the ones cleared ([] when the id is not among them). */
export function clearFaults(meter: VirtualMeter, id: string | 'all', now: number): Fault[] {
  meter.tick(now);
  const cleared = liveFaults(meter.state, now).filter((f) => id === 'all' || f.id === id);
  if (cleared.length > 0) meter.clearFaults(id === 'all' ? 'all' : [id], now);
  return cleared;
}
