// Snapshots: serializeMeter / deserializeMeter round-trip exactly, and bad text is refused clearly.

import { describe, expect, it } from 'vitest';
import { deserializeMeter, readMeterSnapshot, serializeMeter } from './serialize.ts';
import { step } from './step.ts';
import { advance, DAY, HOUR, meter, sendAll, T0 } from './test-helpers.ts';
import type { MeterState } from './types.ts';

function busyMeter(): MeterState {
  let m = meter({ model: 'full', mode: 'postpaid', load: { kind: 'household', seed: 3, peakWatts: 2222.5 } });
  m = advance(m, T0 + 3 * DAY + 17).state;
  m = sendAll(
    m,
    [
      { op: 'recharge', amount: 12_345, transactionId: 'tx-1' },
      { op: 'read' },
      { op: 'set_tariff', slot: 'eb', paise: -4 },
      { op: 'set_wifi', ssid: 'naïve 📶', password: '"quoted"\n' },
      { op: 'set_mode', mode: 'prepaid' },
    ],
    T0 + 3 * DAY + 17,
  );
  return step(m, { type: 'button', holdSeconds: 9 }, T0 + 3 * DAY + 20).state;
}

describe('serializeMeter / deserializeMeter', () => {
  it.each<[string, () => MeterState]>([
    ['a new meter', () => meter()],
    ['a meter with history, commands, config mode and odd strings', busyMeter],
    ['huge and negative registers', () => ({ ...meter(), energy: 2n ** 80n + 1n, balance: -(3n ** 50n) })],
    [
      'a constant load with a power factor',
      () => meter({ load: { kind: 'constant', watts: 0.1 + 0.2, powerFactor: 0.9 } }),
    ],
  ])('round-trips %s exactly', (_name, make) => {
    const m = make();
    const text = serializeMeter(m);
    const back = deserializeMeter(text);
    expect(back).toStrictEqual(m);
    expect(serializeMeter(back)).toBe(text);
  });

  it('a restored meter behaves identically', () => {
    const m = busyMeter();
    const later = T0 + 5 * DAY + HOUR;
    expect(advance(deserializeMeter(serializeMeter(m)), later)).toStrictEqual(advance(m, later));
  });

  it('[M-15] reads a snapshot written before the charged register as chargedKnown: false', () => {
    const m = busyMeter();
    expect(readMeterSnapshot(serializeMeter(m))).toStrictEqual({ state: m, chargedKnown: true });
    const old = JSON.parse(serializeMeter(m));
    delete old.charged;
    expect(readMeterSnapshot(JSON.stringify(old))).toStrictEqual({
      state: { ...m, charged: 0n },
      chargedKnown: false,
    });
  });

  it('writes bigints as decimal strings', () => {
    const json = JSON.parse(serializeMeter({ ...meter(), balance: -123n }));
    expect(json.balance).toBe('-123');
    expect(json.v).toBe(1);
  });

  it.each<[string, (o: Record<string, unknown>) => void]>([
    ['an unknown version', (o) => (o.v = 2)],
    ['energy as a number', (o) => (o.energy = 5)],
    ['balance not an integer', (o) => (o.balance = '1.5')],
    ['a missing deviceId', (o) => delete o.deviceId],
    ['a bad mode', (o) => (o.mode = 'PREPAID')],
    ['a bad active tariff', (o) => (o.activeTariff = 3)],
    ['a bad load', (o) => (o.load = { kind: 'constant', watts: -1 })],
    ['recentRecharges of numbers', (o) => (o.recentRecharges = [1])],
  ])('refuses %s with a TypeError', (_name, spoil) => {
    const o = JSON.parse(serializeMeter(meter()));
    spoil(o);
    expect(() => deserializeMeter(JSON.stringify(o))).toThrow(TypeError);
  });
});
