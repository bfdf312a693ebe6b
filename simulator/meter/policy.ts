// [M-28] [M-29] [M-30] Field prepaid policies (issue 12 §4), opt-in per meter: emergency credit, friendly
// hours in IST and low-balance warnings. Everything here is derived from (policy, balance, time): a meter
// stores only its policy, so a null policy is today's behaviour bit for bit.

import { msUntilCutoff, paiseToUnits } from './billing.ts';
import type { MeterState } from './types.ts';

/** IST is UTC+05:30 all year (no DST). */
export const IST_OFFSET_MS = 19_800_000;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export const MAX_WARNINGS = 64;
export const MAX_WARNING_PAISE = 100_000_000;
export const MAX_EMERGENCY_CREDIT_PAISE = 10_000_000;
export const MAX_HOLIDAYS = 366;

export interface FriendlyHours {
  /** 'HH:MM' IST; the window is [from, to) each day and wraps midnight when to < from. */
  from: string;
  to: string;
  /** 'YYYY-MM-DD' IST dates that are friendly all day. */
  holidays: string[];
}

export interface PrepaidPolicy {
  /** Integer paise, strictly descending (e.g. [10000, 5000, 0]); may be empty. */
  lowBalanceWarnings: number[];
  /** Integer paise >= 0: the relay stays closed while balance >= -emergencyCredit. */
  emergencyCredit: number;
  friendlyHours: FriendlyHours | null;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Minutes after IST midnight of 'HH:MM', or null when it is not a time of day. */
export function minuteOfDay(hhmm: string): number | null {
  const m = HHMM.exec(hhmm);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** Whether 'YYYY-MM-DD' names a real calendar date. */
export function isCalendarDate(d: string): boolean {
  const m = DATE.exec(d);
  if (!m) return false;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === d;
}

/** What is wrong with a policy (the first problem, with its path), or null. Checked before anything is applied. */
export function policyProblem(p: PrepaidPolicy): { loc: (string | number)[]; msg: string } | null {
  const w = p.lowBalanceWarnings;
  if (w.length > MAX_WARNINGS)
    return { loc: ['lowBalanceWarnings'], msg: `at most ${MAX_WARNINGS} thresholds` };
  for (let i = 0; i < w.length; i++) {
    const x = w[i] as number;
    if (!Number.isInteger(x) || Math.abs(x) > MAX_WARNING_PAISE)
      return { loc: ['lowBalanceWarnings', i], msg: `must be integer paise within ±${MAX_WARNING_PAISE}` };
    if (i > 0 && x >= (w[i - 1] as number))
      return { loc: ['lowBalanceWarnings', i], msg: 'thresholds must be strictly descending' };
  }
  const e = p.emergencyCredit;
  if (!Number.isInteger(e) || e < 0 || e > MAX_EMERGENCY_CREDIT_PAISE)
    return { loc: ['emergencyCredit'], msg: `must be integer paise in 0..${MAX_EMERGENCY_CREDIT_PAISE}` };
  const f = p.friendlyHours;
  if (f === null) return null;
  const from = minuteOfDay(f.from);
  const to = minuteOfDay(f.to);
  if (from === null) return { loc: ['friendlyHours', 'from'], msg: 'must be HH:MM (00:00..23:59)' };
  if (to === null) return { loc: ['friendlyHours', 'to'], msg: 'must be HH:MM (00:00..23:59)' };
  if (from === to) return { loc: ['friendlyHours', 'to'], msg: 'must differ from from (an empty window)' };
  if (f.holidays.length > MAX_HOLIDAYS)
    return { loc: ['friendlyHours', 'holidays'], msg: `at most ${MAX_HOLIDAYS} dates` };
  for (let i = 0; i < f.holidays.length; i++) {
    if (!isCalendarDate(f.holidays[i] as string))
      return { loc: ['friendlyHours', 'holidays', i], msg: 'must be a calendar date YYYY-MM-DD' };
  }
  return null;
}

function istDate(t: number): string {
  return new Date(t + IST_OFFSET_MS).toISOString().slice(0, 10);
}

function istMinute(t: number): number {
  return Math.floor(((((t + IST_OFFSET_MS) % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
}

/** [M-29] Whether `t` lies in a friendly window: a listed IST holiday, or the daily [from, to). */
export function isFriendly(f: FriendlyHours, t: number): boolean {
  if (f.holidays.length > 0 && f.holidays.includes(istDate(t))) return true;
  const from = minuteOfDay(f.from) as number;
  const to = minuteOfDay(f.to) as number;
  const m = istMinute(t);
  return from < to ? m >= from && m < to : m >= from || m < to;
}

/** The first instant after `t` at which friendliness may change: the next IST midnight, `from` or `to`. */
export function nextFriendlyEdge(f: FriendlyHours, t: number): number {
  const local = t + IST_OFFSET_MS;
  const midnight = Math.floor(local / DAY_MS) * DAY_MS - IST_OFFSET_MS;
  let next = midnight + DAY_MS;
  for (const hhmm of [f.from, f.to]) {
    const at = midnight + (minuteOfDay(hhmm) as number) * MINUTE_MS;
    const edge = at > t ? at : at + DAY_MS;
    if (edge < next) next = edge;
  }
  return next;
}

/** Balance units of the emergency credit (0 without a policy). */
export function emergencyUnits(policy: PrepaidPolicy | null): bigint {
  return policy === null ? 0n : paiseToUnits(policy.emergencyCredit);
}

/**
 * [M-28] [M-29] The prepaid rule with a policy: closed iff commanded and (balance >= -emergencyCredit or
 * `t` lies in a friendly window).
 */
export function prepaidClosedWithPolicy(
  policy: PrepaidPolicy,
  commanded: boolean,
  balance: bigint,
  t: number,
): boolean {
  if (!commanded) return false;
  if (balance >= -paiseToUnits(policy.emergencyCredit)) return true;
  return policy.friendlyHours !== null && isFriendly(policy.friendlyHours, t);
}

/** [M-30] The lowest warning threshold the balance is below (balance < T paise), or null. */
export function lowBalanceOf(policy: PrepaidPolicy | null, balance: bigint): number | null {
  if (policy === null) return null;
  let low: number | null = null;
  for (const th of policy.lowBalanceWarnings) if (balance < paiseToUnits(th)) low = th;
  return low;
}

/** [M-30] The next threshold the balance can fall through (the highest it is not yet below), in units. */
export function nextWarningUnits(policy: PrepaidPolicy, balance: bigint): bigint | null {
  for (const th of policy.lowBalanceWarnings) {
    const u = paiseToUnits(th);
    if (balance >= u) return u;
  }
  return null;
}

/** Where integration must stop for the policy: the next friendly-hours edge (prepaid only), else +Infinity. */
export function policyEdgeAfter(s: Pick<MeterState, 'prepaidPolicy' | 'mode'>, t: number): number {
  const f = s.prepaidPolicy?.friendlyHours;
  if (!f || s.mode !== 'prepaid') return Number.POSITIVE_INFINITY;
  return nextFriendlyEdge(f, t);
}

/** A copy holding only the policy's own fields (arrays copied), so callers' objects are never shared. */
export function clonePolicy(p: PrepaidPolicy): PrepaidPolicy {
  return {
    lowBalanceWarnings: [...p.lowBalanceWarnings],
    emergencyCredit: p.emergencyCredit,
    friendlyHours:
      p.friendlyHours === null
        ? null
        : { from: p.friendlyHours.from, to: p.friendlyHours.to, holidays: [...p.friendlyHours.holidays] },
  };
}

/**
 * [M-28] [M-30] For a prepaid meter with a policy whose relay is closed at s.lastTs: the least ms of flow
 * at which the relay opens (balance below -emergencyCredit, outside a friendly window) or the balance
 * falls through the next warning threshold, whichever is first. Null when nothing is charged.
 */
export function policyStopMs(
  s: Pick<MeterState, 'prepaidPolicy' | 'balance' | 'lastTs'>,
  rate: bigint,
  powerMw: bigint,
): bigint | null {
  const policy = s.prepaidPolicy as PrepaidPolicy;
  const f = policy.friendlyHours;
  let stop: bigint | null = null;
  if (f === null || !isFriendly(f, s.lastTs))
    stop = msUntilCutoff(s.balance + emergencyUnits(policy), rate, powerMw);
  const w = nextWarningUnits(policy, s.balance);
  if (w !== null) {
    const d = msUntilCutoff(s.balance - w, rate, powerMw);
    if (d !== null && (stop === null || d < stop)) stop = d;
  }
  return stop;
}

/** [M-31] Sets (or with null clears) the policy of the draft `s`; an impossible policy throws, changing nothing. */
export function setPrepaidPolicy(s: MeterState, policy: PrepaidPolicy | null): void {
  if (policy === null) {
    s.prepaidPolicy = null;
    return;
  }
  const copy = clonePolicy(policy);
  const problem = policyProblem(copy);
  if (problem) throw new TypeError(`set_prepaid_policy: ${problem.loc.join('.')}: ${problem.msg}`);
  s.prepaidPolicy = copy;
}
