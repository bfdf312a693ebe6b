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
export const validatorCompiler: FastifySchemaCompiler<$ZodType> =
  ({ schema }) =>
  (data) => {
    const result = safeParse(schema, data, { error: styleIssue });
    if (!result.error) return { value: result.data };
    const errors = result.error.issues.map((issue) => ({
      [Symbol.for('ZodFastifySchemaValidationError')]: true,
      keyword: issue.code,
      instancePath: `/${issue.path.join('/')}`,
      schemaPath: `#/${issue.path.join('/')}/${issue.code}`,
      message: issue.message,
      params: {},
    }));
    return { error: errors as unknown as Error };
  };
