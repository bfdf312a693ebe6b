// Expectation values: a literal must equal; an object lists fields (dotted paths allowed) that must
// match, others are free; an array must match element by element; an object whose keys all start
// with `$` is an operator: $eq $ne $gt $gte $lt $lte $approx(+$tol) $matches $contains $length
// $exists $one_of. `match` returns null when it holds, else what differs.

import { didYouMean } from '../did-you-mean.ts';

export const OPERATORS = [
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$approx',
  '$tol',
  '$matches',
  '$contains',
  '$length',
  '$exists',
  '$one_of',
];

export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** Readable size for what a failed check saw: one line of JSON, cut at `max` characters. */
export function trimmed(value: unknown, max = 400): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** How many messages or events a failure shows: the last few. */
export const LAST_SHOWN = 3;

/** `obj` at a dotted path: `readings.0.value`, `readings.length`. */
export function pathGet(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) && key !== 'length' ? cur[Number(key)] : (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function isOperator(v: unknown): v is Record<string, unknown> {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.keys(v).length > 0 &&
    Object.keys(v).every((k) => k.startsWith('$'))
  );
}

export function match(expected: unknown, actual: unknown, where = ''): string | null {
  const at = where ? `${where}: ` : '';
  if (isOperator(expected)) return operator(expected, actual, at);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}expected an array, got ${show(actual)}`;
    if (actual.length !== expected.length)
      return `${at}expected ${expected.length} items, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = match(expected[i], actual[i], `${where}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return `${at}expected an object, got ${show(actual)}`;
    for (const [k, v] of Object.entries(expected)) {
      const d = match(v, pathGet(actual, k), where ? `${where}.${k}` : k);
      if (d) return d;
    }
    return null;
  }
  return expected === actual ? null : `${at}expected ${show(expected)}, got ${show(actual)}`;
}

function operator(op: Record<string, unknown>, actual: unknown, at: string): string | null {
  const fail = (what: string) => `${at}expected ${what}, got ${show(actual)}`;
  const num = typeof actual === 'number' ? actual : Number.NaN;
  for (const [k, v] of Object.entries(op)) {
    switch (k) {
      case '$eq':
        if (match(v, actual) !== null) return fail(show(v));
        break;
      case '$ne':
        if (match(v, actual) === null) return fail(`not ${show(v)}`);
        break;
      case '$gt':
        if (!(num > Number(v))) return fail(`> ${show(v)}`);
        break;
      case '$gte':
        if (!(num >= Number(v))) return fail(`>= ${show(v)}`);
        break;
      case '$lt':
        if (!(num < Number(v))) return fail(`< ${show(v)}`);
        break;
      case '$lte':
        if (!(num <= Number(v))) return fail(`<= ${show(v)}`);
        break;
      case '$approx': {
        const tol = Number(op['$tol'] ?? 1e-9);
        if (!(Math.abs(num - Number(v)) <= tol)) return fail(`${show(v)} ± ${tol}`);
        break;
      }
      case '$tol':
        break;
      case '$matches':
        if (typeof actual !== 'string' || !new RegExp(String(v)).test(actual))
          return fail(`a string matching /${String(v)}/`);
        break;
      case '$contains':
        if (
          typeof actual === 'string'
            ? !actual.includes(String(v))
            : !Array.isArray(actual) || !actual.some((x) => match(v, x) === null)
        )
          return fail(`something containing ${show(v)}`);
        break;
      case '$length': {
        const len = Array.isArray(actual) || typeof actual === 'string' ? actual.length : undefined;
        const d = match(v, len);
        if (d) return `${at}length: ${d}`;
        break;
      }
      case '$exists':
        if ((actual !== undefined) !== Boolean(v)) return fail(v ? 'a value' : 'nothing');
        break;
      case '$one_of':
        if (!Array.isArray(v) || !v.some((x) => match(x, actual) === null)) return fail(`one of ${show(v)}`);
        break;
      default:
        return `${at}unknown operator ${k}${didYouMean(k, OPERATORS)} (one of ${OPERATORS.join(' ')})`;
    }
  }
  return null;
}
