// The value of one attribute of a non-profile object, from the meter view [AS-3]: association, SAP
// assignment, Data, Register, Clock, Disconnect control, Account, Credit. A value the meter does not
// have is a data-access-result, never a made-up number [AS-3.6]. Pure.

import { APPLICATION_CONTEXT, MECHANISM } from '../apdu/aarq.ts';
import { encodeOid } from '../apdu/ber.ts';
import type { GetDataResult } from '../apdu/cosem.ts';
import type { Data } from '../apdu/data.ts';
import { DAR } from '../apdu/errors.ts';
import { CONFORMANCE_BITS } from '../apdu/initiate.ts';
import { disconnectValues } from '../cosem/disconnect.ts';
import { OBIS } from '../cosem/obis.ts';
import { objectListEntries } from '../cosem/object-list.ts';
import { type Association, CLIENT_SAP, type CosemObject, UNITS } from '../cosem/types.ts';
import {
  CURRENCY,
  counterValue,
  kindOf,
  nameplateValues,
  prepaidValues,
  registerValue,
} from '../cosem/values.ts';
import {
  dateTimeData,
  intData,
  ln,
  objectListData,
  octets,
  scalerUnitData,
  UNSPECIFIED_DATE_TIME,
  visible,
} from './encode.ts';
import { lastCaptured } from './profiles.ts';
import type { AssociationInForce, MeterView, ServerConfig } from './view.ts';

const ok = (data: Data): GetDataResult => ({ kind: 'data', data });
const refused = (result: number): GetDataResult => ({ kind: 'error', result });
/** [AS-3.6] Not measured, or not a value this type can hold. */
const UNAVAILABLE = refused(DAR.objectUnavailable);
const int = (type: Parameters<typeof intData>[0], v: number | null | undefined): GetDataResult => {
  if (v === null || v === undefined) return UNAVAILABLE;
  const d = intData(type, v);
  return d === null ? UNAVAILABLE : ok(d);
};

export interface ReadContext {
  view: MeterView;
  association: AssociationInForce;
  config: ServerConfig;
}

/** [AS-3.1] Attribute `id` (2 and up; 1 is answered by the caller) of a non-profile object. */
export function readAttribute(o: CosemObject, id: number, c: ReadContext): GetDataResult {
  switch (o.className) {
    case 'associationLn':
      return association(o, id, c);
    case 'sapAssignment': {
      const ldn = nameplateValues(c.view.snapshot.info).logicalDeviceName;
      return ok({
        type: 'array',
        items: [
          {
            type: 'structure',
            items: [
              { type: 'long-unsigned', value: c.config.serverSap },
              octets(new TextEncoder().encode(ldn)),
            ],
          },
        ],
      });
    }
    case 'data':
      return dataValue(o, c);
    case 'register': {
      const su = o.scalerUnit!;
      if (id === 3) return ok(scalerUnitData(su.scaler, UNITS[su.unit]));
      // [AS-3.8] A register only a profile captures holds what it captured last.
      const now = registerValue(o.obis, c.view.snapshot)?.value;
      return int(o.attributes.find((a) => a.id === 2)!.type, now ?? lastCaptured(o.obis, c));
    }
    case 'clock':
      return clock(id, c);
    case 'disconnectControl': {
      const d = disconnectValues(c.view.snapshot.state, c.view.snapshot.info.has_relay);
      if (id === 2) return ok({ type: 'boolean', value: d.outputState });
      return ok({ type: 'enum', value: id === 3 ? d.controlState : d.controlMode });
    }
    case 'account':
      return account(id, c);
    case 'credit':
      return credit(id, c);
    default:
      return refused(DAR.objectUnavailable);
  }
}

/** [AS-3.4] Association LN: each client sees its own association; another's is described, not in force. */
function association(o: CosemObject, id: number, c: ReadContext): GetDataResult {
  const who: Association =
    o.obis === OBIS.associationPublic
      ? 'public'
      : o.obis === OBIS.associationReader
        ? 'reader'
        : c.association.who;
  const current = who === c.association.who;
  const lls = who === 'reader';
  switch (id) {
    case 2:
      return ok(objectListData(objectListEntries(who, kindOf(c.view.snapshot.info))));
    case 3:
      return ok({
        type: 'structure',
        items: [
          { type: 'integer', value: CLIENT_SAP[who] },
          { type: 'long-unsigned', value: c.config.serverSap },
        ],
      });
    case 4:
      return ok(octets(encodeOid(APPLICATION_CONTEXT.ln)));
    case 5: {
      const bits = CONFORMANCE_BITS.map((b) =>
        current && c.association.conformance.includes(b) ? '1' : '0',
      );
      return ok({
        type: 'structure',
        items: [
          { type: 'bit-string', value: bits.join('') },
          { type: 'long-unsigned', value: c.config.maxReceivePduSize },
          { type: 'long-unsigned', value: current ? Math.min(c.association.clientMaxPdu, 0xffff) : 0 },
          { type: 'unsigned', value: 6 },
          { type: 'integer', value: 0 },
          octets(new Uint8Array(0)),
        ],
      });
    }
    case 6:
      return ok(octets(encodeOid(lls ? MECHANISM.lls : MECHANISM.lowest)));
    case 8: // 0 non-associated, 2 associated
      return ok({ type: 'enum', value: current ? 2 : 0 });
    case 9:
      return ok(octets(new Uint8Array(0)));
    default:
      return refused(DAR.readWriteDenied);
  }
}

function clock(id: number, c: ReadContext): GetDataResult {
  const off = c.config.offsetMin;
  switch (id) {
    case 2:
      return ok(dateTimeData(c.view.now, off));
    case 3: // [AX-5.4] the same sign as a date-time's deviation: IST is −330.
      return ok({ type: 'long', value: -off });
    case 4:
      return ok({ type: 'unsigned', value: 0 });
    case 5:
    case 6:
      return ok(UNSPECIFIED_DATE_TIME);
    case 7:
      return ok({ type: 'integer', value: 0 });
    case 8:
      return ok({ type: 'boolean', value: false });
    default: // 9 clock_base: 1 internal crystal
      return ok({ type: 'enum', value: 1 });
  }
}

/** [AS-3.7] Data objects: name plate, counters, the balance in the Indian range, our mode and tariffs. */
function dataValue(o: CosemObject, c: ReadContext): GetDataResult {
  const m = c.view.snapshot;
  const type = o.attributes.find((a) => a.id === 2)!.type;
  const plate = nameplateValues(m.info);
  const pre = prepaidValues(m.state, m.sample);
  switch (o.obis) {
    case OBIS.logicalDeviceName:
      return ok(octets(new TextEncoder().encode(plate.logicalDeviceName)));
    case OBIS.serialNumber:
      return ok(visible(plate.serialNumber));
    case OBIS.manufacturer:
      return ok(visible(plate.manufacturer));
    case OBIS.firmwareVersion:
      return ok(visible(plate.firmwareVersion));
    case OBIS.meterType:
      return int(type, plate.meterType);
    case OBIS.balanceIndia:
      return int(type, pre.balance);
    case OBIS.balanceTimeIndia:
      return ok(dateTimeData(pre.balanceTs, c.config.offsetMin));
    case OBIS.mode:
      return int(type, pre.mode);
    case OBIS.ebTariff:
      return int(type, pre.ebTariff);
    case OBIS.dgTariff:
      return int(type, pre.dgTariff);
    case OBIS.activeTariff:
      return int(type, pre.activeTariff);
    case OBIS.paymentGateway:
      return ok({ type: 'boolean', value: pre.paymentGateway });
    case OBIS.billingDate: // [AS-3.7] the last billing date: the start of this local month
      return ok(dateTimeData(monthStart(c.view.now, c.config.offsetMin), c.config.offsetMin));
    default:
      // Counters; anything else has no value of its own (block columns live in their profile).
      return int(type, counterValue(o.obis, m));
  }
}

function monthStart(ts: number, offsetMin: number): number {
  const local = new Date(ts + offsetMin * 60_000);
  return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1) - offsetMin * 60_000;
}

/** [CO-9.1] Account: mode and status, the balance as available credit, currency INR at scale −2. */
function account(id: number, c: ReadContext): GetDataResult {
  const pre = prepaidValues(c.view.snapshot.state, c.view.snapshot.sample);
  switch (id) {
    case 2:
      return ok({
        type: 'structure',
        items: [
          { type: 'enum', value: pre.accountMode.mode },
          { type: 'enum', value: pre.accountMode.status },
        ],
      });
    case 3:
      return ok({ type: 'unsigned', value: 1 });
    case 4: // current_credit_status: bit 3 "in credit" while the balance is positive
      return ok({ type: 'bit-string', value: pre.balance > 0 ? '00010000' : '00000000' });
    case 5:
      return int('double-long', pre.balance);
    case 6:
    case 7:
    case 8:
      return ok({ type: 'double-long', value: 0 });
    case 9:
      return ok({ type: 'array', items: [ln(OBIS.credit)] });
    case 10:
      return ok({ type: 'array', items: [] });
    default:
      return ok({
        type: 'structure',
        items: [
          visible(CURRENCY.name),
          { type: 'integer', value: CURRENCY.scale },
          { type: 'enum', value: CURRENCY.unit },
        ],
      });
  }
}

/** [CO-9.2] Credit: the balance; type token credit, status in use or exhausted. */
function credit(id: number, c: ReadContext): GetDataResult {
  const pre = prepaidValues(c.view.snapshot.state, c.view.snapshot.sample);
  switch (id) {
    case 2:
      return int('double-long', pre.balance);
    case 3:
      return ok({ type: 'enum', value: 0 });
    case 4:
      return ok({ type: 'unsigned', value: 1 });
    case 5:
    case 6:
      return ok({ type: 'double-long', value: 0 });
    case 7:
      return ok({ type: 'bit-string', value: '00000' });
    default: // 8 status: 3 in use, 4 exhausted
      return ok({ type: 'enum', value: pre.balance > 0 ? 3 : 4 });
  }
}
