// [M-13] Readings: the property catalogue, physics of the full model, determinism; [M-16] the
// resolution each model declares and reports at.

import { describe, expect, it } from 'vitest';
import { PROPERTY_CATALOGUE, readingsAt, voltageAt } from './readings.ts';
import { advance, DAY, MINUTE, meter, samples, T0 } from './test-helpers.ts';
import type { MeterState, Sample } from './types.ts';

const household = { kind: 'household', seed: 11, peakWatts: 4000 } as const;

function dayOfSamples(m: MeterState): Sample[] {
  return samples(advance(m, T0 + DAY).effects);
}

describe('property catalogue (spec §2 Reading)', () => {
  it('basic: energy, active_power, voltage', () => {
    expect(PROPERTY_CATALOGUE.basic).toEqual([
      { property_id: 'energy', context_type: 'cumulative', unit: 'kWh', resolution: 0.001 },
      { property_id: 'active_power', context_type: 'instantaneous', unit: 'W', resolution: 0.1 },
      { property_id: 'voltage', context_type: 'instantaneous', unit: 'V', resolution: 0.01 },
    ]);
  });

  it('full adds current, power factor, apparent and reactive power', () => {
    expect(PROPERTY_CATALOGUE.full.slice(3)).toEqual([
      { property_id: 'current', context_type: 'instantaneous', unit: 'A', resolution: 0.001 },
      { property_id: 'power_factor', context_type: 'instantaneous', unit: '', resolution: 0.001 },
      { property_id: 'apparent_power', context_type: 'instantaneous', unit: 'VA', resolution: 0.1 },
      { property_id: 'reactive_power', context_type: 'instantaneous', unit: 'var', resolution: 0.1 },
    ]);
  });

  it.each(['basic', 'full'] as const)(
    'a %s sample has exactly the catalogue properties, plus ts and balance',
    (model) => {
      const [s] = dayOfSamples(meter({ model, mode: 'postpaid', load: household }));
      const expected = [...PROPERTY_CATALOGUE[model].map((p) => p.property_id), 'ts', 'balance'];
      expect(Object.keys(s!).sort()).toEqual(expected.sort());
    },
  );
});

describe('physics of the full model', () => {
  const got = dayOfSamples(meter({ model: 'full', mode: 'postpaid', load: household }));

  it('[M-16] P = V·I·PF, S = V·I, S² = P² + Q² to the reported resolutions', () => {
    expect(got).toHaveLength(1440);
    for (const s of got) {
      const { voltage: v, current: i, power_factor: pf, apparent_power: va, reactive_power: q } = s;
      const p = s.active_power;
      expect(p).toBeGreaterThan(0);
      // I is off by at most 0.5 mA and P by 0.05 W; V and PF are what the meter used.
      expect(Math.abs(v * i! * pf! - p)).toBeLessThanOrEqual(v * 0.0005 + 0.05 + 1e-9);
      expect(Math.abs(va! - v * i!)).toBeLessThanOrEqual(0.05 + v * 0.0005 + 1e-9);
      expect(Math.abs(Math.hypot(p, q!) - va!)).toBeLessThanOrEqual(0.15);
      expect(q).toBeGreaterThan(0);
    }
  });

  it('reports voltage to 0.01 V and power factor to 0.001, in realistic ranges', () => {
    for (const s of got) {
      expect(Math.round(s.voltage * 100) / 100).toBe(s.voltage);
      expect(Math.round(s.power_factor! * 1000) / 1000).toBe(s.power_factor);
      expect(s.voltage).toBeGreaterThanOrEqual(225);
      expect(s.voltage).toBeLessThanOrEqual(245);
      expect(s.power_factor).toBeGreaterThanOrEqual(0.85);
      expect(s.power_factor).toBeLessThanOrEqual(0.99);
    }
  });

  it('at zero power: current 0, S 0, Q 0, PF 1, voltage still measured', () => {
    const m = meter({ model: 'full', mode: 'postpaid', relayCommanded: false, load: household });
    const s = readingsAt(m, T0);
    expect(s).toEqual({
      ts: T0,
      energy: 0,
      active_power: 0,
      voltage: voltageAt(m.seed, T0),
      current: 0,
      power_factor: 1,
      apparent_power: 0,
      reactive_power: 0,
      balance: 0,
    });
  });

  it('a constant load reports its power factor and exact power', () => {
    const m = meter({
      model: 'full',
      mode: 'postpaid',
      load: { kind: 'constant', watts: 1234.5678, powerFactor: 0.8 },
    });
    const s = readingsAt(m, T0);
    expect(s.active_power).toBe(1234.6); // [M-16] 0.1 W
    expect(s.power_factor).toBe(0.8);
    expect(s.current).toBe(Math.round((1234.568 / (s.voltage * 0.8)) * 1000) / 1000);
  });
});

describe('energy and balance in readings', () => {
  it('[M-16] energy in kWh is the register to the Wh (rounded half up, exactly); balance is floor paise', () => {
    const m = { ...meter({ mode: 'postpaid' }), energy: 12_345_678_901_234_567n, balance: -1n };
    const s = readingsAt(m, T0);
    expect(s.energy).toBe(3429.355); // 3,429,355.25 Wh
    expect(s.balance).toBe(-1);
    const wh = 3_600_000_000n; // mW·ms
    const at = (energy: bigint) => readingsAt({ ...m, energy }, T0).energy;
    expect(at(wh / 2n - 1n)).toBe(0);
    expect(at(wh / 2n)).toBe(0.001);
    expect(at(942_241n * wh + wh / 2n + 1n)).toBe(942.242);
    // Beyond 2^53 mW·ms (about 2,502 kWh) the bigint path:
    expect(at(2_600_000n * wh + wh / 2n - 1n)).toBe(2600);
    expect(at(2_600_000n * wh + wh / 2n)).toBe(2600.001);
  });
});

describe('determinism', () => {
  it('the same seeds give the same samples', () => {
    const a = dayOfSamples(meter({ model: 'full', mode: 'postpaid', load: household, seed: 5 }));
    const b = dayOfSamples(meter({ model: 'full', mode: 'postpaid', load: household, seed: 5 }));
    expect(a).toStrictEqual(b);
  });

  it('a different meter seed gives different voltages', () => {
    const a = dayOfSamples(meter({ mode: 'postpaid', load: household, seed: 5 }));
    const b = dayOfSamples(meter({ mode: 'postpaid', load: household, seed: 6 }));
    const differ = a.filter((s, i) => s.voltage !== b[i]!.voltage).length;
    expect(differ).toBeGreaterThan(1300);
    expect(a.map((s) => s.active_power)).toEqual(b.map((s) => s.active_power)); // same load seed
  });

  it('a different load seed gives different power', () => {
    const a = dayOfSamples(meter({ mode: 'postpaid', load: household }));
    const b = dayOfSamples(meter({ mode: 'postpaid', load: { ...household, seed: 12 } }));
    expect(a.filter((s, i) => s.active_power !== b[i]!.active_power).length).toBeGreaterThan(1300);
  });

  it('voltage sags in the evening and is constant within a minute', () => {
    const at = (h: number) => {
      let sum = 0;
      for (let d = 0; d < 30; d++) sum += voltageAt(3, T0 + d * DAY + h * 60 * MINUTE);
      return sum / 30;
    };
    expect(at(3)).toBeGreaterThan(237);
    expect(at(20.5)).toBeLessThan(233);
    expect(voltageAt(3, T0 + 5 * MINUTE)).toBe(voltageAt(3, T0 + 6 * MINUTE - 1));
  });
});
