// [MC-7.13] How a series started by a wild sample recovers. MC-7.8 judges a sample against the newest
// one held; the sample that starts a series (the first a device ever sends, or the newest restored at
// start when the sample stored before it disagrees with it, twin-reports.ts) is judged against nothing. Until a later sample
// is taken beside it, it is "unchecked". Samples refused against an unchecked anchor (MC-7.5, MC-7.8)
// that agree with each other form a run; a run of REANCHOR_RUN takes over: the anchor was the wild
// one, and the meter that keeps reporting the run is believed. Pure: verdicts in, the next state out.

import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { logTime } from './log-time.ts';
import { energyRefusal } from './plausibility.ts';
import type { RefusalReason } from './refusals.ts';
import { plus, type RegisterContinuity } from './register-continuity.ts';
import type { Twin } from './types.ts';

/** Samples in a row, each agreeing with the one before, that outvote an unchecked anchor. */
export const REANCHOR_RUN = 3;

export interface AnchorState {
  /** A sample was taken beside the newest held (it agrees with another), so it pins honestly. */
  checked: boolean;
  /** Refused samples later than the anchor, in ts order, each plausible against the one before. */
  run: readonly SamplePayload[];
}

/** A series that has not started, or one restored at start: its anchor is not checked. */
export const UNCHECKED: AnchorState = { checked: false, run: [] };
export const CHECKED: AnchorState = { checked: true, run: [] };

/** The refusals that say "this sample disagrees with the anchor's energy". */
const DISAGREES: ReadonlySet<RefusalReason> = new Set(['energyBackwards', 'energyImplausible']);

export interface AnchorVerdict {
  state: AnchorState;
  /** The run that took over, to store as the series from now on; null when none did. */
  reanchor: readonly SamplePayload[] | null;
}

/**
 * One message's verdicts against the anchor. `anchor` is the newest sample held before the message;
 * `refused` carries each refused sample as the series would have stored it (continuous energy, MC-7.11)
 * or null when it cannot join the series as it stands (another register epoch).
 */
export function followAnchor(
  state: AnchorState,
  anchor: SamplePayload | null,
  acceptedCount: number,
  refused: readonly { sample: SamplePayload | null; reason: RefusalReason }[],
): AnchorVerdict {
  // Two samples that agree: the newest held is checked (the common case, one comparison).
  if (acceptedCount > 0) {
    const checked = state.checked || anchor !== null || acceptedCount > 1;
    return { state: checked ? CHECKED : UNCHECKED, reanchor: null };
  }
  if (state.checked || anchor === null) return { state, reanchor: null };
  let run = state.run;
  for (const { sample, reason } of refused) {
    if (sample === null || !DISAGREES.has(reason) || sample.ts <= anchor.ts) continue;
    const last = run.at(-1);
    run =
      last !== undefined && sample.ts > last.ts && energyRefusal(sample, last) === null
        ? [...run, sample]
        : [sample];
    if (run.length >= REANCHOR_RUN) return { state: CHECKED, reanchor: run };
  }
  return { state: run === state.run ? state : { checked: false, run }, reanchor: null };
}

/**
 * The twins' side: follows `twin.anchor` through one message's verdicts and returns the run that took
 * over, else null. A checked series, the common case, costs one look. `held` gives the device's register
 * continuity: refused samples are compared as the series would hold them (MC-7.11), at its epoch only.
 */
export function followTwin(
  twin: Twin,
  acceptedCount: number,
  refused: readonly { sample: SamplePayload; reason: RefusalReason }[],
  held: () => RegisterContinuity,
): Reanchor | null {
  const state = twin.anchor ?? UNCHECKED;
  if (state.checked) return null; // and stays so: nothing unchecks a series but its start
  const { epoch, offsetKwh } = held();
  const asSeries = refused.map(({ sample, reason }) => ({
    reason,
    sample:
      (sample.register_epoch ?? 0) !== epoch
        ? null
        : offsetKwh === 0
          ? sample
          : { ...sample, energy: plus(sample.energy, offsetKwh) },
  }));
  const anchor = twin.latest;
  const next = followAnchor(state, anchor, acceptedCount, asSeries);
  twin.anchor = next.state;
  return next.reanchor === null ? null : { run: next.reanchor, from: anchor };
}

/** A run that took over, and the unchecked sample it outvoted. */
export interface Reanchor {
  run: readonly SamplePayload[];
  from: SamplePayload | null;
}

/** [MC-7.13] The log line of a re-anchored series. */
export function reanchorLine(deviceId: string, { run, from }: Reanchor): string {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  return (
    `twins: re-anchored ${deviceId}'s energy series [MC-7.13]: ${run.length} samples in a row ` +
    `(${logTime(first.ts)} energy=${first.energy} .. ${logTime(last.ts)} energy=${last.energy}) disagreed with ` +
    `the unchecked sample held (${from ? `${logTime(from.ts)} energy=${from.energy}` : 'none'}); they are the series now`
  );
}
