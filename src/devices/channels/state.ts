// The `state` channel [MC-5]: the meter's mode, relay, balance and tariff now. Retained.

import type { StatePayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import { logTime } from '../log-time.ts';
import { stateRefusal } from '../plausibility.ts';
import { stateEmissions } from '../twin-events.ts';
import type { Twin } from '../types.ts';
import type { ChannelContext } from './context.ts';

/** [MC-5.1] [MC-3.10] A state older than the one held, or stamped outside the window, changes nothing. */
export function onState(cx: ChannelContext, deviceId: string, state: StatePayload): void {
  const twin = cx.twin(deviceId);
  const reason = stateRefusal(state, twin.state, cx.now());
  if (reason !== null) {
    if (reason === 'staleState' && twin.info?.clock === 'virtual') {
      playsAgain(cx, twin, state);
      return;
    }
    cx.refusals.refuse(
      reason,
      deviceId,
      () =>
        `state of ${deviceId} stamped ${logTime(state.ts)} (held: ${twin.state ? logTime(twin.state.ts) : 'none'}, clock: ${logTime(cx.now())})`,
    );
    return;
  }
  const was = twin.state;
  twin.state = state;
  delete twin.playsAgainAt;
  cx.reports?.mark(deviceId);
  if (!cx.bus.enabled) return;
  // Stamped when the meter says it happened (a cut-off inside a clock jump happens before the jump
  // ends), never later than now: the ts passed MC-3.10 but may run a little ahead.
  const ctx = { ...cx.ctx(deviceId), vt: Math.min(state.ts, cx.now()) };
  for (const e of stateEmissions(was, state)) cx.bus.emit(e.type, e.data, ctx);
}

/**
 * A meter on the world's clock (a replayed trace, MC-4.7) sending states older than the one held is a
 * trace played again: what it says happened before what the service holds, and changes nothing
 * [MC-5.1]. Expected, not a fault (spec-decisions 239): one info line each time the trace starts
 * over (its time goes back), and its states are counted, not logged.
 */
function playsAgain(cx: ChannelContext, twin: Twin, state: StatePayload): void {
  cx.refusals.count('staleState');
  const last = twin.playsAgainAt;
  twin.playsAgainAt = state.ts;
  if (last !== undefined && state.ts > last) return; // the same replay, going on
  cx.log?.(
    'info',
    `twins: ${twin.deviceId} plays again from ${logTime(state.ts)}, before the newest state held ` +
      `(${logTime(twin.state!.ts)}): its older states change nothing, counted and not logged [MC-5.1]`,
  );
}
