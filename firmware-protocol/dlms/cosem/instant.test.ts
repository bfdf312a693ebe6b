// The instantaneous row and the scaler rows [CO-7.1, CO-7.2].
import { describe, expect, it } from 'vitest';
import { instantaneousRow, scalerRow } from './instant.ts';
import { OBIS } from './obis.ts';
import { ZERO_COUNTERS } from './values.ts';

const m = {
  sample: { ts: 1_000_000, energy: 12.345, active_power: 100.04, voltage: 229.995, balance: 500 },
  state: {
    ts: 0,
    mode: 'prepaid' as const,
    relay_commanded: true,
    relay_state: true,
    eb_tariff: 800,
    dg_tariff: 2000,
    active_tariff: 1 as const,
    balance: 600,
    pg_enabled: false,
    wifi_type: 'Primary' as const,
  },
  info: { device_id: 'MTR-1', firmware: '1', has_relay: true, model: 'basic' as const },
  counters: { ...ZERO_COUNTERS, apparentEnergyVah: 13_000, billingCount: 2 },
};

describe('instantaneous profile row [CO-7.1]', () => {
  it("[CO-7.1, CO-6.4] every column in order; a basic meter's profile has no column it does not measure", () => {
    expect(instantaneousRow(m)).toEqual([
      1_000_000, // clock
      23000, // 229.995 V rounds to 230.00 (CO-3.3)
      5000, // 50.00 Hz (CO-6.6)
      1000, // 100.0 W
      12_345, // Wh
      13_000, // VAh
      0, // power-on minutes
      0, // tamper count
      2, // billing count
      0, // programming count
      0,
      0, // export
      500, // the sample's balance, newer than the state's (CO-9.2)
    ]);
  });
  it('[CO-7.1] a full meter: phase and neutral current, power factor, VA and var in their places', () => {
    const full = {
      ...m,
      sample: {
        ...m.sample,
        current: 0.4351,
        power_factor: 0.92,
        apparent_power: 108.7,
        reactive_power: 42.6,
      },
      info: { ...m.info, model: 'full' as const },
    };
    const row = instantaneousRow(full);
    expect(row).toHaveLength(18);
    expect([row[2], row[3], row[4], row[6], row[16]]).toEqual([435, 435, 920, 1087, 426]);
  });
});

describe('scaler profiles [CO-7.2]', () => {
  it('[CO-7.2] the block load scaler row: average voltage, block kWh, block kVAh, cumulative kWh', () => {
    expect(scalerRow(OBIS.blockLoadScaler)).toEqual([
      { scaler: -2, unit: 35 },
      { scaler: 0, unit: 30 },
      { scaler: 0, unit: 31 },
      { scaler: 0, unit: 30 },
    ]);
  });
  it('[CO-7.2] every scaler profile has a row; a data profile has none', () => {
    for (const p of [OBIS.instantaneousScaler, OBIS.dailyLoadScaler, OBIS.billingScaler]) {
      expect(scalerRow(p)!.length).toBeGreaterThan(0);
    }
    expect(scalerRow(OBIS.blockLoadProfile)).toBeNull();
  });
});
