// [M-12] One handler per command op, picked by a single switch. A handler validates its arguments,
// then changes the draft state it is given (a fresh copy owned by step) and returns the reply.

import { MAX_TARIFF_PAISE, paiseToUnits, reportedBalance } from './billing.ts';
import { reportedState } from './create.ts';
import { readingsAt } from './readings.ts';
import {
  type CommandErrorCode,
  type CommandReply,
  type MeterCommand,
  type MeterState,
  MODES,
} from './types.ts';
import { wifiCredentialsProblem, wifiJoin, wifiStatus } from './wifi.ts';

/** [M-8] Recharge transaction ids remembered for idempotency. */
export const RECENT_RECHARGES_LIMIT = 1024;
export const MAX_TRANSACTION_ID_CHARS = 128;

export interface CommandOutcome {
  reply: CommandReply;
  /** The balance changed by a discrete amount (a recharge), which is reported even if nothing else changed. */
  balanceChanged: boolean;
}

const OK: CommandOutcome = { reply: { ok: true }, balanceChanged: false };

function fail(code: CommandErrorCode, message: string): CommandOutcome {
  return { reply: { ok: false, error: { code, message } }, balanceChanged: false };
}

function isBool(x: unknown): x is boolean {
  return typeof x === 'boolean';
}

/** Applies `command` at meter time `now` to the draft `s` (already integrated up to `now`). */
export function applyCommand(s: MeterState, command: MeterCommand, now: number): CommandOutcome {
  // Commands arrive as JSON from the network, so the fields are checked at run time despite the types.
  switch (command.op) {
    case 'set_relay':
      if (!isBool(command.on)) return fail('invalid_argument', 'on must be a boolean');
      s.relayCommanded = command.on;
      return OK;
    case 'set_mode':
      if (!MODES.includes(command.mode))
        return fail('invalid_argument', `mode must be one of ${MODES.join(', ')}`);
      s.mode = command.mode;
      return OK;
    case 'set_tariff':
      return setTariff(s, command);
    case 'set_active_tariff':
      if (command.tariff !== 1 && command.tariff !== 2)
        return fail('invalid_argument', 'tariff must be 1 or 2');
      s.activeTariff = command.tariff;
      return OK;
    case 'set_gateway':
      if (!isBool(command.enabled)) return fail('invalid_argument', 'enabled must be a boolean');
      s.pgEnabled = command.enabled;
      return OK;
    case 'set_wifi': {
      const problem = wifiCredentialsProblem(command.ssid, command.password);
      if (problem !== null) return fail('invalid_argument', problem);
      s.wifi = wifiJoin(s.seed, command.ssid, command.password); // leaves configuration mode
      return OK;
    }
    case 'get_wifi':
      return { reply: { ok: true, data: wifiStatus(s) }, balanceChanged: false };
    case 'recharge':
      return recharge(s, command);
    case 'read':
      return {
        reply: { ok: true, data: { readings: readingsAt(s, now), state: reportedState(s, now) } },
        balanceChanged: false,
      };
    default:
      return fail('unsupported', `unknown op ${String((command as { op: unknown }).op)}`);
  }
}

function setTariff(s: MeterState, c: Extract<MeterCommand, { op: 'set_tariff' }>): CommandOutcome {
  if (c.slot !== 'eb' && c.slot !== 'dg') return fail('invalid_argument', 'slot must be eb or dg');
  if (!Number.isInteger(c.paise) || c.paise < 0 || c.paise > MAX_TARIFF_PAISE) {
    return fail('invalid_argument', `paise must be an integer in 0..${MAX_TARIFF_PAISE}`);
  }
  if (c.slot === 'eb') s.ebTariff = c.paise;
  else s.dgTariff = c.paise;
  return OK;
}

/** [M-8] Credits once per transaction id; a repeat is answered with applied: false. */
function recharge(s: MeterState, c: Extract<MeterCommand, { op: 'recharge' }>): CommandOutcome {
  if (!Number.isSafeInteger(c.amount) || c.amount <= 0) {
    return fail('invalid_argument', 'amount must be a positive integer number of paise');
  }
  const id = c.transactionId;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_TRANSACTION_ID_CHARS) {
    return fail('invalid_argument', `transactionId must be 1..${MAX_TRANSACTION_ID_CHARS} characters`);
  }
  if (s.recentRecharges.includes(id)) {
    return {
      reply: { ok: true, data: { applied: false, balance: reportedBalance(s.balance) } },
      balanceChanged: false,
    };
  }
  s.balance += paiseToUnits(c.amount);
  s.recentRecharges = [...s.recentRecharges, id].slice(-RECENT_RECHARGES_LIMIT);
  return {
    reply: { ok: true, data: { applied: true, balance: reportedBalance(s.balance) } },
    balanceChanged: true,
  };
}
