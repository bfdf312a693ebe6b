// [MC-4.4] [MC-7.7] Samples at their resolution as the twins take them (spec-decisions 181), from a table.

import { describe, expect, it } from 'vitest';
import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { atStep, DEFAULT_RESOLUTIONS, resolutionsOf, samplesAtResolution } from './resolution.ts';

describe('atStep', () => {
  it.each([
    [0.0013333333333333333, 0.001, 0.001],
    [58.20826666666667, 0.001, 58.208],
    [942.2420000000001, 0.001, 942.242],
    [1578.9473684210527, 0.1, 1578.9],
    [229.995, 0.01, 230],
    [24451.7145, 0.001, 24451.715], // a tie as written rounds up, as a person reading it would
    [0.0004, 0.001, 0],
    [-0.04, 0.1, 0], // never -0
    [-12.34, 0.1, -12.3],
    [12.3456, 1e-7, 12.3456],
    [0.37, 0.25, 0.25],
    [0.38, 0.25, 0.5],
    [1234, 5, 1235],
  ])('%d at %d → %d', (x, step, want) => {
    expect(Object.is(atStep(x, step), want)).toBe(true);
  });
});

const info = (resolutions: Record<string, number>) => ({
  properties: Object.entries(resolutions).map(([property_id, resolution]) => ({
    property_id,
    context_type: 'instantaneous' as const,
    unit: '',
    resolution,
  })),
});

describe('resolutionsOf and samplesAtResolution', () => {
  it('a meter that declared none: the defaults (energy 0.001 kWh, power 0.1 W, voltage 0.01 V)', () => {
    expect(resolutionsOf(null)).toBe(DEFAULT_RESOLUTIONS);
    expect(resolutionsOf({ properties: [] })).toBe(DEFAULT_RESOLUTIONS);
    const noisy: SamplePayload = {
      ts: 1,
      energy: 0.0013333333333333333,
      active_power: 123.45678,
      voltage: 229.99999999,
      current: 0.5366666666,
      balance: 100,
    };
    expect(samplesAtResolution([noisy], resolutionsOf(null))).toEqual([
      { ts: 1, energy: 0.001, active_power: 123.5, voltage: 230, current: 0.537, balance: 100 },
    ]);
  });

  it('a declared resolution wins, the defaults for the rest', () => {
    const steps = resolutionsOf(info({ energy: 0.0001, voltage: 1 }));
    expect(steps).toMatchObject({ energy: 0.0001, voltage: 1, active_power: 0.1 });
    expect(
      samplesAtResolution(
        [{ ts: 1, energy: 12.50133333, active_power: 1, voltage: 230.4, balance: 0 }],
        steps,
      ),
    ).toEqual([{ ts: 1, energy: 12.5013, active_power: 1, voltage: 230, balance: 0 }]);
  });

  it('values already at their step come back as the same array', () => {
    const honest: SamplePayload[] = [
      { ts: 1, energy: 942.242, active_power: 1578.9, voltage: 230.01, balance: 0 },
    ];
    expect(samplesAtResolution(honest, DEFAULT_RESOLUTIONS)).toBe(honest);
  });
});
