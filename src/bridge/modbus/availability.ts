// When a Modbus meter counts as online [MC-6.6]: a pure reducer over the outcome of each poll.

/** Consecutive failed polls (no answer, a bad frame, an exception) after which the meter is offline. */
export const FAILURES_BEFORE_OFFLINE = 3;

export interface LinkState {
  online: boolean;
  /** Failed polls since the last success. */
  failures: number;
}

export const INITIAL_LINK: LinkState = { online: false, failures: 0 };

/**
 * A poll either succeeded, failed on the bus, or found the serial port gone.
 * - success: online at once (the meter just answered);
 * - failure: offline once FAILURES_BEFORE_OFFLINE polls in a row failed, so one lost frame on a noisy
 *   RS485 line does not flap the meter;
 * - port gone: offline at once, since nothing can answer through a port that is not there.
 */
export type PollOutcome = 'success' | 'failure' | 'port_gone';

export function nextLink(state: LinkState, outcome: PollOutcome): LinkState {
  switch (outcome) {
    case 'success':
      return { online: true, failures: 0 };
    case 'failure': {
      const failures = state.failures + 1;
      return { online: state.online && failures < FAILURES_BEFORE_OFFLINE, failures };
    }
    case 'port_gone':
      return { online: false, failures: state.failures + 1 };
  }
}
