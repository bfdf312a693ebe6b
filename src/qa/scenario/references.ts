// Load-time check that every step names only meters, accounts and spaces the scenario's world has: a
// typo in a meter id (or an `as:`, or a `{space:…}` in a path) is caught with its file and line, and the
// name probably meant, before anything runs, not as a puzzling 404 halfway through [SC-5].

import { didYouMean } from '../did-you-mean.ts';
import { OPERATORS } from './matchers.ts';
import type { Scenario, Step } from './schema.ts';

export interface BadReference {
  /** Where, as a path into the scenario (for its line). */
  path: (string | number)[];
  message: string;
}

/** The step's fields that name a meter, with the path of each. */
function meterFields(step: Step): [string[], string][] {
  const out: [string[], string][] = [];
  const add = (path: string[], id: string | undefined) => id !== undefined && out.push([path, id]);
  add(['set_load', 'meter'], step.set_load?.meter);
  add(['recharge', 'meter'], step.recharge?.meter);
  add(['offline'], step.offline);
  add(['online'], step.online);
  add(['button', 'meter'], step.button?.meter);
  add(['history', 'meter'], step.history?.meter);
  add(['expect_meter', 'meter'], step.expect_meter?.meter);
  add(['expect_event', 'meter'], step.expect_event?.meter);
  add(['fault', 'meter'], step.fault?.meter);
  add(['clear_faults', 'meter'], step.clear_faults?.meter);
  add(['reset_meter'], step.reset_meter);
  add(['replace', 'meter'], step.replace?.meter);
  add(['prepaid_policy', 'meter'], step.prepaid_policy?.meter);
  // A call to a device's route, unless it expects an error (asking for a meter that is not there is a test).
  const c = step.call;
  const failing = step.expect?.status !== undefined && step.expect.status >= 400;
  if (c && !failing) add(['call', 'path'], /^\/(?:api\/v2|sim\/v1)\/devices\/([^/?{}]+)/.exec(c.path)?.[1]);
  // A literal device level in an MQTT topic filter [MC-1].
  const level = step.expect_mqtt?.topic.split('/')[2];
  if (level !== undefined && level !== '+' && level !== '#') add(['expect_mqtt', 'topic'], level);
  return out;
}

function decoded(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

/** Callers besides the world's accounts: the admin token, and no credentials. */
const CALLERS = ['admin', 'nobody'];

/** What a step calls as and what its path's placeholders name: `[path, kind, name]`. */
function namedFields(step: Step): [string[], 'account' | 'space' | 'caller', string][] {
  const out: [string[], 'account' | 'space' | 'caller', string][] = [];
  const c = step.call ?? step.history;
  const key = step.call ? 'call' : 'history';
  if (c?.as !== undefined) out.push([[key, 'as'], 'caller', c.as]);
  for (const m of step.call?.path.matchAll(/\{(account|space):([^}]+)\}/g) ?? [])
    out.push([['call', 'path'], m[1] as 'account' | 'space', m[2]!]);
  return out;
}

export function badMeterReferences(s: Scenario): BadReference[] {
  const meters = new Set<string>();
  const accounts = new Set<string>();
  const spaces = new Set<string>();
  for (const a of s.world.accounts) {
    accounts.add(a.name);
    for (const m of a.meters) meters.add(m.id);
    for (const sp of a.spaces) {
      spaces.add(sp.ref ?? sp.name);
      for (const m of sp.meters) meters.add(m.id);
    }
  }
  const list = (names: Iterable<string>) => [...names].join(', ') || 'none';
  const out: BadReference[] = [];
  s.timeline.forEach((step, i) => {
    for (const [path, id] of meterFields(step))
      if (!meters.has(decoded(id)))
        out.push({
          path: ['timeline', i, ...path],
          message: `no meter ${JSON.stringify(id)} in the world${didYouMean(decoded(id), meters)} (its meters: ${list(meters)})`,
        });
    for (const [path, kind, name] of namedFields(step)) {
      const known = kind === 'space' ? spaces : kind === 'account' ? accounts : [...accounts, ...CALLERS];
      if (new Set(known).has(name)) continue;
      const what = kind === 'caller' ? 'account' : kind;
      out.push({
        path: ['timeline', i, ...path],
        message: `no ${what} ${JSON.stringify(name)} in the world${didYouMean(name, known)} (its ${what === 'space' ? 'spaces' : 'accounts'}: ${list(kind === 'space' ? spaces : accounts)}${kind === 'caller' ? '; or admin, nobody' : ''})`,
      });
    }
  });
  return out;
}

/** The parts of a step whose values are matchers (matchers.ts). */
const EXPECTING = ['expect', 'expect_meter', 'expect_mqtt', 'expect_event'] as const;
const MAX_DEPTH = 64;

/**
 * [SC-5] Operators typed wrong (`$gtee`), found when the file loads: an object whose keys all start
 * with `$` is an operator (matchers.ts), so each of its keys must be one.
 */
export function badOperators(s: Scenario): BadReference[] {
  const out: BadReference[] = [];
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (path.length > MAX_DEPTH) return; // a hostile file's nesting costs no stack
    if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, [...path, i]);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    const keys = Object.keys(value);
    const operator = keys.length > 0 && keys.every((k) => k.startsWith('$'));
    for (const k of keys) {
      if (operator && !OPERATORS.includes(k))
        out.push({
          path: [...path, k],
          message: `unknown operator ${k}${didYouMean(k, OPERATORS)} (one of ${OPERATORS.join(' ')})`,
        });
      walk((value as Record<string, unknown>)[k], [...path, k]);
    }
  };
  s.timeline.forEach((step, i) => {
    for (const key of EXPECTING) if (step[key] !== undefined) walk(step[key], ['timeline', i, key]);
  });
  return out;
}

/**
 * [SC-5] A `restore` or `clear_faults` naming something an earlier step named almost so: a snapshot
 * saved, a fault's `as_id`. Only a near miss is refused (a name nothing in the file names may be in
 * the service already: a snapshot file's, a fault id such as F3).
 */
export function nearMissNames(s: Scenario): BadReference[] {
  const out: BadReference[] = [];
  const snapshots = new Set<string>();
  const faults = new Set<string>();
  const check = (path: (string | number)[], name: string, known: Set<string>, what: string) => {
    if (known.has(name)) return;
    const guess = didYouMean(name, known);
    if (guess)
      out.push({ path, message: `no ${what} ${JSON.stringify(name)} named before this step${guess}` });
  };
  s.timeline.forEach((step, i) => {
    if (step.restore !== undefined) check(['timeline', i, 'restore'], step.restore, snapshots, 'snapshot');
    const f = step.clear_faults?.fault;
    if (f !== undefined) check(['timeline', i, 'clear_faults', 'fault'], f, faults, 'fault');
    if (step.snapshot !== undefined) snapshots.add(step.snapshot);
    if (step.fault?.as_id !== undefined) faults.add(step.fault.as_id);
  });
  return out;
}

/** The meters a step names (the HTML report draws its checks on their charts). */
export function stepMeters(step: Step): string[] {
  return [...new Set(meterFields(step).map(([, id]) => decoded(id)))];
}
