// What a SET or an ACTION from a DLMS client asks of the meter, as the contract's command [CO-2.4,
// CO-8.1, CO-9.3, CO-9.4]; and the ACTION or SET a bridge sends for a contract command [CO-10.5]. Pure.

import type { MeterCommand } from '../../mqtt/vocabulary.ts';
import { commandForMethod, methodForRelay } from './disconnect.ts';
import { OBIS } from './obis.ts';
import type { Obis } from './types.ts';
import { modeFromValue, modeValue } from './values.ts';

export type Refusal = { refused: 'object-undefined' | 'type-unmatched' | 'other-reason'; rule: string };

const PAISE_MAX = 100_000; // spec-decisions 10: a tariff is 0..100,000 paise per kWh.

/** [CO-9.4] A SET of attribute 2 of one of our Data objects, with an integer value. */
export function commandForSet(obis: Obis, value: number): MeterCommand | Refusal {
  if (!Number.isInteger(value)) return { refused: 'type-unmatched', rule: 'CO-9.4' };
  switch (obis) {
    case OBIS.mode: {
      const mode = modeFromValue(value);
      return mode === null ? { refused: 'other-reason', rule: 'CO-9.4' } : { op: 'set_mode', mode };
    }
    case OBIS.ebTariff:
    case OBIS.dgTariff:
      if (value < 0 || value > PAISE_MAX) return { refused: 'other-reason', rule: 'CO-9.4' };
      return { op: 'set_tariff', slot: obis === OBIS.ebTariff ? 'eb' : 'dg', paise: value };
    case OBIS.activeTariff:
      return value === 1 || value === 2
        ? { op: 'set_active_tariff', tariff: value }
        : { refused: 'other-reason', rule: 'CO-9.4' };
    default:
      return { refused: 'object-undefined', rule: 'CO-2.4' };
  }
}

/**
 * [CO-8.1, CO-9.3] An ACTION: disconnect control's methods 1 and 2, the credit's update_amount with a
 * positive number of paise. A recharge needs a transaction id the caller makes (DLMS has none).
 */
export function commandForAction(
  obis: Obis,
  methodId: number,
  param: number,
  transactionId: string,
): MeterCommand | Refusal {
  if (obis === OBIS.disconnectControl) {
    return commandForMethod(methodId) ?? { refused: 'object-undefined', rule: 'CO-8.1' };
  }
  if (obis === OBIS.credit && methodId === 1) {
    if (!Number.isInteger(param) || param <= 0) return { refused: 'other-reason', rule: 'CO-9.3' };
    return { op: 'recharge', amount: param, transactionId };
  }
  return { refused: 'object-undefined', rule: 'CO-2.4' };
}

export type DlmsRequest =
  | { kind: 'action'; classId: number; obis: Obis; methodId: number; param: number }
  | { kind: 'set'; classId: number; obis: Obis; attributeId: 2; value: number };

/**
 * [CO-10.5] The bridge's request for a contract command; null for one DLMS cannot carry (WiFi, the
 * gateway, a live read: the bridge answers those itself, `unsupported` where it must).
 */
export function requestForCommand(c: MeterCommand): DlmsRequest | null {
  switch (c.op) {
    case 'set_relay':
      return {
        kind: 'action',
        classId: 70,
        obis: OBIS.disconnectControl,
        methodId: methodForRelay(c.on),
        param: 0,
      };
    case 'recharge':
      return { kind: 'action', classId: 112, obis: OBIS.credit, methodId: 1, param: c.amount };
    case 'set_mode':
      return { kind: 'set', classId: 1, obis: OBIS.mode, attributeId: 2, value: modeValue(c.mode) };
    case 'set_tariff':
      return {
        kind: 'set',
        classId: 1,
        obis: c.slot === 'eb' ? OBIS.ebTariff : OBIS.dgTariff,
        attributeId: 2,
        value: c.paise,
      };
    case 'set_active_tariff':
      return { kind: 'set', classId: 1, obis: OBIS.activeTariff, attributeId: 2, value: c.tariff };
    default:
      return null;
  }
}
