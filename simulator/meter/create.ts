// A new meter from a few options, and the state it reports (spec §2 flattened metrics).

import { MAX_TARIFF_PAISE, paiseToUnits, reportedBalance } from './billing.ts';
import { meterTs } from './faults/clock.ts';
import { tamperAt } from './faults/tamper.ts';
import { clonePolicy, lowBalanceOf, type PrepaidPolicy, policyProblem } from './policy.ts';
import { validateLoad } from './profiles.ts';
import { defaultSerial } from './register.ts';
import { relayClosed } from './relay.ts';
import { hashString } from './rng.ts';
import {
  type LoadProfile,
  type MeterModel,
  type MeterState,
  MODELS,
  MODES,
  type Mode,
  type ReportedState,
  type TariffSlot,
} from './types.ts';
import { wifiCredentialsProblem, wifiJoin } from './wifi.ts';

export interface CreateMeterOptions {
  deviceId: string;
  model?: MeterModel;
  firmware?: string;
  mode?: Mode;
  relayCommanded?: boolean;
  ebTariff?: number;
  dgTariff?: number;
  activeTariff?: TariffSlot;
  pgEnabled?: boolean;
  /** Opening balance, integer paise (a debt is negative). */
  balance?: number;
  /** Opening energy register, kWh; kept to the whole Wh. */
  energyKwh?: number;
  load?: LoadProfile;
  /** Seed of the meter's own measurement noise; defaults to a hash of deviceId. */
  seed?: number;
  wifi?: { ssid: string; password: string };
  telemetryPeriodMs?: number;
  /** [M-25] The physical meter's serial (MC-4.5); default derived from deviceId. */
  serial?: string;
  /** Issue 12 §4: a prepaid policy (policy.ts); absent or null = none. */
  prepaidPolicy?: PrepaidPolicy | null;
}

export const METER_DEFAULTS = {
  model: 'basic',
  firmware: 'meterstack-virtual/1.0.0',
  mode: 'prepaid',
  relayCommanded: true,
  ebTariff: 800,
  dgTariff: 2000,
  activeTariff: 1,
  pgEnabled: false,
  balance: 0,
  energyKwh: 0,
  load: { kind: 'constant', watts: 0 },
  wifi: { ssid: 'home-wifi', password: 'home-wifi-pass' },
  telemetryPeriodMs: 60_000,
  prepaidPolicy: null,
} as const satisfies Omit<Required<CreateMeterOptions>, 'deviceId' | 'seed' | 'serial'>;

function check(ok: boolean, message: string): void {
  if (!ok) throw new TypeError(`createMeter: ${message}`);
}

function isTariff(x: number): boolean {
  return Number.isInteger(x) && x >= 0 && x <= MAX_TARIFF_PAISE;
}

/** The first multiple of `period` strictly after `ts` (epoch-aligned, so 15-min samples land on :00/:15/...). */
export function nextBoundary(ts: number, period: number): number {
  return (Math.floor(ts / period) + 1) * period;
}

export function createMeter(opts: CreateMeterOptions, now: number): MeterState {
  // An option passed as undefined takes its default, as if it were absent.
  const given = Object.fromEntries(
    Object.entries(opts).filter(([, v]) => v !== undefined),
  ) as CreateMeterOptions;
  const o = { ...METER_DEFAULTS, ...given };
  check(typeof o.deviceId === 'string' && o.deviceId.length > 0, 'deviceId must be a non-empty string');
  check(MODELS.includes(o.model), `model must be one of ${MODELS.join(', ')}`);
  check(MODES.includes(o.mode), `mode must be one of ${MODES.join(', ')}`);
  check(
    isTariff(o.ebTariff) && isTariff(o.dgTariff),
    `tariffs must be integer paise in 0..${MAX_TARIFF_PAISE}`,
  );
  check(o.activeTariff === 1 || o.activeTariff === 2, 'activeTariff must be 1 or 2');
  check(Number.isSafeInteger(o.balance), 'balance must be integer paise');
  check(Number.isFinite(o.energyKwh) && o.energyKwh >= 0, 'energyKwh must be a number >= 0');
  check(
    Number.isSafeInteger(o.telemetryPeriodMs) && o.telemetryPeriodMs > 0,
    'telemetryPeriodMs must be > 0',
  );
  check(Number.isFinite(now), 'now must be a finite time');
  const wifiProblem = wifiCredentialsProblem(o.wifi.ssid, o.wifi.password);
  check(wifiProblem === null, `wifi: ${wifiProblem}`);
  validateLoad(o.load);
  const policy = o.prepaidPolicy === null ? null : clonePolicy(o.prepaidPolicy);
  const problem = policy === null ? null : policyProblem(policy);
  check(problem === null, `prepaidPolicy.${problem?.loc.join('.')}: ${problem?.msg}`);
  const seed = opts.seed ?? hashString(o.deviceId);
  check(Number.isInteger(seed), 'seed must be an integer');
  const ts = Math.floor(now);
  return {
    deviceId: o.deviceId,
    model: o.model,
    firmware: o.firmware,
    mode: o.mode,
    relayCommanded: o.relayCommanded,
    ebTariff: o.ebTariff,
    dgTariff: o.dgTariff,
    activeTariff: o.activeTariff,
    pgEnabled: o.pgEnabled,
    energy: BigInt(Math.round(o.energyKwh * 1000)) * 3_600_000_000n,
    balance: paiseToUnits(o.balance),
    charged: 0n,
    load: o.load,
    seed,
    wifi: wifiJoin(seed, o.wifi.ssid, o.wifi.password),
    lastTs: ts,
    telemetryPeriodMs: o.telemetryPeriodMs,
    nextTelemetryTs: nextBoundary(ts, o.telemetryPeriodMs),
    recentRecharges: [],
    recentCommands: [],
    faults: [],
    faultSeq: 0,
    serial: opts.serial ?? defaultSerial(o.deviceId),
    registerEpoch: 0,
    registerBase: 0n,
    registerMax: null,
    prepaidPolicy: policy,
  };
}

export function reportedState(state: MeterState, ts: number): ReportedState {
  const r: ReportedState = {
    ts,
    mode: state.mode,
    relay_commanded: state.relayCommanded,
    relay_state: relayClosed(state, ts),
    eb_tariff: state.ebTariff,
    dg_tariff: state.dgTariff,
    active_tariff: state.activeTariff,
    balance: reportedBalance(state.balance),
    pg_enabled: state.pgEnabled,
    wifi_type: state.wifi.configMode ? 'Secondary' : 'Primary',
  };
  if (state.faults.length !== 0) {
    r.ts = meterTs(state.faults, ts); // [M-20] the meter's clock
    const tamper = tamperAt(state.faults, ts); // [M-22]
    if (tamper.length > 0) r.tamper = tamper;
  }
  // [M-30] Only a meter with a policy reports the field, so a meter without one reports as before.
  if (state.prepaidPolicy !== null)
    r.low_balance = state.mode === 'prepaid' ? lowBalanceOf(state.prepaidPolicy, state.balance) : null;
  return r;
}

/** Whether two reported states differ in anything but ts and balance ([M-10]). */
export function sameReportedState(a: ReportedState, b: ReportedState): boolean {
  return (
    a.mode === b.mode &&
    a.relay_commanded === b.relay_commanded &&
    a.relay_state === b.relay_state &&
    a.eb_tariff === b.eb_tariff &&
    a.dg_tariff === b.dg_tariff &&
    a.active_tariff === b.active_tariff &&
    a.pg_enabled === b.pg_enabled &&
    a.wifi_type === b.wifi_type &&
    String(a.tamper) === String(b.tamper) &&
    a.low_balance === b.low_balance
  );
}
