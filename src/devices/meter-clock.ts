// [MC-11] Which clock a meter lives on, and its times put on the world's. A virtual meter is run by the
// service on the world's (virtual) clock, so its `ts` is world time already. An external meter (a
// bridged serial or Modbus meter, a real one, `meterstack meter`) lives on wall time, unless its info
// declares the world's clock (MC-4.7, a replayed trace), and cannot jump with `/sim/v1/clock/advance`; the service maps its times onto the world's clock at
// receipt by the world's offset from wall time [MC-11.2], before any check or store sees them. Pure.

import type { SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';

/** [MC-11.1] `virtual`: the world's clock; `wall`: wall time, mapped onto the world's at receipt. */
export type MeterClock = 'virtual' | 'wall';

/** [MC-11.2] A time of a wall-clock meter on the world's clock; `offset` = virtual now − wall now. */
export const toWorld = (ts: number, offset: number): number => ts + offset;

/** A telemetry message with every sample's `ts` on the world's clock (a new object; the input stays). */
export function telemetryToWorld(
  msg: { samples: SamplePayload[] },
  offset: number,
): { samples: SamplePayload[] } {
  if (offset === 0) return msg;
  return { ...msg, samples: msg.samples.map((s) => ({ ...s, ts: toWorld(s.ts, offset) })) };
}

export function stateToWorld(state: StatePayload, offset: number): StatePayload {
  return offset === 0 ? state : { ...state, ts: toWorld(state.ts, offset) };
}

export function availabilityToWorld<A extends { ts?: number }>(a: A, offset: number): A {
  return offset === 0 || a.ts === undefined ? a : { ...a, ts: toWorld(a.ts, offset) };
}
