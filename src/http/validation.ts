// Request validation, and the one style of its messages (issue 10 item 6, spec-decisions 67).
//
// The style is the spec's own (its samples come from a FastAPI service: "Field required", "Invalid
// property ID", "at most 32 characters"): a short sentence in sentence case, no final period, saying
// what the input should be: `Field required`, `Input should be a valid boolean`, `String should have
// at most 32 characters`, `Input should be 'prepaid', 'postpaid', 'measurement' or 'relay_off'`.
// zod's defaults ("Invalid input: expected boolean, received string") are replaced here, in one
// error map given to every parse of a request; a schema's own message (written in the same style)
// still wins. The spec fixes one message word for word: `Invalid property ID` (history rule 4).

import type { FastifySchemaCompiler } from 'fastify';
import type { $ZodRawIssue, $ZodType } from 'zod/v4/core';
import { safeParse } from 'zod/v4/core';

const TYPES: Record<string, string> = {
  boolean: 'a valid boolean',
  number: 'a valid number',
  int: 'a valid integer',
  string: 'a valid string',
  object: 'a JSON object',
  array: 'a JSON array',
};

const show = (v: unknown) => (typeof v === 'string' ? `'${v}'` : String(v));

/** `'a', 'b' or 'c'` */
function oneOf(values: readonly unknown[]): string {
  const shown = values.map(show);
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

const SIZE_NOUN: Record<string, [string, string]> = {
  string: ['String', 'character'],
  array: ['List', 'item'],
  set: ['Set', 'item'],
};

function size(origin: string, bound: 'at most' | 'at least', n: number | bigint): string | undefined {
  const noun = SIZE_NOUN[origin];
  return noun ? `${noun[0]} should have ${bound} ${n} ${noun[1]}${Number(n) === 1 ? '' : 's'}` : undefined;
}

/** The message for an issue a schema gave no message of its own; undefined leaves zod's. */
export function styleIssue(issue: $ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'Field required';
      return `Input should be ${TYPES[issue.expected] ?? `of type ${issue.expected}`}`;
    case 'too_big':
      return (
        size(issue.origin, 'at most', issue.maximum) ??
        `Input should be less than ${issue.inclusive ? 'or equal to ' : ''}${issue.maximum}`
      );
    case 'too_small':
      return (
        size(issue.origin, 'at least', issue.minimum) ??
        `Input should be greater than ${issue.inclusive ? 'or equal to ' : ''}${issue.minimum}`
      );
    case 'invalid_value':
      return `Input should be ${oneOf(issue.values)}`;
    case 'invalid_union': {
      // A union of literals (active_tariff: 1 | 2) reads as one list of values.
      const values = issue.errors.flatMap((branch) =>
        branch.length === 1 && branch[0]?.code === 'invalid_value' ? branch[0].values : [undefined],
      );
      return values.includes(undefined)
        ? 'Input should match one of the allowed forms'
        : `Input should be ${oneOf(values)}`;
    }
    case 'invalid_format':
      return issue.format === 'datetime'
        ? 'Input should be an ISO 8601 date-time with an offset'
        : `String should be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `Extra fields are not permitted: ${issue.keys.map(show).join(', ')}`;
    case 'not_multiple_of':
      return `Input should be a multiple of ${issue.divisor}`;
    default:
      return undefined;
  }
}

/**
 * fastify-type-provider-zod's validatorCompiler with the error map above. The errors keep the
 * plugin's shape (its global symbol marks them) so the envelope's one mapping (envelope.ts) and
 * `hasZodFastifySchemaValidationErrors` treat them as before.
 */
export const validatorCompiler: FastifySchemaCompiler<$ZodType> = ({ schema, httpPart }) => {
  const validate = (data: unknown) => {
    const result = safeParse(schema, data, { error: styleIssue });
    // [spec-decisions 149] Every text the API takes, in every route and every part of a request.
    const nul = nulPaths(data);
    if (!result.error && nul.length === 0) return { value: result.data };
    const issues: { code: string; path: PropertyKey[]; message: string }[] = [
      ...(result.error?.issues ?? []),
      ...nul.map((path) => ({ code: 'nul_character', path, message: NUL_MESSAGE })),
    ];
    const errors = issues.map((issue) => ({
      [Symbol.for('ZodFastifySchemaValidationError')]: true,
      keyword: issue.code,
      instancePath: `/${issue.path.join('/')}`,
      schemaPath: `#/${issue.path.join('/')}/${issue.code}`,
      message: issue.message,
      params: {},
    }));
    return { error: errors as unknown as Error };
  };
  return httpPart === 'params' ? rememberValid(validate) : validate;
};

/** Distinct valid path parameter sets remembered per route; past this the memory starts over. */
const REMEMBERED_PARAMS = 1024;

/**
 * Path parameters are a few strings that repeat (the same device id read again and again), and their
 * schemas are pure (a pattern, a length, Number), so a valid set is parsed once and its value reused: a
 * cached GET then runs no parse. Only successes are kept (an error is built afresh each time), keyed by
 * the set's JSON (its values are strings from the router), or by the value alone when the route has one
 * parameter (every v2 route but none: no JSON.stringify per request), and each request gets its own copy.
 */
function rememberValid<R extends { value?: unknown; error?: Error }>(
  validate: (data: unknown) => R,
): (data: unknown) => R | { value: unknown } {
  const valid = new Map<string, Record<string, unknown>>();
  return (data) => {
    const key = paramsKey(data);
    const seen = valid.get(key);
    if (seen !== undefined) return { value: { ...seen } };
    const result = validate(data);
    if (result.error === undefined && result.value !== null && typeof result.value === 'object') {
      if (valid.size >= REMEMBERED_PARAMS) valid.clear();
      valid.set(key, { ...(result.value as Record<string, unknown>) });
    }
    return result;
  };
}

/**
 * A route's parameter sets always have the same names, so a route with one parameter can key by its
 * value: a value and a JSON object never meet in one route's memory.
 */
function paramsKey(data: unknown): string {
  if (data !== null && typeof data === 'object') {
    let count = 0;
    let only: unknown;
    for (const name in data) {
      if (++count > 1) break;
      only = (data as Record<string, unknown>)[name];
    }
    if (count === 1 && typeof only === 'string') return only;
  }
  return JSON.stringify(data);
}

export const NUL_MESSAGE = 'String should not contain the NUL character (U+0000)';

/**
 * [spec-decisions 149] Where a request holds U+0000, in a string or a key: PostgreSQL's `text` and
 * `jsonb` cannot store it (SQLite can), so the API refuses it before any store sees it, the same answer
 * on both. Iterative, so a deeply nested body cannot overflow the stack; JSON.parse already walked it,
 * and a body holds no NUL in the common case, so this is one more pass over small values.
 */
export function nulPaths(data: unknown): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  // Each entry links to its parent, so a path is built only for a hit (a deep body copies nothing).
  const stack: { value: unknown; at: Step | null }[] = [{ value: data, at: null }];
  while (stack.length > 0 && found.length < MAX_NUL_ITEMS) {
    const { value, at } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\0')) found.push(pathOf(at));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], at: { key: i, up: at } });
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const step = { key: keys[i]!, up: at };
        if (step.key.includes('\0')) found.push(pathOf(step));
        else stack.push({ value: (value as Record<string, unknown>)[step.key], at: step });
      }
    }
  }
  return found;
}

interface Step {
  key: PropertyKey;
  up: Step | null;
}

function pathOf(step: Step | null): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let s = step; s !== null; s = s.up) path.push(s.key);
  return path.reverse();
}

/** A body full of NULs is told about its first few: enough to fix it, not a reply as big as the body. */
const MAX_NUL_ITEMS = 20;
