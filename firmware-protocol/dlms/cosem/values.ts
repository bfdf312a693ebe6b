// From the meter the MQTT contract describes to register values, and back [CO-6, CO-9]. Pure.

import type { MeterModel, Mode, ReportedState, Sample } from '../../mqtt/vocabulary.ts';
import { MODES } from '../../mqtt/vocabulary.ts';
import { OBIS } from './obis.ts';
import { findObject, type MeterKind } from './object-list.ts';
import type { Obis, ScaledValue, UnitName } from './types.ts';

/** The parts of the contract's `info` (MC-4.2) the object model shows. InfoPayload fits it. */
export interface MeterInfo {
  device_id: string;
  firmware: string;
  has_relay: boolean;
  /** [CO-6.4] What the meter measures: a `basic` meter has no current, power factor, VA or var. */
  model: MeterModel;
  serial?: string;
}

/** [CO-2.5] Which objects a meter with this info has (object-list.ts). */
export function kindOf(info: MeterInfo): MeterKind {
  return { hasRelay: info.has_relay, model: info.model };
}

/**
 * [CO-6.7] What a DLMS meter counts that the MQTT contract does not carry. The DLMS meter adapter keeps
 * these (advanceCounters); a bridge reads them from the meter.
 */
export interface MeterCounters {
  /** Cumulative apparent energy, whole VAh. */
  apparentEnergyVah: number;
  powerOnMinutes: number;
  tamperCount: number;
  billingCount: number;
  programmingCount: number;
}

export const ZERO_COUNTERS: MeterCounters = {
  apparentEnergyVah: 0,
  powerOnMinutes: 0,
  tamperCount: 0,
  billingCount: 0,
  programmingCount: 0,
};

export interface MeterSnapshot {
  sample: Sample;
  state: ReportedState;
  info: MeterInfo;
  counters: MeterCounters;
}

/** [CO-6.6] The frequency a meter shows: the contract measures none, so the nominal 50 Hz. */
export const NOMINAL_FREQUENCY_HZ = 50;

/** Rounds x × 10^-scaler to an integer: the register's value for the physical quantity x [CO-3.3]. */
export function toRegister(x: number, scaler: number): number {
  return Math.round(scaler <= 0 ? x * 10 ** -scaler : x / 10 ** scaler);
}

/** The physical value of a register, without float noise: value × 10^scaler written as a decimal. */
export function physical(v: ScaledValue): number {
  return v.scaler >= 0 ? v.value * 10 ** v.scaler : Number((v.value / 10 ** -v.scaler).toFixed(-v.scaler));
}

function scaled(obis: Obis, x: number): ScaledValue {
  const su = findObject(obis)?.scalerUnit;
  if (su === undefined) throw new TypeError(`${obis} is not a register [CO-3.1]`);
  return { value: toRegister(x, su.scaler), scaler: su.scaler, unit: su.unit };
}

/**
 * [CO-6] The value of a register (class 3) of the instantaneous kind from the meter's newest sample and
 * counters; null when the meter does not measure it (a `basic` meter has no current, CO-6.4) or the OBIS
 * code is not such a register.
 */
export function registerValue(obis: Obis, m: MeterSnapshot): ScaledValue | null {
  const s = m.sample;
  const opt = (x: number | undefined) => (x === undefined ? null : scaled(obis, x));
  switch (obis) {
    case OBIS.voltage:
      return scaled(obis, s.voltage);
    case OBIS.phaseCurrent:
    case OBIS.neutralCurrent: // [CO-6.5] no earth leakage modelled: neutral carries the phase current.
      return opt(s.current);
    case OBIS.powerFactor:
      return opt(s.power_factor);
    case OBIS.frequency:
      return scaled(obis, NOMINAL_FREQUENCY_HZ);
    case OBIS.apparentPower:
      return opt(s.apparent_power);
    case OBIS.activePower:
      return scaled(obis, s.active_power);
    case OBIS.reactivePower:
      return opt(s.reactive_power);
    case OBIS.energyKwh:
      return scaled(obis, s.energy * 1000); // kWh → Wh [CO-6.2]
    case OBIS.energyKvah:
      return scaled(obis, m.counters.apparentEnergyVah);
    case OBIS.energyKwhExport:
    case OBIS.energyKvahExport:
      return scaled(obis, 0); // [CO-6.2] a consumer meter here never exports.
    case OBIS.powerOnMinutes:
      return scaled(obis, m.counters.powerOnMinutes);
    default:
      return null;
  }
}

/** [CO-6.3] The counters (class 1 Data). */
export function counterValue(obis: Obis, m: MeterSnapshot): number | null {
  if (obis === OBIS.tamperCount) return m.counters.tamperCount;
  if (obis === OBIS.billingCount) return m.counters.billingCount;
  if (obis === OBIS.programmingCount) return m.counters.programmingCount;
  return null;
}

/** Fractions of a unit carried between calls, in exact integers: deci-VA·ms and ms. */
export interface CounterCarry {
  dvaMs: number;
  ms: number;
}
const DVAMS_PER_VAH = 36_000_000;

/**
 * [CO-6.7] The counters after the meter moved from sample `prev` to `next`: apparent energy integrates
 * apparent power (|active power| where the meter measures none) held from `prev`, power-on minutes count
 * while the relay is closed. Fractions are carried as integers, so rounding never loses energy.
 */
export function advanceCounters(
  c: MeterCounters,
  prev: Sample,
  next: Sample,
  relayClosed: boolean,
  carry: CounterCarry = { dvaMs: 0, ms: 0 },
): { counters: MeterCounters; carry: CounterCarry } {
  const dt = Math.max(0, next.ts - prev.ts);
  const dva = Math.round((prev.apparent_power ?? Math.abs(prev.active_power)) * 10);
  const dvaMs = carry.dvaMs + dva * dt;
  const ms = carry.ms + (relayClosed ? dt : 0);
  return {
    counters: {
      ...c,
      apparentEnergyVah: c.apparentEnergyVah + Math.floor(dvaMs / DVAMS_PER_VAH),
      powerOnMinutes: c.powerOnMinutes + Math.floor(ms / 60_000),
    },
    carry: { dvaMs: dvaMs % DVAMS_PER_VAH, ms: ms % 60_000 },
  };
}

/** [CO-9.4] The meterstack mode Data object's enum: the index in MODES (0 prepaid … 3 relay_off). */
export function modeValue(mode: Mode): number {
  return MODES.indexOf(mode);
}

export function modeFromValue(v: number): Mode | null {
  return MODES[v] ?? null;
}

/** [CO-9.1] Account attribute 2: mode 2 prepayment for `prepaid`, 1 credit otherwise; status 2 active. */
export function accountModeAndStatus(mode: Mode): { mode: 1 | 2; status: 2 } {
  return { mode: mode === 'prepaid' ? 2 : 1, status: 2 };
}

/** [CO-9.1] Account attribute 15: money in paise is rupees at scale −2, a monetary unit (2). */
export const CURRENCY = { name: 'INR', scale: -2, unit: 2 } as const;

/**
 * [CO-9] The prepayment and tariff values from the reported state and the newest sample: the balance is
 * the newer of the two (a sample carries the balance as consumption lowers it, MC-7.4; a state carries
 * a recharge, MC-5.1), with the time it is true.
 */
export function prepaidValues(state: ReportedState, sample?: Sample) {
  const newer = sample !== undefined && sample.ts > state.ts ? sample : state;
  return {
    balance: newer.balance,
    balanceTs: newer.ts,
    accountMode: accountModeAndStatus(state.mode),
    mode: modeValue(state.mode),
    ebTariff: state.eb_tariff,
    dgTariff: state.dg_tariff,
    activeTariff: state.active_tariff,
    paymentGateway: state.pg_enabled,
  };
}

export type Readback = { ok: true; sample: Sample } | { ok: false; rule: string; message: string };

/** The contract's unit and resolution (MC-4.4) of each register a bridge turns back into a sample. */
const BACK: Record<string, { key: keyof Sample; unit: UnitName; factor: number; digits: number }> = {
  [OBIS.voltage]: { key: 'voltage', unit: 'V', factor: 1, digits: 2 },
  [OBIS.phaseCurrent]: { key: 'current', unit: 'A', factor: 1, digits: 3 },
  [OBIS.powerFactor]: { key: 'power_factor', unit: 'count', factor: 1, digits: 3 },
  [OBIS.apparentPower]: { key: 'apparent_power', unit: 'VA', factor: 1, digits: 1 },
  [OBIS.activePower]: { key: 'active_power', unit: 'W', factor: 1, digits: 1 },
  [OBIS.reactivePower]: { key: 'reactive_power', unit: 'var', factor: 1, digits: 1 },
  [OBIS.energyKwh]: { key: 'energy', unit: 'Wh', factor: 1 / 1000, digits: 3 },
};

/**
 * [CO-10.1] The bridge's way back: register values read from a meter (with the scaler and unit the
 * meter states, which need not be ours) to a contract Sample at `ts`, each value rounded to the
 * contract's resolution. Voltage, active power and energy are required (MC-4.3); a register in another
 * unit is refused naming CO-10.2.
 */
export function sampleFromRegisters(
  values: ReadonlyMap<Obis, ScaledValue>,
  ts: number,
  balance: number,
): Readback {
  const sample: Record<string, number> = { ts, balance };
  for (const [obis, v] of values) {
    const back = BACK[obis];
    if (back === undefined) continue;
    if (v.unit !== back.unit) {
      return { ok: false, rule: 'CO-10.2', message: `${obis} in ${v.unit}, expected ${back.unit}` };
    }
    const x = physical(v) * back.factor;
    sample[back.key] = Number(x.toFixed(back.digits));
  }
  for (const key of ['voltage', 'active_power', 'energy'] as const) {
    if (sample[key] === undefined) return { ok: false, rule: 'CO-10.1', message: `no ${key} register read` };
  }
  return { ok: true, sample: sample as unknown as Sample };
}

/** [CO-5.3] The FLAG id that begins the logical device name (not a registered one: see COSEM.md). */
export const FLAG_ID = 'MSK';
/** [CO-5.4] Meter type 5: single phase, two wire. */
export const METER_TYPE_1P2W = 5;

/**
 * [CO-5.2, CO-5.3, CO-5.4] The management and name plate values from the contract's info: the logical
 * device name is the FLAG id and the serial (the device id where the meter sends none), 16 characters at
 * most; the SAP assignment has the one logical device, the management device at server SAP 1.
 */
export function nameplateValues(info: MeterInfo) {
  const serial = info.serial ?? info.device_id;
  const ldn = `${FLAG_ID}${serial}`.slice(0, 16);
  return {
    logicalDeviceName: ldn,
    sapAssignment: [{ sap: 1, logicalDeviceName: ldn }],
    serialNumber: serial,
    manufacturer: 'meterstack',
    firmwareVersion: info.firmware,
    meterType: METER_TYPE_1P2W,
  };
}
