// Domain types of one virtual single-phase meter. Pure data: no I/O, no clock reads.
// Units are chosen so that energy and money are exact integers (see README "Exact billing").

import type {
  CommandReply,
  MeterCommand,
  MeterModel,
  Mode,
  ReportedState,
  Sample,
  TariffSlot,
} from '../../firmware-protocol/mqtt/vocabulary.ts';
import type { Fault } from './faults/types.ts';
import type { PrepaidPolicy } from './policy.ts';

export {
  type CommandErrorCode,
  type CommandReply,
  type MeterCommand,
  type MeterModel,
  MODELS,
  MODES,
  type Mode,
  type ReportedState,
  type Sample,
  type TariffSlot,
} from '../../firmware-protocol/mqtt/vocabulary.ts';

/** Energy unit: milliwatt-milliseconds. 1 kWh = 3.6e12 mW·ms. */
export const MWMS_PER_KWH = 3_600_000_000_000n;
/** Balance unit: 1 paise = 3.6e12 units, so tariff(paise/kWh) × energy(mW·ms) is an exact integer charge. */
export const UNITS_PER_PAISE = MWMS_PER_KWH;

export type LoadProfile =
  /** A fixed load while the relay is closed. */
  | { kind: 'constant'; watts: number; powerFactor?: number }
  /** A seeded, deterministic household daily curve (minute resolution), scaled to `peakWatts`. */
  | { kind: 'household'; seed: number; peakWatts: number };

export interface WifiState {
  ssid: string;
  password: string;
  rssi: number;
  /** Configuration mode: the meter is on the fixed Secondary network (button held >= 5 s). */
  configMode: boolean;
}

export interface MeterState {
  deviceId: string;
  model: MeterModel;
  firmware: string;
  mode: Mode;
  /** What the last relay command asked for (true = ON). The effective relay is derived, see relay.ts. */
  relayCommanded: boolean;
  ebTariff: number;
  dgTariff: number;
  activeTariff: TariffSlot;
  pgEnabled: boolean;
  /** Cumulative active energy, mW·ms. */
  energy: bigint;
  /** Balance in units of 1/3.6e12 paise; reported as integer paise rounded toward -infinity. */
  balance: bigint;
  /**
   * [M-15] Money billed since the meter was made, in balance units: a register that only grows. With it
   * the owner of the credits (the service's ledger) can check `balance = credits × 3.6e12 − charged`.
   */
  charged: bigint;
  load: LoadProfile;
  /** Seed for the meter's own deterministic measurement noise (voltage). */
  seed: number;
  wifi: WifiState;
  /** Meter time (ms since epoch) up to which energy and billing are integrated. */
  lastTs: number;
  telemetryPeriodMs: number;
  /** Next meter time at which a telemetry sample is due (a multiple of telemetryPeriodMs). */
  nextTelemetryTs: number;
  /** Recently applied recharge transaction ids (bounded) — a repeat credits nothing. */
  recentRecharges: string[];
  /** Recently handled command ids with their replies (bounded) — a duplicate delivery is applied once. */
  recentCommands: { id: string; reply: CommandReply }[];
  /** Faults switched on or scheduled (issue 12 §1, faults/types.ts); ended ones are dropped. */
  faults: Fault[];
  /** The number of faults ever added: the next one is `F${faultSeq + 1}`. */
  faultSeq: number;
  /** [M-25] The physical meter behind the device id (info `serial`, MC-4.5); a replacement changes it. */
  serial: string;
  /** [M-25] Times the energy register was set back to zero (reset, new meter): sample `register_epoch`. */
  registerEpoch: number;
  /**
   * [M-25] `energy` at which the displayed register last read zero: the register shows energy − base.
   * Billing and `energy` never see it (money comes from the integrated energy, not the display).
   */
  registerBase: bigint;
  /** [M-26] The register counts modulo this (mW·ms) from registerBase, or null: it does not roll over. */
  registerMax: bigint | null;
  /** Issue 12 §4: emergency credit, friendly hours, low-balance warnings (policy.ts); null = none. */
  prepaidPolicy: PrepaidPolicy | null;
}

export type MeterEvent =
  /** Integrate up to `now`, emitting every telemetry sample that falls due on the way. */
  | { type: 'advance' }
  | { type: 'command'; id: string; command: MeterCommand }
  | { type: 'set_load'; load: LoadProfile }
  | { type: 'button'; holdSeconds: number }
  /**
   * [M-17] The meter has just connected: one telemetry sample of its readings at this instant. A trace
   * meter passes the readings of its last trace sample (what it measures holds until the next one).
   */
  | { type: 'connect'; readings?: TraceReadings }
  /** [M-14] A trace-driven meter measured this: energy that flowed since its previous sample, and readings. */
  | { type: 'sample'; energy: bigint; readings: TraceReadings }
  /** Issue 12: a fault switched on (or scheduled: fault.from may lie ahead). Its id must be new. */
  | { type: 'add_fault'; fault: Fault }
  /** Issue 12: faults cleared, by id, or all of them. */
  | { type: 'clear_faults'; ids: readonly string[] | 'all' }
  /**
   * [M-27] Issue 12 §3: a new physical meter behind the same device id, from this instant: a new serial,
   * its register at zero in a new epoch, no faults; what the customer has (balance, mode, tariffs) stays.
   */
  | {
      type: 'replace';
      serial: string;
      /** Paise taken off the balance as the old meter goes (its owner refunds them; negative: a debt forgiven). */
      debitPaise?: number;
    }
  /** Issue 12 §4 [M-31]: the prepaid policy from this instant (null: none). Must pass policyProblem. */
  | { type: 'set_prepaid_policy'; policy: PrepaidPolicy | null };

/**
 * [M-14] What a trace says the meter measured at a sample instant (units as in Sample). `voltage`
 * absent: the meter's own voltage model. The four `full`-model values are used only by a `full` meter,
 * which needs all of them.
 */
export interface TraceReadings {
  active_power: number;
  voltage?: number;
  current?: number;
  power_factor?: number;
  apparent_power?: number;
  reactive_power?: number;
}

export type MeterEffect =
  | { type: 'telemetry'; sample: Sample }
  | { type: 'state'; state: ReportedState }
  /** [MC-4.1] A field of `info` changed (serial, register_max_kwh): publish it again. */
  | { type: 'info' }
  | { type: 'reply'; id: string; reply: CommandReply; duplicate: boolean };

export interface StepResult {
  state: MeterState;
  effects: MeterEffect[];
}
