// telemetryIfValid against TelemetrySchema, the definition: over generated payloads, valid and not, it
// accepts exactly what the schema accepts and returns exactly the schema's value (keys and their order).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decode } from './codec.ts';
import { MAX_SAMPLES, TelemetrySchema } from './schemas.ts';
import { telemetryIfValid } from './telemetry-check.ts';

/** Numbers around every bound the schema draws, and things that are not numbers. */
const edgy = fc.constantFrom(
  0,
  -0,
  1,
  -1,
  1.5,
  -1.0000001,
  0.9999999,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53 - 1),
  -(2 ** 53),
  1e21,
  5e-324,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  null,
  '1',
  true,
  [],
  {},
);
const anyNumber = fc.oneof(
  { weight: 6, arbitrary: fc.double({ min: -2, max: 2e6, noNaN: true }) },
  { weight: 6, arbitrary: fc.integer({ min: -5, max: 2e12 }) },
  { weight: 3, arbitrary: edgy },
);
/** A value for a key, mostly a plausible one; optional keys are left out half the time. */
const field = (likely: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 30, arbitrary: likely }, { weight: 1, arbitrary: anyNumber });

const REQUIRED = ['ts', 'energy', 'active_power', 'voltage', 'balance'] as const;
const fields = fc.record(
  {
    ts: field(fc.integer({ min: 0, max: 4e12 })),
    energy: field(fc.double({ min: 0, max: 1e6, noNaN: true })),
    active_power: field(fc.double({ min: -1e4, max: 1e5, noNaN: true })),
    voltage: field(fc.double({ min: 0, max: 400, noNaN: true })),
    current: field(fc.double({ min: 0, max: 100, noNaN: true })),
    power_factor: field(fc.double({ min: -1, max: 1, noNaN: true })),
    apparent_power: field(fc.double({ min: 0, max: 1e5, noNaN: true })),
    reactive_power: field(fc.double({ min: -1e5, max: 1e5, noNaN: true })),
    balance: field(fc.integer({ min: -1e9, max: 1e9 })),
    register_epoch: field(fc.integer({ min: 0, max: 3 })),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [...REQUIRED] },
);
/** The fields, now and then without one of the required ones. */
const sample = fc
  .tuple(
    fields,
    fc.oneof(
      { weight: 20, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...REQUIRED) },
    ),
  )
  .map(([s, drop]) => {
    const out: Record<string, unknown> = { ...s };
    if (drop !== null) delete out[drop];
    return out;
  });

/**
 * A sample list ordered as the schema wants it most of the time (ts rising, energy not falling within
 * an epoch), so that order breaks and every other failure meet in one payload.
 */
const samples = fc
  .tuple(
    fc.array(sample, { minLength: 1, maxLength: 6 }),
    fc.boolean(),
    fc.array(fc.integer({ min: -2, max: 100_000 }), { minLength: 6, maxLength: 6 }),
  )
  .map(([list, ordered, steps]): Record<string, unknown>[] => {
    if (!ordered) return list;
    let ts = 1_700_000_000_000;
    let energy = 0;
    let epoch = 0;
    return list.map((s, i) => {
      ts += steps[i]!;
      energy += Math.max(0, steps[i]! / 1000);
      if (typeof s['register_epoch'] === 'number') epoch = Math.max(epoch, s['register_epoch']);
      return { ...s, ts, energy, register_epoch: epoch };
    });
  });

const payload = fc.record(
  {
    v: fc.oneof({ weight: 30, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: anyNumber }),
    samples: fc.oneof(
      { weight: 30, arbitrary: samples },
      { weight: 1, arbitrary: fc.jsonValue() },
      { weight: 1, arbitrary: fc.constant([]) },
    ),
    other: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: ['v', 'samples'] },
);

describe('telemetryIfValid: TelemetrySchema, by hand', () => {
  it('[MC-7.2] [MC-7.3] [MC-7.4] [MC-7.5] [MC-7.9] accepts what the schema accepts, with its value', () => {
    let valid = 0;
    fc.assert(
      fc.property(payload, (input) => {
        const schema = TelemetrySchema.safeParse(input);
        const fast = telemetryIfValid(input as Record<string, unknown>);
        if (!schema.success) return fast === null;
        valid++;
        expect(fast).toEqual(schema.data);
        // Key order too: the value is handed on and may be written out again.
        expect(JSON.stringify(fast)).toBe(JSON.stringify(schema.data));
        return true;
      }),
      { numRuns: 5_000 },
    );
    // The generator must reach both sides, or the property says little.
    expect(valid).toBeGreaterThan(500);
    expect(valid).toBeLessThan(4_500);
  });

  it('[MC-7.2] 1 to 1000 samples, as the schema', () => {
    const list = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ ts: i, energy: i, active_power: 0, voltage: 230, balance: 0 }));
    for (const n of [0, 1, MAX_SAMPLES, MAX_SAMPLES + 1]) {
      const input = { v: 1, samples: list(n) };
      expect(telemetryIfValid(input) !== null).toBe(TelemetrySchema.safeParse(input).success);
    }
  });

  it('decode gives the same result with and without it, on valid and invalid wire text', () => {
    const cases = [
      '{"v":1,"samples":[{"ts":1,"energy":0.5,"active_power":-3,"voltage":230,"balance":-7,"x":1}]}',
      '{"v":1,"samples":[{"ts":2,"energy":1,"active_power":0,"voltage":1,"balance":0},{"ts":2,"energy":1,"active_power":0,"voltage":1,"balance":0}]}',
      '{"v":1,"samples":[{"ts":1,"energy":null,"active_power":0,"voltage":1,"balance":0}]}',
      '{"v":1,"samples":[]}',
    ];
    for (const text of cases) {
      const schema = TelemetrySchema.safeParse(JSON.parse(text));
      const decoded = decode('telemetry', text);
      expect(decoded.ok).toBe(schema.success);
      if (decoded.ok && schema.success) expect(decoded.value).toEqual(schema.data);
    }
  });
});
