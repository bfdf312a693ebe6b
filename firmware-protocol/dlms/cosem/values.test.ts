// Register values from the contract's sample, state and info, and back [CO-3, CO-6, CO-8, CO-9, CO-10].
import { describe, expect, it } from 'vitest';
import type { ReportedState, Sample } from '../../mqtt/vocabulary.ts';
import {
  CONTROL_STATE,
  commandForMethod,
  disconnectValues,
  methodForRelay,
  relayFromDisconnect,
} from './disconnect.ts';
import { OBIS } from './obis.ts';
import type { ScaledValue } from './types.ts';
import {
  accountModeAndStatus,
  advanceCounters,
  counterValue,
  type MeterSnapshot,
  modeFromValue,
  modeValue,
  nameplateValues,
  physical,
  prepaidValues,
  registerValue,
  sampleFromRegisters,
  ZERO_COUNTERS,
} from './values.ts';

const FULL: Sample = {
  ts: Date.UTC(2026, 0, 1, 0, 0, 0),
  energy: 942.242,
  active_power: 1234.5,
  voltage: 231.07,
  current: 5.343,
  power_factor: 0.998,
  apparent_power: 1237.0,
  reactive_power: 78.9,
  balance: 49_992,
};
const STATE: ReportedState = {
  ts: FULL.ts,
  mode: 'prepaid',
  relay_commanded: true,
  relay_state: true,
  eb_tariff: 800,
  dg_tariff: 2000,
  active_tariff: 1,
  balance: 49_992,
  pg_enabled: true,
  wifi_type: 'Primary',
};
const snap = (sample: Sample, state = STATE): MeterSnapshot => ({
  sample,
  state,
  info: { device_id: 'MTR-000123', firmware: '2.0.0', has_relay: true, model: 'full', serial: 'SN-1' },
  counters: { ...ZERO_COUNTERS, apparentEnergyVah: 950_100, billingCount: 3, tamperCount: 1 },
});

describe('registerValue [CO-6]', () => {
  const cases: [string, string, ScaledValue | null][] = [
    ['CO-6.1 voltage 0.01 V', OBIS.voltage, { value: 23107, scaler: -2, unit: 'V' }],
    ['CO-6.1 phase current 0.001 A', OBIS.phaseCurrent, { value: 5343, scaler: -3, unit: 'A' }],
    ['CO-6.5 neutral current = phase current', OBIS.neutralCurrent, { value: 5343, scaler: -3, unit: 'A' }],
    ['CO-6.1 signed power factor 0.001', OBIS.powerFactor, { value: 998, scaler: -3, unit: 'count' }],
    ['CO-6.6 frequency nominal 50.00 Hz', OBIS.frequency, { value: 5000, scaler: -2, unit: 'Hz' }],
    ['CO-6.1 apparent power 0.1 VA', OBIS.apparentPower, { value: 12370, scaler: -1, unit: 'VA' }],
    ['CO-6.1 active power 0.1 W', OBIS.activePower, { value: 12345, scaler: -1, unit: 'W' }],
    ['CO-6.1 reactive power 0.1 var', OBIS.reactivePower, { value: 789, scaler: -1, unit: 'var' }],
    ['CO-6.2 energy in whole Wh', OBIS.energyKwh, { value: 942_242, scaler: 0, unit: 'Wh' }],
    ['CO-6.7 kVAh from the counters', OBIS.energyKvah, { value: 950_100, scaler: 0, unit: 'VAh' }],
    ['CO-6.2 no export', OBIS.energyKwhExport, { value: 0, scaler: 0, unit: 'Wh' }],
    ['CO-6 not a register: null', OBIS.clock, null],
  ];
  it.each(cases)('[%s]', (_name, obis, expected) => {
    expect(registerValue(obis, snap(FULL))).toEqual(expected);
  });

  it('[CO-6.4] a basic meter has no current, power factor, apparent or reactive power', () => {
    const basic: Sample = { ts: 0, energy: 1.5, active_power: 0, voltage: 240, balance: 0 };
    for (const obis of [OBIS.phaseCurrent, OBIS.powerFactor, OBIS.apparentPower, OBIS.reactivePower]) {
      expect(registerValue(obis, snap(basic))).toBeNull();
    }
  });

  it('[CO-3.3] the value equals the contract value to its resolution, with no float noise', () => {
    for (const [energy, wh] of [
      [0.001, 1],
      [0.1 + 0.2, 300],
      [99999.999, 99_999_999],
    ] as const) {
      const v = registerValue(OBIS.energyKwh, snap({ ...FULL, energy }))!;
      expect(v.value).toBe(wh);
      expect(physical(v) / 1000).toBe(Number(energy.toFixed(3)));
    }
  });

  it('[CO-6.3] counters', () => {
    expect(counterValue(OBIS.billingCount, snap(FULL))).toBe(3);
    expect(counterValue(OBIS.tamperCount, snap(FULL))).toBe(1);
    expect(counterValue(OBIS.voltage, snap(FULL))).toBeNull();
  });

  it('[CO-6.7] advanceCounters integrates apparent energy and power-on time, carrying the fractions', () => {
    let c = ZERO_COUNTERS;
    let carry = { dvaMs: 0, ms: 0 };
    const s0 = { ...FULL, apparent_power: 1000 };
    for (let i = 1; i <= 90; i++) {
      ({ counters: c, carry } = advanceCounters(
        c,
        { ...s0, ts: (i - 1) * 40_000 },
        { ...s0, ts: i * 40_000 },
        true,
        carry,
      ));
    }
    expect(c.apparentEnergyVah).toBe(1000); // 3,600 s at 1,000 VA
    expect(c.powerOnMinutes).toBe(60);
  });
});

describe('prepayment [CO-9]', () => {
  it('[CO-9.2] the balance in paise is the newer of state and sample; tariffs and mode as reported', () => {
    expect(prepaidValues({ ...STATE, balance: -250 })).toEqual({
      balance: -250,
      balanceTs: STATE.ts,
      accountMode: { mode: 2, status: 2 },
      mode: 0,
      ebTariff: 800,
      dgTariff: 2000,
      activeTariff: 1,
      paymentGateway: true,
    });
    const later = { ...FULL, ts: STATE.ts + 60_000, balance: 49_900 };
    expect(prepaidValues(STATE, later)).toMatchObject({ balance: 49_900, balanceTs: later.ts });
    expect(prepaidValues(STATE, { ...later, ts: STATE.ts - 1 })).toMatchObject({ balance: 49_992 });
  });
  it.each([
    ['prepaid', 0, 2],
    ['postpaid', 1, 1],
    ['measurement', 2, 1],
    ['relay_off', 3, 1],
  ] as const)('[CO-9.1, CO-9.4] mode %s: meterstack enum %i, account mode %i', (mode, value, account) => {
    expect(modeValue(mode)).toBe(value);
    expect(modeFromValue(value)).toBe(mode);
    expect(accountModeAndStatus(mode)).toEqual({ mode: account, status: 2 });
  });
  it('[CO-9.4] an unknown mode value reads as null', () => expect(modeFromValue(7)).toBeNull());
});

describe('disconnect control [CO-8]', () => {
  const cases: [string, Partial<ReportedState>, boolean, number][] = [
    ['closed: connected', {}, true, CONTROL_STATE.connected],
    ['set_relay off: disconnected', { relay_commanded: false, relay_state: false }, false, 0],
    ['relay_off mode: disconnected', { mode: 'relay_off', relay_state: false }, false, 0],
    ['prepaid cut-off: ready_for_reconnection', { relay_state: false, balance: -1 }, false, 2],
  ];
  it.each(cases)('[CO-8.2] %s', (_n, change, output, control) => {
    const v = disconnectValues({ ...STATE, ...change }, true);
    expect(v).toEqual({ outputState: output, controlState: control, controlMode: 6 });
    const back = relayFromDisconnect(v)!;
    expect(back.relay_state).toBe(output);
    expect(back.relay_commanded).toBe(control !== 0);
  });
  it('[CO-8.3] a meter without a relay: always connected, control mode 0', () => {
    expect(disconnectValues(STATE, false)).toEqual({ outputState: true, controlState: 1, controlMode: 0 });
  });
  it('[CO-10.3] an unknown control state is refused', () => {
    expect(relayFromDisconnect({ outputState: true, controlState: 5 })).toBeNull();
  });
  it('[CO-8.1] methods 1 and 2 are set_relay off and on', () => {
    expect(commandForMethod(1)).toEqual({ op: 'set_relay', on: false });
    expect(commandForMethod(2)).toEqual({ op: 'set_relay', on: true });
    expect(commandForMethod(3)).toBeNull();
    expect([methodForRelay(false), methodForRelay(true)]).toEqual([1, 2]);
  });
});

describe('sampleFromRegisters [CO-10]', () => {
  const read = (s: Sample) =>
    new Map(
      [
        OBIS.voltage,
        OBIS.phaseCurrent,
        OBIS.powerFactor,
        OBIS.apparentPower,
        OBIS.activePower,
        OBIS.reactivePower,
        OBIS.energyKwh,
      ].map((o) => [o, registerValue(o, snap(s))!] as const),
    );
  it('[CO-10.1] our registers read back to the same sample', () => {
    expect(sampleFromRegisters(read(FULL), FULL.ts, FULL.balance)).toEqual({ ok: true, sample: FULL });
  });
  it("[CO-10.1] another meter's scalers (kWh at scaler 3 Wh, volts at -1) round to the contract", () => {
    const m = new Map<string, ScaledValue>([
      [OBIS.voltage, { value: 2311, scaler: -1, unit: 'V' }],
      [OBIS.activePower, { value: 1, scaler: 3, unit: 'W' }],
      [OBIS.energyKwh, { value: 942_242_5, scaler: -1, unit: 'Wh' }],
    ]);
    expect(sampleFromRegisters(m, 5, 0)).toEqual({
      ok: true,
      sample: { ts: 5, balance: 0, voltage: 231.1, active_power: 1000, energy: 942.243 },
    });
  });
  it('[CO-10.2] a register in another unit is refused', () => {
    const m = read(FULL);
    m.set(OBIS.voltage, { value: 1, scaler: 0, unit: 'A' });
    expect(sampleFromRegisters(m, 0, 0)).toMatchObject({ ok: false, rule: 'CO-10.2' });
  });
  it('[CO-10.1] voltage, active power and energy are required', () => {
    const m = read(FULL);
    m.delete(OBIS.energyKwh);
    expect(sampleFromRegisters(m, 0, 0)).toMatchObject({ ok: false, rule: 'CO-10.1' });
  });
});

describe('name plate [CO-5]', () => {
  it('[CO-5.3] the logical device name is the FLAG id and the serial, 16 characters at most', () => {
    const v = nameplateValues({
      device_id: 'MTR-1',
      firmware: '2.0.0',
      has_relay: true,
      model: 'full',
      serial: 'SN-2026-000125-LONG',
    });
    expect(v.logicalDeviceName).toBe('MSKSN-2026-00012');
    expect(v.sapAssignment).toEqual([{ sap: 1, logicalDeviceName: 'MSKSN-2026-00012' }]);
    expect(
      nameplateValues({ device_id: 'MTR-1', firmware: 'x', has_relay: false, model: 'basic' }).serialNumber,
    ).toBe('MTR-1');
  });
});
