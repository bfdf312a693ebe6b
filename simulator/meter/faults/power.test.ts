import { describe, expect, it } from 'vitest';
import { step } from '../step.ts';
import { advance, HOUR, MINUTE, meter, paise, samples, states, T0 } from '../test-helpers.ts';
import type { MeterModel, MeterState, Mode } from '../types.ts';
import { powered } from './power.ts';
import { fault } from './test-faults.ts';

const withFault = (s: MeterState, f: ReturnType<typeof fault>, now = s.lastTs) =>
  step(s, { type: 'add_fault', fault: f }, now);

describe('[M-18] power outage', () => {
  const load = { kind: 'constant', watts: 1000 } as const;

  it('[M-18] nothing flows, nothing is billed, no sample is produced while it lasts; the schedule runs on', () => {
    const s0 = meter({ load, balance: 10_000 });
    const { state } = withFault(s0, fault('power_outage', {}, T0 + 10 * MINUTE, T0 + 70 * MINUTE));
    const r = step(state, { type: 'advance' }, T0 + 2 * HOUR);
    const ts = samples(r.effects).map((x) => (x.ts - T0) / MINUTE);
    expect(ts).toEqual([...range(1, 9), ...range(70, 120)]);
    // 1 kW for 60 of the 120 minutes: 1 kWh at 800 paise.
    expect(r.state.energy).toBe(3_600_000_000_000n);
    expect(r.state.balance).toBe(paise(10_000 - 800));
    expect(r.state.faults).toEqual([]); // [M-24] dropped once past `until`
  });

  it('[M-18] powered() is false exactly over [from, until)', () => {
    const f = fault('power_outage', {}, 1000, 2000);
    const s = { faults: [f] };
    expect([999, 1000, 1999, 2000].map((t) => powered(s, t))).toEqual([true, false, false, true]);
    expect(powered({ faults: [] }, 1500)).toBe(true);
  });

  // [M-18] the relay after restoration: basic powers up commanded ON, full keeps its command.
  it.each<[MeterModel, Mode, boolean, number, boolean, boolean]>([
    ['basic', 'postpaid', false, 0, true, true],
    ['full', 'postpaid', false, 0, false, false],
    ['full', 'postpaid', true, 0, true, true],
    ['basic', 'prepaid', false, -5, true, false],
    ['basic', 'relay_off', false, 0, true, false],
  ])(
    '[M-18] %s in %s, commanded %s, balance %d: after restoration commanded %s, closed %s',
    (model, mode, commanded, balance, afterCommanded, closed) => {
      const s0 = meter({ model, mode, relayCommanded: commanded, balance });
      const { state } = withFault(s0, fault('power_outage', {}, T0 + MINUTE, T0 + HOUR));
      const r = advance(state, T0 + HOUR);
      expect(r.state.relayCommanded).toBe(afterCommanded);
      const reported = states(r.effects);
      expect(reported).toHaveLength(1); // it reports its state on power-up
      expect(reported[0]).toMatchObject({
        ts: T0 + HOUR,
        relay_commanded: afterCommanded,
        relay_state: closed,
      });
    },
  );

  it('[M-18] a command to an unpowered meter is not applied and gets no reply', () => {
    const { state } = withFault(meter({ mode: 'postpaid' }), fault('power_outage', {}, T0, T0 + HOUR));
    const r = step(
      state,
      { type: 'command', id: 'c1', command: { op: 'set_mode', mode: 'prepaid' } },
      T0 + MINUTE,
    );
    expect(r.effects).toEqual([]);
    expect(r.state.mode).toBe('postpaid');
    expect(r.state.recentCommands).toEqual([]);
  });

  it('[M-18] clearing an active outage restores the supply at that instant', () => {
    const s0 = meter({ model: 'basic', relayCommanded: false, mode: 'postpaid' });
    const { state } = withFault(s0, fault('power_outage', {}, T0, null, 'F1'));
    const r = step(state, { type: 'clear_faults', ids: ['F1'] }, T0 + 30 * MINUTE);
    expect(r.state.faults).toEqual([]);
    expect(states(r.effects)).toEqual([expect.objectContaining({ ts: T0 + 30 * MINUTE, relay_state: true })]);
  });
});

describe('[M-19] voltage sag and swell', () => {
  it.each([
    ['voltage_sag', 180],
    ['voltage_swell', 265],
  ] as const)('[M-19] %s: samples read %d V ± 1.5 V, then the normal band again', (kind, volts) => {
    const s0 = meter({ load: { kind: 'constant', watts: 2000 } });
    const { state } = withFault(s0, fault(kind, { volts }, T0, T0 + 30 * MINUTE));
    const all = samples(advance(state, T0 + HOUR).effects);
    const during = all.filter((x) => x.ts < T0 + 30 * MINUTE);
    const after = all.filter((x) => x.ts >= T0 + 30 * MINUTE);
    expect(during).toHaveLength(29);
    for (const x of during) expect(Math.abs(x.voltage - volts)).toBeLessThanOrEqual(1.5);
    for (const x of after) expect(x.voltage).toBeGreaterThan(225);
    for (const x of after) expect(x.voltage).toBeLessThan(245);
  });

  it('[M-19] a full meter: current follows P/V, energy and billing unchanged', () => {
    const load = { kind: 'constant', watts: 2000, powerFactor: 1 } as const;
    const s0 = meter({ model: 'full', load, balance: 1000 });
    const plain = advance(s0, T0 + HOUR);
    const { state } = withFault(s0, fault('voltage_sag', { volts: 100 }, T0, null));
    const sagged = advance(state, T0 + HOUR);
    const x = samples(sagged.effects)[0]!;
    expect(x.current).toBeCloseTo(2000 / x.voltage, 2);
    expect(x.current).toBeGreaterThan(19);
    expect(sagged.state.energy).toBe(plain.state.energy);
    expect(sagged.state.balance).toBe(plain.state.balance);
  });
});

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}
