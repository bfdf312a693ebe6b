// The meter as a reducer: step(state, event, now) -> { state, effects }. Pure: time comes in as `now`.

import { applyCommand, type CommandOutcome } from './commands.ts';
import { reportedState, sameReportedState } from './create.ts';
import { addFault, clearFaults } from './faults/edges.ts';
import { powered } from './faults/power.ts';
import { integrateTo } from './integrate.ts';
import { setPrepaidPolicy } from './policy.ts';
import { validateLoad } from './profiles.ts';
import { flowsAt, readingsAt } from './readings.ts';
import { replaceMeter } from './register.ts';
import { relayClosed } from './relay.ts';
import { sampleStep, traceSample } from './trace.ts';
import {
  type MeterEffect,
  type MeterEvent,
  type MeterState,
  type StepResult,
  UNITS_PER_PAISE,
} from './types.ts';
import { CONFIG_HOLD_SECONDS } from './wifi.ts';

/** [M-9] Command ids remembered so that a duplicate delivery is applied once. */
export const RECENT_COMMANDS_LIMIT = 256;

/**
 * [M-1] Integrates energy and billing from state.lastTs up to `now` (never backwards; meter time has
 * millisecond resolution), emitting what falls due on the way, then applies `event` at that instant.
 * Throws a TypeError only for an invalid load in set_load or an invalid policy in set_prepaid_policy
 * (operator input, not network input), before anything is changed.
 */
export function step(state: MeterState, event: MeterEvent, now: number): StepResult {
  const s: MeterState = { ...state };
  const t = Math.max(Math.floor(now), state.lastTs);
  const effects: MeterEffect[] = [];
  integrateTo(s, t, effects);

  const before = reportedState(s, t);
  const flowed = flowsAt(s, t);
  let outcome: CommandOutcome | null = null;
  switch (event.type) {
    case 'advance':
      return { state: s, effects };
    case 'set_load':
      validateLoad(event.load);
      s.load = event.load; // [M-7] from this instant
      return { state: s, effects };
    case 'sample':
      return sampleStep(s, event, t, effects); // [M-14]
    case 'connect': {
      // [M-17] a true reading at the connection: the registers as they stand, the schedule of M-2 untouched.
      const sample = event.readings ? traceSample(s, event.readings, t, relayClosed(s, t)) : readingsAt(s, t);
      effects.push({ type: 'telemetry', sample });
      return { state: s, effects };
    }
    case 'add_fault':
      addFault(s, event.fault, t, effects); // [M-18]..[M-23]: a fault due now starts now
      return { state: s, effects };
    case 'clear_faults':
      // An active one ends now, through its kind's end handler: a cleared rollover ends as at its
      // `until` [M-26], an outage is restored [M-18].
      clearFaults(s, event.ids, t, effects);
      return { state: s, effects };
    case 'replace':
      // [M-27] The old register's final reading at this instant, so nothing between samples is lost.
      effects.push({ type: 'telemetry', sample: readingsAt(s, t) });
      replaceMeter(s, event.serial);
      if (event.debitPaise) s.balance -= BigInt(event.debitPaise) * UNITS_PER_PAISE;
      effects.push({ type: 'info' }); // [MC-4.1] a new serial
      return { state: s, effects };
    case 'set_prepaid_policy':
      setPrepaidPolicy(s, event.policy); // [M-31] from this instant; reported below if that changes anything
      break;
    case 'button':
      // [M-11] spec §4: holding the button about 5 s joins the configuration network.
      if (event.holdSeconds >= CONFIG_HOLD_SECONDS) s.wifi = { ...s.wifi, configMode: true };
      break;
    case 'command': {
      // [M-18] An unpowered meter hears nothing: no reply, nothing applied (the link drops anyway).
      if (s.faults.length !== 0 && !powered(s, t)) return { state: s, effects };
      const seen = s.recentCommands.find((c) => c.id === event.id);
      if (seen) {
        effects.push({ type: 'reply', id: event.id, reply: seen.reply, duplicate: true }); // [M-9]
        return { state: s, effects };
      }
      outcome = applyCommand(s, event.command, t);
      s.recentCommands = [...s.recentCommands, { id: event.id, reply: outcome.reply }].slice(
        -RECENT_COMMANDS_LIMIT,
      );
      break;
    }
  }

  // [M-32] Current started or stopped (a relay closed or opened, a cut-off lifted): the readings at this
  // instant, so power is not read from the last period's sample until the next one. Before the state
  // [M-10]. A trace meter's readings are its trace's [M-14]: its next sample says.
  if (flowsAt(s, t) !== flowed && s.nextTelemetryTs !== Number.POSITIVE_INFINITY)
    effects.push({ type: 'telemetry', sample: readingsAt(s, t) });
  // [M-10] A state report when anything reported but ts/balance changed, or the balance jumped.
  const after = reportedState(s, t);
  if (outcome?.balanceChanged || !sameReportedState(before, after))
    effects.push({ type: 'state', state: after });
  if (event.type === 'command' && outcome) {
    effects.push({ type: 'reply', id: event.id, reply: outcome.reply, duplicate: false });
  }
  return { state: s, effects };
}
