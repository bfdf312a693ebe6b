// Disconnect control (class 70) from the relay the contract reports, and back [CO-8]. Pure.

import type { MeterCommand, ReportedState } from '../../mqtt/vocabulary.ts';

/** [CO-8.2] control_state: 0 disconnected, 1 connected, 2 ready_for_reconnection. */
export const CONTROL_STATE = { disconnected: 0, connected: 1, ready_for_reconnection: 2 } as const;
export type ControlState = (typeof CONTROL_STATE)[keyof typeof CONTROL_STATE];

/**
 * [CO-8.3] control_mode 6: remote disconnect and local (prepaid) disconnect; remote reconnect straight to
 * connected, and local reconnect when the cause goes (a recharge). A meter without a relay: mode 0.
 */
export const CONTROL_MODE_RELAY = 6;
export const CONTROL_MODE_NONE = 0;

export interface DisconnectValues {
  outputState: boolean;
  controlState: ControlState;
  controlMode: number;
}

/**
 * [CO-8.2] The relay closed is `connected`. Open, it is `disconnected` when a remote order holds it open
 * (`set_relay` off, or the `relay_off` mode), and `ready_for_reconnection` when the meter opened it
 * itself (a prepaid cut-off, MC-5.3): it closes again on its own once the balance allows.
 */
export function disconnectValues(state: ReportedState, hasRelay: boolean): DisconnectValues {
  if (!hasRelay)
    return { outputState: true, controlState: CONTROL_STATE.connected, controlMode: CONTROL_MODE_NONE };
  let controlState: ControlState = CONTROL_STATE.connected;
  if (!state.relay_state) {
    const remote = !state.relay_commanded || state.mode === 'relay_off';
    controlState = remote ? CONTROL_STATE.disconnected : CONTROL_STATE.ready_for_reconnection;
  }
  return { outputState: state.relay_state, controlState, controlMode: CONTROL_MODE_RELAY };
}

/**
 * [CO-10.3] The bridge's way back: output_state is the relay (MC-5.3 relay_state); a meter in
 * `disconnected` was ordered off, in `connected` or `ready_for_reconnection` it is meant to be on.
 * An unknown control_state is refused (null), never guessed.
 */
export function relayFromDisconnect(
  v: Pick<DisconnectValues, 'outputState' | 'controlState'> | { outputState: boolean; controlState: number },
): { relay_state: boolean; relay_commanded: boolean } | null {
  if (v.controlState !== 0 && v.controlState !== 1 && v.controlState !== 2) return null;
  return { relay_state: v.outputState, relay_commanded: v.controlState !== CONTROL_STATE.disconnected };
}

/** [CO-8.1] Methods 1 remote_disconnect and 2 remote_reconnect are the contract's set_relay. */
export function commandForMethod(methodId: number): MeterCommand | null {
  if (methodId === 1) return { op: 'set_relay', on: false };
  if (methodId === 2) return { op: 'set_relay', on: true };
  return null;
}

/** [CO-8.1] The method a bridge invokes for a set_relay. */
export function methodForRelay(on: boolean): 1 | 2 {
  return on ? 2 : 1;
}
