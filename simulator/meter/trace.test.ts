import { describe, expect, it } from 'vitest';
import { step } from './step.ts';
import { MINUTE, T0 } from './test-helpers.ts';
import { createTraceMeter } from './trace.ts';
import { type MeterEffect, type MeterState, MWMS_PER_KWH, UNITS_PER_PAISE } from './types.ts';

const KWH = MWMS_PER_KWH;

function traceMeter(opts: Parameters<typeof createTraceMeter>[0] extends infer O ? Partial<O> : never = {}) {
  return createTraceMeter({ deviceId: 'trace-1', mode: 'postpaid', ...opts }, T0);
}

function sample(s: MeterState, energy: bigint, at: number, power = 1000) {
  return step(s, { type: 'sample', energy, readings: { active_power: power, voltage: 230 } }, at);
}

const telemetry = (effects: MeterEffect[]) => effects.filter((e) => e.type === 'telemetry');
const states = (effects: MeterEffect[]) => effects.filter((e) => e.type === 'state');

describe('[M-14] trace-driven meter', () => {
  it('[M-14] never samples on its own: advancing a day emits nothing and adds no energy', () => {
    const r = step(traceMeter(), { type: 'advance' }, T0 + 86_400_000);
    expect(r.effects).toEqual([]);
    expect(r.state.energy).toBe(0n);
  });

  it('[M-14] [M-5] books and bills each sample exactly at the active tariff, one telemetry sample each', () => {
    let s = traceMeter({ ebTariff: 800, balance: 1000 });
    const e = KWH / 60n; // 1 kW for a minute
    const r1 = sample(s, e, T0 + MINUTE);
    s = r1.state;
    expect(telemetry(r1.effects)).toEqual([
      {
        type: 'telemetry',
        // 1/60 kWh, reported to the Wh [M-16]
        sample: { ts: T0 + MINUTE, energy: 0.017, active_power: 1000, voltage: 230, balance: 986 },
      },
    ]);
    expect(s.balance).toBe(1000n * UNITS_PER_PAISE - 800n * e);
    s = sample(s, e, T0 + 2 * MINUTE).state;
    expect(s.energy).toBe(2n * e);
  });

  it('[M-14] [M-5] measurement mode books energy but leaves the balance alone', () => {
    const s = sample(traceMeter({ mode: 'measurement', balance: 50 }), KWH, T0 + MINUTE).state;
    expect(s.energy).toBe(KWH);
    expect(s.balance).toBe(50n * UNITS_PER_PAISE);
  });

  it('[M-14] [M-4] with the relay open nothing flows and power reads 0', () => {
    const s0 = traceMeter({ mode: 'relay_off' });
    const r = sample(s0, KWH, T0 + MINUTE);
    expect(r.state.energy).toBe(0n);
    expect(telemetry(r.effects)[0]?.sample).toMatchObject({ active_power: 0, energy: 0 });
  });

  it('[M-14] [M-6] a prepaid sample that takes the balance below zero opens the relay at its instant', () => {
    const s0 = traceMeter({ mode: 'prepaid', ebTariff: 1000, balance: 5 }); // 5 paise = 5 Wh
    const r = sample(s0, KWH / 100n, T0 + MINUTE); // 10 Wh
    expect(r.effects.map((e) => e.type)).toEqual(['telemetry', 'state']);
    expect(states(r.effects)[0]?.state).toMatchObject({ relay_state: false, balance: -5, ts: T0 + MINUTE });
    const next = sample(r.state, KWH, T0 + 2 * MINUTE);
    expect(next.state.energy).toBe(KWH / 100n); // the open relay passes nothing more
  });

  it('[M-14] a full meter reports the four extra readings; zero power gives the zero-power values', () => {
    const s0 = traceMeter({ model: 'full' });
    const readings = {
      active_power: 900,
      voltage: 225,
      current: 4.2,
      power_factor: 0.95,
      apparent_power: 945,
      reactive_power: 288,
    };
    const r = step(s0, { type: 'sample', energy: 1n, readings }, T0 + MINUTE);
    expect(telemetry(r.effects)[0]?.sample).toMatchObject(readings);
    const z = step(s0, { type: 'sample', energy: 0n, readings: { ...readings, active_power: 0 } }, T0);
    expect(telemetry(z.effects)[0]?.sample).toMatchObject({ current: 0, power_factor: 1, apparent_power: 0 });
  });

  it('[M-14] rejects a negative energy', () => {
    expect(() => sample(traceMeter(), -1n, T0 + MINUTE)).toThrow(TypeError);
  });

  it('[M-14] [M-1] commands still work between samples, at meter time', () => {
    const s = sample(traceMeter(), 0n, T0 + MINUTE).state;
    const r = step(s, { type: 'command', id: 'c1', command: { op: 'set_relay', on: false } }, T0 + MINUTE);
    expect(r.effects.map((e) => e.type)).toEqual(['state', 'reply']);
  });
});
