import { describe, expect, it } from 'vitest';
import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { FIRST_REGISTER, judgeJoined, needsJoin, type RegisterContinuity } from './register-continuity.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0);
const MIN = 60_000;
const s = (ts: number, energy: number, register_epoch?: number): SamplePayload => ({
  ts,
  energy,
  active_power: 100,
  voltage: 230,
  balance: 0,
  ...(register_epoch === undefined ? {} : { register_epoch }),
});
const held = (epoch: number, offsetKwh: number): RegisterContinuity => ({ epoch, offsetKwh });
const T = NOW - 10 * MIN;

describe('[MC-7.9] [MC-7.10] judgeJoined: one continuous energy series', () => {
  it.each<
    [
      string,
      { samples: SamplePayload[]; newest: SamplePayload | null; reg: RegisterContinuity; max?: number },
      { energies: number[]; refused: string[]; reg: RegisterContinuity; events: string[] },
    ]
  >([
    [
      'a register never reset: values as sent',
      { samples: [s(T + MIN, 10.5)], newest: s(T, 10), reg: FIRST_REGISTER },
      { energies: [10.5], refused: [], reg: FIRST_REGISTER, events: [] },
    ],
    [
      'a reset (epoch 0 → 1): the old register’s last value becomes the offset',
      {
        samples: [s(T + MIN, 10.02), s(T + 2 * MIN, 0.004, 1), s(T + 3 * MIN, 0.02, 1)],
        newest: s(T, 10),
        reg: FIRST_REGISTER,
      },
      {
        energies: [10.02, 10.024, 10.04],
        refused: [],
        reg: held(1, 10.02),
        events: ['meter.register_reset'],
      },
    ],
    [
      'a second reset adds the second register’s last value',
      { samples: [s(T + MIN, 0.5, 2)], newest: s(T, 10.3), reg: held(1, 10) },
      { energies: [10.8], refused: [], reg: held(2, 10.3), events: ['meter.register_reset'] },
    ],
    [
      'an epoch going backwards is refused (a meter cannot forge a lower offset)',
      { samples: [s(T + MIN, 50, 0)], newest: s(T, 10.3), reg: held(1, 10) },
      { energies: [], refused: ['registerEpoch'], reg: held(1, 10), events: [] },
    ],
    [
      'a new epoch stamped before the newest sample is refused',
      { samples: [s(T - MIN, 0.1, 1)], newest: s(T, 10), reg: FIRST_REGISTER },
      { energies: [], refused: ['registerEpoch'], reg: FIRST_REGISTER, events: [] },
    ],
    [
      'a rollover near the declared maximum adds the maximum',
      {
        samples: [s(T + MIN, 99.995), s(T + 2 * MIN, 0.01)],
        newest: s(T, 99.98),
        reg: FIRST_REGISTER,
        max: 100,
      },
      { energies: [99.995, 100.01], refused: [], reg: held(0, 100), events: ['meter.register_rollover'] },
    ],
    [
      'a second rollover on top of a reset offset',
      { samples: [s(T + MIN, 0.02, 1)], newest: s(T, 199.99), reg: held(1, 100), max: 100 },
      { energies: [200.02], refused: [], reg: held(1, 200), events: ['meter.register_rollover'] },
    ],
    [
      'a fall far from the maximum is still refused [MC-7.5]',
      { samples: [s(T + MIN, 0.01)], newest: s(T, 50), reg: FIRST_REGISTER, max: 100 },
      { energies: [], refused: ['energyBackwards'], reg: FIRST_REGISTER, events: [] },
    ],
    [
      'a fall without a declared maximum is refused [MC-7.5]',
      { samples: [s(T + MIN, 0.01)], newest: s(T, 99.99), reg: FIRST_REGISTER },
      { energies: [], refused: ['energyBackwards'], reg: FIRST_REGISTER, events: [] },
    ],
    [
      'a reset sample refused for its time changes nothing [MC-3.10]',
      { samples: [s(NOW + 3_600_000, 0.1, 1)], newest: s(T, 10), reg: FIRST_REGISTER },
      { energies: [], refused: ['tsInFuture'], reg: FIRST_REGISTER, events: [] },
    ],
    [
      'a joined value beyond what a meter can register is refused [MC-7.8]',
      { samples: [s(T + MIN, 5, 1)], newest: s(T, 10), reg: FIRST_REGISTER },
      { energies: [], refused: ['energyImplausible'], reg: FIRST_REGISTER, events: [] },
    ],
    [
      'the first sample ever in epoch 1 (reset before the service knew the meter): no event, no offset',
      { samples: [s(T, 3, 1)], newest: null, reg: FIRST_REGISTER },
      { energies: [3], refused: [], reg: held(1, 0), events: [] },
    ],
  ])('%s', (_name, given, want) => {
    const v = judgeJoined(given.samples, given.newest, given.reg, given.max, NOW);
    expect(v.accepted.map((x) => x.energy)).toEqual(want.energies);
    expect(v.refused.map((r) => r.reason)).toEqual(want.refused);
    expect(v.register).toEqual(want.reg);
    expect(v.events.map((e) => e.type)).toEqual(want.events);
  });

  it('the reset event says the epoch, the offset and the old register’s last value', () => {
    const v = judgeJoined([s(T + MIN, 0.5, 2)], s(T, 10.3), held(1, 10), undefined, NOW);
    expect(v.events).toEqual([
      { type: 'meter.register_reset', data: { epoch: 2, offset_kwh: 10.3, last_kwh: 0.3 }, ts: T + MIN },
    ]);
  });

  it('needsJoin: false only for a register never reset, with no maximum and no epoch in the message', () => {
    expect(needsJoin([s(T, 1)], FIRST_REGISTER, undefined)).toBe(false);
    expect(needsJoin([s(T, 1), s(T + 1, 1, 1)], FIRST_REGISTER, undefined)).toBe(true);
    expect(needsJoin([s(T, 1)], held(1, 5), undefined)).toBe(true);
    expect(needsJoin([s(T, 1)], FIRST_REGISTER, 100)).toBe(true);
  });
});
