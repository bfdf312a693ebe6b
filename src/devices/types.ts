import type { InfoPayload, SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { MeterCommand } from '../../firmware-protocol/mqtt/vocabulary.ts';
import type { AnchorState } from './series-anchor.ts';

/** [LEDGER-2] What twins may send: every op but `recharge` (credits go through World.recharge, ledger first). */
export type TwinCommand = Exclude<MeterCommand, { op: 'recharge' }>;

export type { Log } from '../log/types.ts';

/** What the service knows of one meter, mirrored from its MQTT topics. */
export interface Twin {
  deviceId: string;
  online: boolean;
  /** Meter time of the last availability change, when the meter said it. */
  onlineSince: number | null;
  info: InfoPayload | null;
  state: StatePayload | null;
  latest: SamplePayload | null;
  /** ts of the newest sample handled: stored, or refused for good (not one stamped in the future). */
  lastSampleTs: number;
  /**
   * ts of the newest sample refused as stamped in the future (MC-3.10: a meter whose clock runs ahead,
   * issue 12 clock_skew), once everything before it in its message is stored. World.settle counts it
   * as handled for a virtual meter, whose adapter sends nothing older after it (MC-7.3).
   */
  lastFutureTs: number;
  /** [MC-7.13] Whether the newest sample held was checked against another; absent: not checked. */
  anchor?: AnchorState;
  /**
   * ts of the last state a replayed trace sent again, older than the one held (state.ts): a later one
   * continues that replay; one at or before it is the trace played once more. Cleared by a state taken.
   */
  playsAgainAt?: number;
}

/**
 * A meter's last reported info and state, kept across restarts so an offline meter still shows what it
 * last said (its mode, its relay) rather than nothing.
 */
export interface TwinReport {
  deviceId: string;
  info: InfoPayload | null;
  state: StatePayload | null;
}

/** Outcome of a command sent to a meter: a tagged result, never a thrown error for device trouble. */
export type CommandOutcome =
  | { ok: true; data: unknown }
  | { ok: false; reason: 'offline' }
  | { ok: false; reason: 'timeout'; afterMs: number }
  | { ok: false; reason: 'rejected'; code: string; message: string };
