// Trace events in their two spellings: CSV `event` cells (`relay:off`, `mode:prepaid`, `offline`,
// `online`, `recharge:50000[:txn-id]`, `tariff:dg`, several joined by `;`) and JSON Lines objects
// (`{"ts":…,"event":"relay","on":false}`). Each returns the event or a message saying what is wrong.

import { MODES, type Mode } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { didYouMean } from '../did-you-mean.ts';
import type { TraceEvent } from './types.ts';

export const EVENT_SPELLINGS =
  'relay:on, relay:off, mode:<prepaid|postpaid|measurement|relay_off>, offline, online, recharge:<paise>[:<transaction id>], tariff:<eb|dg>';

/** The names a CSV event token begins with: what a typo is compared with. */
const EVENT_NAMES = ['offline', 'online', 'relay', 'mode', 'tariff', 'recharge'];

const TXN = /^[A-Za-z0-9_.:-]{1,64}$/;

function recharge(amount: unknown, txn: unknown): TraceEvent | string {
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0)
    return `recharge amount must be a positive integer of paise, got ${JSON.stringify(amount)}`;
  if (txn === undefined) return { type: 'recharge', amount };
  if (typeof txn !== 'string' || !TXN.test(txn))
    return 'transaction id must be 1-64 characters of A-Z a-z 0-9 _ . : -';
  return { type: 'recharge', amount, transactionId: txn };
}

/** One CSV event token. */
export function eventFromText(token: string): TraceEvent | string {
  const [name, arg, ...rest] = token.trim().split(':');
  switch (name) {
    case 'offline':
    case 'online':
      return arg === undefined ? { type: name } : `${name} takes no argument`;
    case 'relay':
      return arg === 'on' || arg === 'off' ? { type: 'relay', on: arg === 'on' } : 'relay:on or relay:off';
    case 'mode':
      return MODES.includes(arg as Mode) ? { type: 'mode', mode: arg as Mode } : `mode:${MODES.join('|')}`;
    case 'tariff':
      return arg === 'eb' || arg === 'dg'
        ? { type: 'active_tariff', tariff: arg === 'eb' ? 1 : 2 }
        : 'tariff:eb or tariff:dg';
    case 'recharge':
      return recharge(/^\d+$/.test(arg ?? '') ? Number(arg) : arg, rest.length ? rest.join(':') : undefined);
    default:
      return `unknown event ${JSON.stringify(token)}${didYouMean(name ?? '', EVENT_NAMES)}; events are ${EVENT_SPELLINGS}`;
  }
}

const EVENT_FIELDS: Record<string, readonly string[]> = {
  relay: ['on'],
  mode: ['mode'],
  offline: [],
  online: [],
  recharge: ['amount', 'transaction_id'],
  active_tariff: ['tariff'],
};

/** A JSON Lines event object (its `ts` and `event` already read); names the field at fault. */
export function eventFromObject(
  o: Record<string, unknown>,
): { ok: true; event: TraceEvent } | { ok: false; field: string; msg: string } {
  const name = o['event'];
  const known = typeof name === 'string' ? EVENT_FIELDS[name] : undefined;
  if (!known)
    return {
      ok: false,
      field: 'event',
      msg: `unknown event ${JSON.stringify(name)}${typeof name === 'string' ? didYouMean(name, Object.keys(EVENT_FIELDS)) : ''}; one of ${Object.keys(EVENT_FIELDS).join(', ')}`,
    };
  for (const k of Object.keys(o)) {
    if (k !== 'ts' && k !== 'event' && k !== 'type' && !k.startsWith('x_') && !known.includes(k))
      return {
        ok: false,
        field: k,
        msg: `unknown field of a ${name} event (it takes ${known.join(', ') || 'nothing'})`,
      };
  }
  const bad = (field: string, msg: string) => ({ ok: false as const, field, msg });
  switch (name) {
    case 'relay':
      return typeof o['on'] === 'boolean'
        ? { ok: true, event: { type: 'relay', on: o['on'] } }
        : bad('on', 'must be true or false');
    case 'mode':
      return MODES.includes(o['mode'] as Mode)
        ? { ok: true, event: { type: 'mode', mode: o['mode'] as Mode } }
        : bad('mode', `must be one of ${MODES.join(', ')}`);
    case 'active_tariff':
      return o['tariff'] === 1 || o['tariff'] === 2
        ? { ok: true, event: { type: 'active_tariff', tariff: o['tariff'] } }
        : bad('tariff', 'must be 1 (EB) or 2 (DG)');
    case 'recharge': {
      const r = recharge(o['amount'], o['transaction_id']);
      return typeof r === 'string'
        ? bad(r.startsWith('transaction') ? 'transaction_id' : 'amount', r)
        : { ok: true, event: r };
    }
    default:
      return { ok: true, event: { type: name as 'offline' | 'online' } };
  }
}
