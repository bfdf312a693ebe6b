// How an SDM120 is presented under the MQTT contract: a `full` meter [MC-4.2] without a relay, modes,
// tariffs, balance or WiFi. Pure: the fixed info and state it reports, and which commands it refuses.
// Rule numbers refer to firmware-protocol/mqtt/CONTRACT.md.

import type { InfoPayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import type {
  CommandReply,
  MeterCommand,
  ReportedState,
} from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { PROPERTY_CATALOGUE } from '../../../simulator/meter/index.ts';

export const MODBUS_MODELS = ['sdm120'] as const;
export type ModbusModel = (typeof MODBUS_MODELS)[number];

/** Reported as `firmware` [MC-4.2]: the meter's own firmware is not readable over Modbus. */
export const BRIDGE_FIRMWARE = 'meterstack-modbus-sdm120/1';

/** [MC-4.2, MC-4.3] A `full` meter without a relay; samples come once per poll. */
export function infoOf(deviceId: string, pollMs: number): InfoPayload {
  return {
    v: 1,
    device_id: deviceId,
    model: 'full',
    firmware: BRIDGE_FIRMWARE,
    has_relay: false,
    telemetry_period_s: pollMs / 1000,
    properties: [...PROPERTY_CATALOGUE.full],
  };
}

/**
 * [MC-5.2] The state of a meter that only measures, fixed for its whole life:
 * - `mode: measurement`: it neither bills nor switches (the service's own default for such meters);
 * - `relay_state` and `relay_commanded` true: power always flows [MC-5.3: a meter without a relay reports true];
 * - tariffs 0, `active_tariff` 1, `balance` 0: it keeps no money;
 * - `pg_enabled` false: no gateway setting; `wifi_type: Primary`: it is wired, never in WiFi configuration mode.
 */
export function stateOf(ts: number): ReportedState {
  return {
    ts,
    mode: 'measurement',
    relay_commanded: true,
    relay_state: true,
    eb_tariff: 0,
    dg_tariff: 0,
    active_tariff: 1,
    balance: 0,
    pg_enabled: false,
    wifi_type: 'Primary',
  };
}

/** Why an SDM120 cannot perform each op but `read`: the `message` of its `unsupported` reply [MC-8.3, MC-8.7]. */
export const UNSUPPORTED: Readonly<Record<Exclude<MeterCommand['op'], 'read'>, string>> = {
  set_relay: 'SDM120 has no relay: it cannot switch the supply',
  set_mode: 'SDM120 has no operating modes: it only measures (mode is always measurement)',
  set_tariff: 'SDM120 has no tariffs: it keeps no money',
  set_active_tariff: 'SDM120 has no tariffs: it keeps no money',
  set_gateway: 'SDM120 has no gateway setting',
  set_wifi: 'SDM120 has no WiFi: it is wired to the bridge over RS485 Modbus',
  get_wifi: 'SDM120 has no WiFi: it is wired to the bridge over RS485 Modbus',
  recharge: 'SDM120 has no prepaid balance: it keeps no money',
};

/** What to do with a command: poll the meter for a `read`, refuse everything else [MC-8.3]. */
export function planCommand(
  command: MeterCommand,
): { kind: 'read' } | { kind: 'reply'; reply: CommandReply } {
  if (command.op === 'read') return { kind: 'read' };
  return {
    kind: 'reply',
    reply: { ok: false, error: { code: 'unsupported', message: UNSUPPORTED[command.op] } },
  };
}
