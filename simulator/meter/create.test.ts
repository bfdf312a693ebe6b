// createMeter: defaults, alignment of the first sample, and option validation.

import { describe, expect, it } from 'vitest';
import { type CreateMeterOptions, createMeter, reportedState } from './create.ts';
import { MINUTE, T0 } from './test-helpers.ts';
import { MWMS_PER_KWH, UNITS_PER_PAISE } from './types.ts';

describe('createMeter', () => {
  it('fills in the documented defaults', () => {
    const m = createMeter({ deviceId: 'abc' }, T0 + 5);
    expect(m).toMatchObject({
      deviceId: 'abc',
      model: 'basic',
      firmware: 'meterstack-virtual/1.0.0',
      mode: 'prepaid',
      relayCommanded: true,
      ebTariff: 800,
      dgTariff: 2000,
      activeTariff: 1,
      pgEnabled: false,
      energy: 0n,
      balance: 0n,
      charged: 0n,
      load: { kind: 'constant', watts: 0 },
      wifi: { ssid: 'home-wifi', password: 'home-wifi-pass', configMode: false },
      lastTs: T0 + 5,
      telemetryPeriodMs: MINUTE,
      nextTelemetryTs: T0 + MINUTE,
      recentRecharges: [],
      recentCommands: [],
      faults: [],
      faultSeq: 0,
    });
    expect(reportedState(m, T0 + 5)).toEqual({
      ts: T0 + 5,
      mode: 'prepaid',
      relay_commanded: true,
      relay_state: true,
      eb_tariff: 800,
      dg_tariff: 2000,
      active_tariff: 1,
      balance: 0,
      pg_enabled: false,
      wifi_type: 'Primary',
    });
  });

  it('takes opening balance in paise and energy in kWh (to the Wh)', () => {
    const m = createMeter({ deviceId: 'a', balance: -250, energyKwh: 12_345.6789 }, T0);
    expect(m.balance).toBe(-250n * UNITS_PER_PAISE);
    expect(m.energy).toBe((12_345_679n * MWMS_PER_KWH) / 1000n);
  });

  it('treats an option given as undefined as absent', () => {
    expect(createMeter({ deviceId: 'a', model: undefined, mode: undefined }, T0)).toMatchObject({
      model: 'basic',
      mode: 'prepaid',
    });
  });

  it('derives a stable seed from the device id unless given one', () => {
    expect(createMeter({ deviceId: 'a' }, T0).seed).toBe(createMeter({ deviceId: 'a' }, T0 + 1).seed);
    expect(createMeter({ deviceId: 'a' }, T0).seed).not.toBe(createMeter({ deviceId: 'b' }, T0).seed);
    expect(createMeter({ deviceId: 'a', seed: 77 }, T0).seed).toBe(77);
  });

  it.each([
    [T0, 15 * MINUTE, T0 + 15 * MINUTE],
    [T0 - 1, 15 * MINUTE, T0],
    [T0 + 1, 15 * MINUTE, T0 + 15 * MINUTE],
    [T0 + 0.5, MINUTE, T0 + MINUTE],
  ])('created at %d with period %d: first sample at %d', (now, period, first) => {
    expect(createMeter({ deviceId: 'a', telemetryPeriodMs: period }, now).nextTelemetryTs).toBe(first);
  });

  it.each<[string, Partial<CreateMeterOptions>]>([
    ['an empty deviceId', { deviceId: '' }],
    ['an unknown model', { model: 'deluxe' as 'full' }],
    ['an unknown mode', { mode: 'free' as 'prepaid' }],
    ['a negative tariff', { ebTariff: -1 }],
    ['a fractional tariff', { dgTariff: 10.5 }],
    ['active tariff 3', { activeTariff: 3 as 1 }],
    ['fractional paise', { balance: 0.5 }],
    ['negative energy', { energyKwh: -1 }],
    ['a zero period', { telemetryPeriodMs: 0 }],
    ['a 33-character ssid', { wifi: { ssid: 'x'.repeat(33), password: '' } }],
    ['a negative load', { load: { kind: 'constant', watts: -5 } }],
    ['a fractional seed', { seed: 0.5 }],
  ])('refuses %s with a TypeError', (_name, opts) => {
    expect(() => createMeter({ deviceId: 'a', ...opts }, T0)).toThrow(TypeError);
  });
});
