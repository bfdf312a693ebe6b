// [CL-9.1, CL-9.2] What a DLMS meter is, learnt from its object list, and its registers read into the
// contract: `info` declares what the meter has, `state` and samples come from one GET with-list per
// poll. Pure: the bridge does the reading.

import type { AttributeDescriptor, GetDataResult } from '../../../firmware-protocol/dlms/apdu/cosem.ts';
import { attribute } from '../../../firmware-protocol/dlms/client/calls.ts';
import {
  booleanFrom,
  instantFrom,
  type ListedObject,
  numberFrom,
  scalerUnitFrom,
  textFrom,
} from '../../../firmware-protocol/dlms/client/values.ts';
import { relayFromDisconnect } from '../../../firmware-protocol/dlms/cosem/disconnect.ts';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import type { Obis, ScaledValue, UnitName } from '../../../firmware-protocol/dlms/cosem/types.ts';
import { modeFromValue, sampleFromRegisters } from '../../../firmware-protocol/dlms/cosem/values.ts';
import type { InfoPayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import type { ReportedState, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { PROPERTY_CATALOGUE } from '../../../simulator/meter/index.ts';

/** [CL-9.2] The registers read back into a sample (CO-10.1), with the contract property each one is. */
const LIVE: readonly { obis: Obis; property: string }[] = [
  { obis: OBIS.energyKwh, property: 'energy' },
  { obis: OBIS.activePower, property: 'active_power' },
  { obis: OBIS.voltage, property: 'voltage' },
  { obis: OBIS.phaseCurrent, property: 'current' },
  { obis: OBIS.powerFactor, property: 'power_factor' },
  { obis: OBIS.apparentPower, property: 'apparent_power' },
  { obis: OBIS.reactivePower, property: 'reactive_power' },
];
const REQUIRED = [OBIS.energyKwh, OBIS.activePower, OBIS.voltage];
/** Block load columns that are registers: their scalers are read with the live ones. */
const PROFILE_REGISTERS = [OBIS.averageVoltage, OBIS.blockKwh, OBIS.blockKvah];

export interface MeterModel {
  listed: ReadonlySet<Obis>;
  /** Live registers the meter lists, in LIVE's order. */
  registers: Obis[];
  disconnect: boolean;
  credit: boolean;
  blockLoad: boolean;
  /** meterstack's own Data objects (CO-9.4), where the meter lists them. */
  mode: boolean;
  ebTariff: boolean;
  dgTariff: boolean;
  activeTariff: boolean;
  gateway: boolean;
}

/** [CL-9.1] The meter from its object list; an error when it lacks a register the contract requires. */
export function modelFromList(list: readonly ListedObject[]): MeterModel | { error: string } {
  const listed = new Set(list.map((o) => o.obis));
  const missing = REQUIRED.filter((o) => !listed.has(o));
  if (missing.length > 0) return { error: `the meter lists no ${missing.join(', ')} [CL-9.1]` };
  return {
    listed,
    registers: LIVE.map((l) => l.obis).filter((o) => listed.has(o)),
    disconnect: listed.has(OBIS.disconnectControl),
    credit: listed.has(OBIS.credit),
    blockLoad: listed.has(OBIS.blockLoadProfile) && listed.has(OBIS.clock),
    mode: listed.has(OBIS.mode),
    ebTariff: listed.has(OBIS.ebTariff),
    dgTariff: listed.has(OBIS.dgTariff),
    activeTariff: listed.has(OBIS.activeTariff),
    gateway: listed.has(OBIS.paymentGateway),
  };
}

export type Scalers = Map<Obis, { scaler: number; unit: UnitName }>;

/** [CL-9.1] Attribute 3 (scaler_unit) of every register the bridge reads, live and in the profile. */
export function scalerAttributes(m: MeterModel): AttributeDescriptor[] {
  const profile = m.blockLoad ? PROFILE_REGISTERS.filter((o) => m.listed.has(o)) : [];
  return [...m.registers, ...profile].map((o) => attribute(3, o, 3));
}

export function scalersFrom(attrs: AttributeDescriptor[], results: GetDataResult[]): Scalers {
  const out: Scalers = new Map();
  attrs.forEach((a, i) => {
    const r = results[i];
    const su = r?.kind === 'data' ? scalerUnitFrom(r.data) : null;
    if (su) out.set(a.instance, su);
  });
  return out;
}

/** [CL-9.1] The name plate read once per association: serial, manufacturer, firmware (where listed). */
export const NAME_PLATE: readonly { key: 'serial' | 'manufacturer' | 'firmware'; obis: Obis }[] = [
  { key: 'serial', obis: OBIS.serialNumber },
  { key: 'manufacturer', obis: OBIS.manufacturer },
  { key: 'firmware', obis: OBIS.firmwareVersion },
];
export type Identity = Partial<Record<'serial' | 'manufacturer' | 'firmware', string>>;

const SERIAL_OK = /^[\x21-\x7e]{1,64}$/; // [MC-4.5] printable ASCII

/** [CL-9.1] info: `full` when the meter measures current, the properties it lists, a relay if it has one. */
export function infoOf(deviceId: string, m: MeterModel, id: Identity, pollS: number): InfoPayload {
  const model = m.registers.includes(OBIS.phaseCurrent) ? 'full' : 'basic';
  const has = new Set(LIVE.filter((l) => m.registers.includes(l.obis)).map((l) => l.property));
  const firmware = (id.firmware ?? 'unknown').replace(/[^\x20-\x7e]/g, '?').slice(0, 48);
  return {
    v: 1,
    device_id: deviceId,
    model,
    firmware: `dlms:${firmware}`,
    has_relay: m.disconnect,
    telemetry_period_s: pollS,
    properties: PROPERTY_CATALOGUE[model].filter((p) => has.has(p.property_id)),
    ...(id.serial && SERIAL_OK.test(id.serial) ? { serial: id.serial } : {}),
  };
}

export type PollKey =
  | 'register'
  | 'clock'
  | 'credit'
  | 'output'
  | 'control'
  | 'mode'
  | 'eb'
  | 'dg'
  | 'active'
  | 'pg';

/** [CL-9.2] One poll's GET with-list: the live registers, the clock, and what the state needs. */
export function pollAttributes(m: MeterModel): { key: PollKey; attribute: AttributeDescriptor }[] {
  const items: { key: PollKey; attribute: AttributeDescriptor }[] = m.registers.map((o) => ({
    key: 'register',
    attribute: attribute(3, o, 2),
  }));
  const add = (on: boolean, key: PollKey, classId: number, obis: Obis, attr = 2) => {
    if (on) items.push({ key, attribute: attribute(classId, obis, attr) });
  };
  add(m.listed.has(OBIS.clock), 'clock', 8, OBIS.clock);
  add(m.credit, 'credit', 112, OBIS.credit);
  add(m.disconnect, 'output', 70, OBIS.disconnectControl, 2);
  add(m.disconnect, 'control', 70, OBIS.disconnectControl, 3);
  add(m.mode, 'mode', 1, OBIS.mode);
  add(m.ebTariff, 'eb', 1, OBIS.ebTariff);
  add(m.dgTariff, 'dg', 1, OBIS.dgTariff);
  add(m.activeTariff, 'active', 1, OBIS.activeTariff);
  add(m.gateway, 'pg', 1, OBIS.paymentGateway);
  return items;
}

/** The state's optional values as the meter gave them: a key is absent where the meter gave none. */
export type PollValues = Readonly<Partial<Record<PollKey, number | boolean | null>>>;

export type PollReading =
  | { ok: true; sample: Sample; state: ReportedState; meterClockMs: number | null; values: PollValues }
  | { ok: false; message: string };

/**
 * [CL-9.2] A poll's answers into a sample and a state at the bridge's `ts` (CO-10.1, CO-10.3). A register
 * the meter refused, or without its scaler, fails the poll; so does an unknown control_state (CO-10.3).
 */
export function readPoll(
  items: readonly { key: PollKey; attribute: AttributeDescriptor }[],
  results: readonly GetDataResult[],
  scalers: Scalers,
  ts: number,
  offsetMin: number,
): PollReading {
  if (results.length !== items.length)
    return { ok: false, message: `${results.length} results for ${items.length} reads` };
  const values = new Map<Obis, ScaledValue>();
  const v: Partial<Record<PollKey, number | boolean | null>> = {};
  let meterClockMs: number | null = null;
  for (let i = 0; i < items.length; i++) {
    const { key, attribute: a } = items[i]!;
    const r = results[i]!;
    if (r.kind === 'error') {
      if (key === 'register' && REQUIRED.includes(a.instance as never))
        return { ok: false, message: `${a.instance} refused (data-access-result ${r.result})` };
      continue; // [CL-9.2] an optional value the meter does not give is left out, never guessed
    }
    if (key === 'register') {
      const su = scalers.get(a.instance);
      const n = numberFrom(r.data);
      if (su && n !== null) values.set(a.instance, { value: n, scaler: su.scaler, unit: su.unit });
    } else if (key === 'clock') meterClockMs = instantFrom(r.data, offsetMin);
    else if (key === 'output' || key === 'pg') v[key] = booleanFrom(r.data);
    else v[key] = numberFrom(r.data);
  }
  const balance = typeof v.credit === 'number' ? v.credit : 0;
  const read = sampleFromRegisters(values, ts, balance);
  if (!read.ok) return { ok: false, message: `[${read.rule}] ${read.message}` };
  let relay = { relay_state: true, relay_commanded: true };
  if (typeof v.output === 'boolean' && typeof v.control === 'number') {
    const back = relayFromDisconnect({ outputState: v.output, controlState: v.control });
    if (back === null) return { ok: false, message: `control_state ${v.control} unknown [CO-10.3]` };
    relay = back;
  }
  const mode = typeof v.mode === 'number' ? modeFromValue(v.mode) : null;
  const state: ReportedState = {
    ts,
    // [CL-9.2] Without meterstack's mode object: prepaid where the meter keeps credit, else it only measures.
    mode: mode ?? (typeof v.credit === 'number' ? 'prepaid' : 'measurement'),
    ...relay,
    eb_tariff: typeof v.eb === 'number' ? v.eb : 0,
    dg_tariff: typeof v.dg === 'number' ? v.dg : 0,
    active_tariff: v.active === 2 ? 2 : 1,
    balance,
    pg_enabled: v.pg === true,
    wifi_type: 'Primary',
  };
  return { ok: true, sample: read.sample, state, meterClockMs, values: v };
}

/** [CL-9.1] Text of a name plate answer, or undefined. */
export function identityFrom(results: readonly GetDataResult[]): Identity {
  const id: Identity = {};
  NAME_PLATE.forEach((n, i) => {
    const r = results[i];
    const text = r?.kind === 'data' ? textFrom(r.data) : null;
    if (text) id[n.key] = text.trim();
  });
  return id;
}
