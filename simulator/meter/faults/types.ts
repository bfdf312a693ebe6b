// Faults a meter can be made to have (issue 12 §1): the shared contract. Pure data: what a fault is,
// its kind and parameters, and when it is active. Who acts on each kind:
// - the pure meter (simulator/meter, step/integrate): power, voltage, clock, hardware, telemetry gaps,
//   register reset and rollover;
// - the link (simulator/virtual-meter.ts): replies, silence, flapping, reconnect storms, backlog burst,
//   duplicated and out-of-order samples, and the outage's abrupt disconnection (its will fires).
// A fault is stored in MeterState.faults, so a meter's snapshot (and a world snapshot) carries it.

import type { MeterEffect, MeterState } from '../types.ts';

export const FAULT_FAMILIES = {
  link: ['reply_drop', 'reply_delay', 'busy', 'malformed_reply', 'silence', 'flapping', 'reconnect_storm'],
  telemetry: [
    'telemetry_gap',
    'backlog_burst',
    'duplicate_samples',
    'out_of_order',
    'register_reset',
    'register_rollover',
  ],
  power: ['power_outage', 'voltage_sag', 'voltage_swell'],
  clock: ['clock_drift', 'clock_skew'],
  hardware: ['welded_relay', 'relay_stuck_open', 'tamper'],
} as const;

export type FaultFamily = keyof typeof FAULT_FAMILIES;
export type FaultKind = (typeof FAULT_FAMILIES)[FaultFamily][number];
export const FAULT_KINDS: readonly FaultKind[] = Object.values(FAULT_FAMILIES).flat();

export function familyOf(kind: FaultKind): FaultFamily {
  for (const [family, kinds] of Object.entries(FAULT_FAMILIES))
    if ((kinds as readonly string[]).includes(kind)) return family as FaultFamily;
  throw new TypeError(`unknown fault kind ${kind}`);
}

/** Parameters of each kind, as validated by src/world/fault-schemas.ts (snake_case, as on the wire). */
export interface FaultParams {
  /** Each command's reply is not published, with this probability (the command is still applied). */
  reply_drop: { probability: number };
  /** Each reply is published after a delay (wall ms): fixed `delay_ms`, or uniform in [min_ms, max_ms]. */
  reply_delay: { delay_ms?: number; min_ms?: number; max_ms?: number };
  /** Each command is refused `busy` without being applied, with this probability. */
  busy: { probability: number };
  /** Each reply is replaced by bytes that are not a valid reply, with this probability. */
  malformed_reply: { probability: number };
  /** Connected, but publishes nothing and answers nothing; no will (a stale meter). */
  silence: Record<string, never>;
  /** Connected for online_s, then dropped abruptly (the will fires) for offline_s, over and over (virtual s). */
  flapping: { online_s: number; offline_s: number };
  /** `reconnects` abrupt disconnect/reconnect cycles, `interval_ms` (wall) apart, from the start. */
  reconnect_storm: { reconnects: number; interval_ms: number };
  /** Samples due while active are never produced: lost for good. */
  telemetry_gap: Record<string, never>;
  /** Samples are held while active (link up, telemetry not sent), then sent all at once at its end. */
  backlog_burst: Record<string, never>;
  /** Each sample is published twice, with this probability. */
  duplicate_samples: { probability: number };
  /** Each sample is held back and sent after the next one, with this probability. */
  out_of_order: { probability: number };
  /** At the start the energy register reads zero again (an instant: no duration). */
  register_reset: Record<string, never>;
  /** The register counts modulo max_kwh from the start: it rolls over when it reaches it. */
  register_rollover: { max_kwh: number };
  /** No supply: no load, no billing, no telemetry; the link drops abruptly (the will fires). */
  power_outage: Record<string, never>;
  /** The supply voltage reads this (V) while active. */
  voltage_sag: { volts: number };
  voltage_swell: { volts: number };
  /** The meter's clock gains (ppm > 0) or loses time from the fault's start: its timestamps drift. */
  clock_drift: { ppm: number };
  /** The meter's timestamps are off by a fixed amount (s, either sign). */
  clock_skew: { seconds: number };
  /** Commanded off, the relay stays closed: current still flows. */
  welded_relay: Record<string, never>;
  /** Commanded on, the relay stays open: no current. */
  relay_stuck_open: Record<string, never>;
  /** The meter reports tampering while active. */
  tamper: { type: 'cover_open' | 'magnet' };
}

/** One fault of one meter, as stored in MeterState.faults. Times are virtual ms. */
export type Fault = {
  [K in FaultKind]: {
    /** `F1`, `F2`, ... per meter (MeterState.faultSeq), never reused. */
    id: string;
    kind: K;
    params: FaultParams[K];
    /** Virtual ms from which it is active. */
    from: number;
    /** Virtual ms at which it ends (exclusive); null: until cleared. */
    until: number | null;
    /** Seed of its random choices (chance.ts): the same seed, the same behaviour. */
    seed: number;
  };
}[FaultKind];

export type FaultOf<K extends FaultKind> = Extract<Fault, { kind: K }>;

/** Active at virtual ms t. */
export function isActive(fault: Fault, t: number): boolean {
  return t >= fault.from && (fault.until === null || t < fault.until);
}

/** The first fault of `kind` active at t, if any (cheap when there are none: the common case). */
export function activeFault<K extends FaultKind>(
  faults: readonly Fault[],
  kind: K,
  t: number,
): FaultOf<K> | undefined {
  if (faults.length === 0) return undefined;
  for (const f of faults) if (f.kind === kind && isActive(f, t)) return f as FaultOf<K>;
  return undefined;
}

/**
 * What the pure meter does at a fault's edges (integration stops at every `from` and `until` inside a
 * step and calls these at that instant). One table per family's file, merged in handlers.ts.
 */
export interface FaultHandler {
  start?(s: MeterState, fault: Fault, t: number, effects: MeterEffect[]): void;
  end?(s: MeterState, fault: Fault, t: number, effects: MeterEffect[]): void;
}
