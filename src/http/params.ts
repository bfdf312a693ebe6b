// Path and query parameters that are integers: canonical decimal only. `Number()` (and z.coerce)
// would read `0x1`, `1e0`, ` 1` and `1.0` as 1, so one resource would answer to many spellings and a
// cache or audit log keyed by URL would disagree with what was served (spec-decisions 42).

import { z } from 'zod';

/** A positive integer written as canonical decimal: digits, no sign, no leading zero, ≤ 2^53 − 1. */
export function positiveIntParam(name: string, example?: number) {
  const error = 'Input should be a positive integer';
  return (
    z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, { error, abort: true })
      .transform(Number)
      .pipe(z.number().max(Number.MAX_SAFE_INTEGER, { error }))
      // Documented as what it is on the wire for a client: an integer (the pattern is how it is read).
      .meta({
        type: 'integer',
        minimum: 1,
        pattern: undefined,
        description: `${name}: a positive integer in decimal`,
        // Swagger UI's "Try it out" starts from it (issue 20 item 10).
        ...(example === undefined ? {} : { example }),
      })
  );
}
