// What the meter link's tests give it as the meter: an info and a state of a basic prepaid meter.

import type { InfoPayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';

/** A basic meter's info [MC-4]: energy, power and voltage. */
export function testInfo(deviceId: string): InfoPayload {
  return {
    v: 1,
    device_id: deviceId,
    model: 'basic',
    firmware: '1.0.0',
    has_relay: true,
    telemetry_period_s: 60,
    properties: [
      { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
      { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
      { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
    ],
  };
}

/** Its state at `ts` [MC-5]: prepaid, relay closed, ₹10.00. */
export function testState(ts: number): StatePayload {
  return {
    v: 1,
    ts,
    mode: 'prepaid',
    relay_commanded: true,
    relay_state: true,
    eb_tariff: 850,
    dg_tariff: 2200,
    active_tariff: 1,
    balance: 1000,
    pg_enabled: true,
    wifi_type: 'Primary',
  };
}
