// How long the property-based fuzz tests run. CI runs each property a modest number of times so the whole
// fuzz set stays well under 30 s on a busy 2-core machine; `npm run fuzz` sets FUZZ_SECONDS (and may set
// FUZZ_RUNS) to run each property far longer. A failure prints fast-check's seed and path: replay it with
// FUZZ_SEED=<seed> FUZZ_PATH=<path>.

import type fc from 'fast-check';

const num = (name: string): number | undefined => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw}: expected a positive number`);
  return n;
};

const seconds = num('FUZZ_SECONDS');
const runs = num('FUZZ_RUNS');
/**
 * CI (`CI=true`) runs a fixed seed, so a commit's CI result is reproducible and a red run is a real
 * regression, not a roll of the dice; local runs and `npm run fuzz` draw a new seed each time and keep
 * exploring. FUZZ_SEED overrides both.
 */
const CI_SEED = 20261123;
const seed =
  num('FUZZ_SEED') ?? (process.env['CI'] === 'true' && seconds === undefined ? CI_SEED : undefined);
const path = process.env['FUZZ_PATH'];

/** True under `npm run fuzz`: properties run until FUZZ_SECONDS or FUZZ_RUNS, not the CI budget. */
export const LONG_FUZZ = seconds !== undefined || runs !== undefined;

/**
 * fast-check parameters for one property. `ciRuns` is the CI budget; under `npm run fuzz` a property
 * runs FUZZ_RUNS times (default: unbounded) or until FUZZ_SECONDS have passed, whichever comes first.
 */
export function fuzzParams<T>(ciRuns: number): fc.Parameters<T> {
  const params: fc.Parameters<T> = LONG_FUZZ
    ? {
        numRuns: runs ?? Number.MAX_SAFE_INTEGER,
        ...(seconds === undefined
          ? {}
          : { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false }),
      }
    : { numRuns: runs ?? ciRuns };
  if (seed !== undefined) params.seed = seed;
  if (path !== undefined) params.path = path;
  return params;
}

/** The vitest timeout of a fuzz test: its CI budget, or the long run's time limit plus a margin. */
export function fuzzTimeout(ciMs: number): number {
  return seconds === undefined ? (LONG_FUZZ ? 3_600_000 : ciMs) : seconds * 1000 + Math.max(ciMs, 60_000);
}

/** No lone surrogate (String#isWellFormed, Node 20): with the u flag a lone surrogate is a code point of category Cs. */
export const isWellFormed = (s: string): boolean => !/\p{Cs}/u.test(s);
