// The `state` channel [MC-5]: the meter's mode, relay, balance and tariff now. Retained.

import type { StatePayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import { stateRefusal } from '../plausibility.ts';
import { stateEmissions } from '../twin-events.ts';
import type { ChannelContext } from './context.ts';

/** [MC-5.1] [MC-3.10] A state older than the one held, or stamped outside the window, changes nothing. */
export function onState(cx: ChannelContext, deviceId: string, state: StatePayload): void {
  const twin = cx.twin(deviceId);
  const reason = stateRefusal(state, twin.state, cx.now());
  if (reason !== null) {
    cx.refusals.refuse(
      reason,
      deviceId,
      () =>
        `state of ${deviceId} stamped ${state.ts} (held: ${twin.state?.ts ?? 'none'}, clock: ${cx.now()})`,
    );
    return;
  }
  const was = twin.state;
  twin.state = state;
  cx.reports?.mark(deviceId);
  if (!cx.bus.enabled) return;
  // Stamped when the meter says it happened (a cut-off inside a clock jump happens before the jump
  // ends), never later than now: the ts passed MC-3.10 but may run a little ahead.
  const ctx = { ...cx.ctx(deviceId), vt: Math.min(state.ts, cx.now()) };
  for (const e of stateEmissions(was, state)) cx.bus.emit(e.type, e.data, ctx);
}
