import { describe, expect, it } from 'vitest';
import type { SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { EARLIEST_TS, judgeSamples, MAX_FUTURE_SKEW_MS, stateRefusal, tsRefusal } from './plausibility.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0);
const Y2999 = Date.UTC(2999, 0, 1);
const sample = (ts: number, energy: number): SamplePayload => ({
  ts,
  energy,
  active_power: 100,
  voltage: 230,
  balance: 0,
});
const state = (ts: number): StatePayload => ({
  v: 1,
  ts,
  mode: 'prepaid',
  relay_commanded: true,
  relay_state: true,
  eb_tariff: 800,
  dg_tariff: 2000,
  active_tariff: 1,
  balance: 100,
  pg_enabled: false,
  wifi_type: 'Primary',
});

describe('[MC-3.10] tsRefusal: a plausible window around the service clock', () => {
  it.each([
    ['now', NOW, null],
    ['at the future edge', NOW + MAX_FUTURE_SKEW_MS, null],
    ['1 ms past the future edge', NOW + MAX_FUTURE_SKEW_MS + 1, 'tsInFuture'],
    ['the year 2999', Y2999, 'tsInFuture'],
    ['a sample held for a year', NOW - 365 * 86_400_000, null],
    ['a 2007 trace', Date.UTC(2007, 1, 1), null],
    ['2000-01-01 exactly', EARLIEST_TS, null],
    ['a clock never set (1970 + uptime)', 3_600_000, 'tsTooOld'],
  ] as const)('%s -> %s', (_what, ts, reason) => {
    expect(tsRefusal(ts, NOW)).toBe(reason);
  });
});

describe('[MC-5.1] stateRefusal', () => {
  it.each([
    ['the first state', state(NOW - 1000), null, null],
    ['a newer state', state(NOW), state(NOW - 1000), null],
    ['the same state again (retained, redelivered)', state(NOW), state(NOW), null],
    ['an older state', state(NOW - 1001), state(NOW - 1000), 'staleState'],
    ['a state stamped 2999', state(Y2999), state(NOW - 1000), 'tsInFuture'],
  ] as const)('%s -> %s', (_what, s, current, reason) => {
    expect(stateRefusal(s, current, NOW)).toBe(reason);
  });
});

describe('[MC-7.5] judgeSamples across messages', () => {
  const held = sample(NOW - 60_000, 10);

  it('takes later samples with more energy and an earlier resent batch with less', () => {
    const v = judgeSamples([sample(NOW - 180_000, 9), sample(NOW - 120_000, 9.5)], held, NOW);
    expect(v.refused).toEqual([]);
    expect(v.newest).toBe(held);
    const w = judgeSamples([sample(NOW, 10.1)], held, NOW);
    expect(w.accepted).toHaveLength(1);
    expect(w.newest).toEqual(sample(NOW, 10.1));
  });

  it('refuses a later sample with less energy and an earlier one with more, keeping the rest', () => {
    const v = judgeSamples(
      [sample(NOW - 120_000, 11), sample(NOW - 30_000, 9), sample(NOW, 10.5)],
      held,
      NOW,
    );
    expect(v.refused.map((r) => [r.sample.ts, r.reason])).toEqual([
      [NOW - 120_000, 'energyBackwards'],
      [NOW - 30_000, 'energyBackwards'],
    ]);
    expect(v.accepted).toEqual([sample(NOW, 10.5)]);
  });

  it('[MC-3.10] a sample stamped 2999 is refused and does not become the reference', () => {
    const v = judgeSamples([sample(Y2999, 1e9)], held, NOW);
    expect(v.refused).toEqual([{ sample: sample(Y2999, 1e9), reason: 'tsInFuture' }]);
    expect(v.newest).toBe(held);
    expect(judgeSamples([sample(NOW, 10.2)], v.newest, NOW).accepted).toHaveLength(1);
  });
});

describe('[MC-7.8] judgeSamples: energy rises no faster than a meter can register', () => {
  const held = sample(NOW - 3_600_000, 10);

  it('takes 100 kWh an hour later (100 kW) and refuses 101 kWh, which would pin every honest sample after it', () => {
    expect(judgeSamples([sample(NOW, 110)], held, NOW).accepted).toHaveLength(1);
    const v = judgeSamples([sample(NOW, 111.01)], held, NOW);
    expect(v.refused).toEqual([{ sample: sample(NOW, 111.01), reason: 'energyImplausible' }]);
    expect(v.newest).toBe(held);
    // The honest meter goes on from where it was, and is taken.
    expect(judgeSamples([sample(NOW + 60_000, 10.5)], v.newest, NOW + 60_000).accepted).toHaveLength(1);
  });

  it('judges an earlier (resent) sample the same way: 1e9 kWh a minute before the held one is refused', () => {
    const v = judgeSamples([sample(NOW - 3_660_000, 1e9)], held, NOW);
    expect(v.refused.map((r) => r.reason)).toEqual(['energyBackwards']);
    const w = judgeSamples([sample(NOW - 3_660_000, 5)], held, NOW);
    expect(w.refused.map((r) => r.reason)).toEqual(['energyImplausible']);
  });
});
