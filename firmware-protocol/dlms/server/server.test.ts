// The application server, request APDU in, response APDU out [AS-x.y]: golden exchanges in hex first,
// then the rules that need more than one exchange.
import { describe, expect, it } from 'vitest';
import { associationRequest, MECHANISM } from '../apdu/aarq.ts';
import { decodeApdu } from '../apdu/apdu.ts';
import { rangeToAccess } from '../apdu/cosem.ts';
import { decodeData } from '../apdu/data.ts';
import { dateTimeFromInstant, encodeDateTime } from '../apdu/datetime.ts';
import { OBIS } from '../cosem/obis.ts';
import { OBJECTS } from '../cosem/object-list.ts';
import { answerCommand, NEW_SESSION, serve } from './server.ts';
import { ask, associated, bytes, CONFIG, hex, NOW, view } from './test-helpers.ts';

/** Golden exchanges: each request's hex and the exact response's hex. */
const GOLDEN: { name: string; who: 'public' | 'reader'; request: string; response: string }[] = [
  {
    name: '[AS-3.3] public client reads the clock: 2026-11-26 13:30:00 IST, deviation −330',
    who: 'public',
    request: 'C0 01 C1 00 08 00 00 01 00 00 FF 02 00',
    response: 'C4 01 C1 00 09 0C 07 EA 0B 1A 04 0D 1E 00 00 FE B6 00',
  },
  {
    name: '[AS-3.1, CO-3.3] meter reader reads voltage: 230.00 V is long-unsigned 23000',
    who: 'reader',
    request: 'C0 01 C1 00 03 01 00 0C 07 00 FF 02 00',
    response: 'C4 01 C1 00 12 59 D8',
  },
  {
    name: '[CO-3.1] its scaler_unit: {−2, V (35)}',
    who: 'reader',
    request: 'C0 01 C1 00 03 01 00 0C 07 00 FF 03 00',
    response: 'C4 01 C1 00 02 02 0F FE 16 23',
  },
  {
    name: '[AS-3.1] the public client does not see the voltage register: object-undefined',
    who: 'public',
    request: 'C0 01 C1 00 03 01 00 0C 07 00 FF 02 00',
    response: 'C4 01 C1 01 04',
  },
  {
    name: '[AS-3.1] a wrong class id: object-class-inconsistent',
    who: 'reader',
    request: 'C0 01 C1 00 01 01 00 0C 07 00 FF 02 00',
    response: 'C4 01 C1 01 09',
  },
  {
    name: '[AS-3.6, CO-6.4] a basic meter has no phase current: object-unavailable',
    who: 'reader',
    request: 'C0 01 C1 00 03 01 00 0B 07 00 FF 02 00',
    response: 'C4 01 C1 01 0B',
  },
  {
    name: '[AS-3.1, CO-5.1] nobody reads the LLS secret: read-write-denied',
    who: 'reader',
    request: 'C0 01 C1 00 0F 00 00 28 00 00 FF 07 00',
    response: 'C4 01 C1 01 03',
  },
  {
    name: '[AS-3.7] the logical device name: MSK and the serial',
    who: 'public',
    request: 'C0 01 C1 00 01 00 00 2A 00 00 FF 02 00',
    response: 'C4 01 C1 00 09 09 4D 53 4B 53 4E 30 30 30 31',
  },
  {
    name: '[AS-3.2] selective access on a register: scope-of-access-violated',
    who: 'reader',
    request: 'C0 01 C1 00 03 01 00 0C 07 00 FF 02 01 01 02 04 00 00 00 01 00',
    response: 'C4 01 C1 01 0D',
  },
  {
    name: '[AS-7.1] the public client may not switch the relay: it does not see disconnect control',
    who: 'public',
    request: 'C3 01 C1 00 46 00 00 60 03 0A FF 01 01 0F 00',
    response: 'C7 01 C1 04 00',
  },
  {
    name: "[AS-7.1] the clock methods are nobody's: read-write-denied",
    who: 'reader',
    request: 'C3 01 C1 00 08 00 00 01 00 00 FF 06 01 10 00 3C',
    response: 'C7 01 C1 03 00',
  },
  {
    name: '[AS-7.3, CO-9.4] a mode beyond relay_off: other-reason, before the meter sees it',
    who: 'reader',
    request: 'C1 01 C1 00 01 00 00 60 32 00 FF 02 00 16 07',
    response: 'C5 01 C1 FA',
  },
  {
    name: '[AS-7.3] writing the voltage: read-write-denied',
    who: 'reader',
    request: 'C1 01 C1 00 03 01 00 0C 07 00 FF 02 00 12 00 01',
    response: 'C5 01 C1 03',
  },
  {
    name: '[AS-1.3, AP-8.2] a ciphered glo-get-request: service-unknown / service-not-supported',
    who: 'reader',
    request: 'C8 10 30 00 00 00 01 11 22 33 44 55 66 77 88 99 AA BB',
    response: 'D8 02 02',
  },
  {
    name: '[AS-1.3, AP-8.2] a broken GET (truncated): service-not-allowed / operation-not-possible',
    who: 'reader',
    request: 'C0 01 C1 00 03 01 00',
    response: 'D8 01 01',
  },
  {
    name: '[AS-1.3] a GET-Response sent to the server: service-unknown',
    who: 'reader',
    request: 'C4 01 C1 00 12 59 D8',
    response: 'D8 02 02',
  },
  {
    name: '[AS-6.3] get-request-next with no long GET: no-long-get-in-progress',
    who: 'reader',
    request: 'C0 02 C1 00 00 00 01',
    response: 'C4 02 C1 01 00 00 00 01 01 10',
  },
  {
    name: '[AS-2.6] RLRQ: RLRE normal',
    who: 'reader',
    request: '62 00',
    response: '63 03 80 01 00',
  },
];

describe('golden exchanges [AS]', () => {
  it.each(GOLDEN)('$name', ({ who, request, response }) => {
    const r = ask(associated(who), bytes(request));
    expect(r.kind).toBe('reply');
    if (r.kind === 'reply') expect(hex(r.apdu)).toBe(response.replace(/\s+/g, ''));
  });

  it("[AS-7.2, CO-8.1] remote_disconnect is the contract's set_relay off, answered success once the meter takes it", () => {
    const r = ask(associated('reader'), bytes('C3 01 C1 00 46 00 00 60 03 0A FF 01 01 0F 00'));
    expect(r.kind).toBe('command');
    if (r.kind !== 'command') return;
    expect(r.command).toEqual({ op: 'set_relay', on: false });
    expect(hex(answerCommand(r.pending, { ok: true }))).toBe('C7 01 C1 00 00'.replace(/ /g, ''));
    expect(hex(answerCommand(r.pending, { ok: false, error: { code: 'busy', message: 'x' } }))).toBe(
      'C701C10200',
    );
    expect(hex(answerCommand(r.pending, { ok: false, error: { code: 'unsupported', message: 'x' } }))).toBe(
      'C701C1FA00',
    );
  });

  it('[AS-7.4, CO-9.3] update_amount is a recharge with a transaction id the meter names', () => {
    const r = ask(associated('reader'), bytes('C3 01 C1 00 70 00 00 13 0A 00 FF 01 01 05 00 00 27 10'));
    expect(r.kind === 'command' && r.command).toEqual({
      op: 'recharge',
      amount: 10_000,
      transactionId: `dlms-32-${NOW}-1`,
    });
    const again = ask(associated('reader'), bytes('C3 01 C1 00 70 00 00 13 0A 00 FF 01 01 05 00 00 00 00'));
    expect(again.kind === 'reply' && hex(again.apdu)).toBe('C701C1FA00'); // 0 paise: other-reason
  });

  it("[AS-7.3, CO-9.4] SET of the mode to postpaid is the contract's set_mode", () => {
    const r = ask(associated('reader'), bytes('C1 01 C1 00 01 00 00 60 32 00 FF 02 00 16 01'));
    expect(r.kind === 'command' && r.command).toEqual({ op: 'set_mode', mode: 'postpaid' });
    if (r.kind === 'command') expect(hex(answerCommand(r.pending, { ok: true }))).toBe('C501C100');
  });
});

describe('associations [AS-2]', () => {
  it('[AS-1.4] a GET before any AARQ: service-not-allowed / operation-not-possible', () => {
    const r = serve(CONFIG, NEW_SESSION, 16, bytes('C0 01 C1 00 08 00 00 01 00 00 FF 02 00'), view());
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('D80101');
  });

  it('[AS-2.1, AP-2.12] the meter reader with a wrong password: authentication-failure, no association', () => {
    const aarq = associationRequest({ password: 'wrong!!!' });
    const r = ask(NEW_SESSION, aarq, view(), 32);
    const aare = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    expect(aare?.ok && aare.value.type === 'aare' && aare.value.diagnostic.value).toBe(13);
    expect(r.session.association).toBeNull();
  });

  it('[AS-2.1, AP-2.12] HLS is refused: authentication-mechanism-name-not-recognised', () => {
    const aarq = { ...associationRequest({ password: 'x' }), mechanismName: MECHANISM.hlsGmac };
    const r = ask(NEW_SESSION, aarq, view(), 32);
    const aare = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    expect(aare?.ok && aare.value.type === 'aare' && aare.value.diagnostic.value).toBe(11);
  });

  it('[AS-2.2] an AARQ that fails drops the association in force; RLRQ ends it', () => {
    const s = associated('reader');
    const bad = ask(s, associationRequest({ password: 'nope' }), view(), 32);
    expect(bad.session.association).toBeNull();
    const rel = ask(associated('public'), bytes('62 00'));
    expect(rel.session.association).toBeNull();
  });
});

describe('every attribute an association may read has a value of its declared type [AS-3.5]', () => {
  const fullView = view();
  for (const who of ['public', 'reader'] as const) {
    it(`[AS-3.5] ${who}: each readable attribute decodes as its type, or is object-unavailable`, () => {
      const s = associated(who, 0xffff);
      let read = 0;
      for (const o of OBJECTS) {
        for (const a of o.attributes) {
          if (a.access[who] !== 'read' && a.access[who] !== 'read-write') continue;
          const r = ask(
            s,
            {
              type: 'get-request-normal',
              invoke: { id: 1, confirmed: true, highPriority: true },
              attribute: { classId: o.classId, instance: o.obis, attributeId: a.id },
            },
            fullView,
          );
          const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
          if (!d?.ok || d.value.type !== 'get-response-normal')
            throw new Error(`${o.obis}/${a.id}: ${JSON.stringify(d)}`);
          const res = d.value.result;
          if (res.kind === 'error') {
            expect([`${o.obis}/${a.id}`, res.result]).toEqual([`${o.obis}/${a.id}`, 11]);
            continue;
          }
          read++;
          expect([`${o.obis}/${a.id}`, res.data.type]).toEqual([`${o.obis}/${a.id}`, a.type]);
        }
      }
      expect(read).toBeGreaterThan(who === 'public' ? 20 : 150);
    });
  }
});

describe('profiles [AS-4]', () => {
  const range = (fromMs: number, toMs: number) =>
    rangeToAccess({
      restrictingObject: { classId: 8, logicalName: OBIS.clock, attributeIndex: 2, dataIndex: 0 },
      from: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(fromMs, 330)) },
      to: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(toMs, 330)) },
      selectedValues: [],
    });
  const invoke = { id: 2, confirmed: true, highPriority: true };
  const buffer = { classId: 7, instance: OBIS.blockLoadProfile, attributeId: 2 };

  it('[AS-4.2, CO-7.8] block load by range: the blocks whose end lies in [from, to]', () => {
    // Blocks end at 13:30, 13:15, 13:00, ... IST; 12:45..13:15 IST holds three.
    const r = ask(associated('reader'), {
      type: 'get-request-normal',
      invoke,
      attribute: buffer,
      access: range(NOW - 45 * 60_000, NOW - 15 * 60_000),
    });
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    if (!d?.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
      throw new Error('no data');
    const rows = d.value.result.data;
    expect(rows.type === 'array' && rows.items.length).toBe(3);
    // Each block of 15 one-minute samples at 1 kW: 250 Wh (the first counts from the sample before it).
    const first = rows.type === 'array' ? rows.items[0] : undefined;
    expect(first?.type === 'structure' && first.items[2]).toEqual({
      type: 'double-long-unsigned',
      value: 250,
    });
  });

  it('[AS-4.2] a range on another column than the clock: scope-of-access-violated', () => {
    const a = range(0, NOW);
    if (a.parameters.type === 'structure')
      a.parameters.items[0] = {
        type: 'structure',
        items: [
          { type: 'long-unsigned', value: 3 },
          { type: 'octet-string', value: bytes('01000C0700FF') },
          { type: 'integer', value: 2 },
          { type: 'long-unsigned', value: 0 },
        ],
      };
    const r = ask(associated('reader'), { type: 'get-request-normal', invoke, attribute: buffer, access: a });
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('C401C2010D');
  });

  it('[AS-4.2] selector 2 (entries) is not offered: scope-of-access-violated', () => {
    const access = { selector: 2, parameters: { type: 'null-data' as const } };
    const r = ask(associated('reader'), { type: 'get-request-normal', invoke, attribute: buffer, access });
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('C401C2010D');
  });

  it('[AS-6.1, AS-6.2] a buffer over the client PDU size comes in blocks, each asked for, and reassembles', () => {
    let s = associated('reader', 128);
    let r = ask(s, { type: 'get-request-normal', invoke, attribute: buffer });
    const chunks: Uint8Array[] = [];
    for (let n = 1; ; n++) {
      if (r.kind !== 'reply') throw new Error('command?');
      expect(r.apdu.length).toBeLessThanOrEqual(128);
      const d = decodeApdu(r.apdu);
      if (!d.ok || d.value.type !== 'get-response-with-datablock') throw new Error(hex(r.apdu));
      const b = d.value.block;
      expect(b.blockNumber).toBe(n);
      if (b.result.kind !== 'raw') throw new Error('refused');
      chunks.push(b.result.raw);
      s = r.session;
      if (b.last) break;
      r = ask(s, { type: 'get-request-next', invoke, blockNumber: n });
    }
    const whole = decodeData(Buffer.concat(chunks));
    expect(whole.ok && whole.value.type === 'array' && whole.value.items.length).toBe(9); // 2 h of 15-min blocks
    expect(chunks.length).toBeGreaterThan(2);
    const after = ask(s, { type: 'get-request-next', invoke, blockNumber: chunks.length });
    expect(after.kind === 'reply' && hex(after.apdu).slice(-4)).toBe('0110'); // no-long-get-in-progress
  });

  it('[AS-6.3] asking for the wrong block ends the transfer: data-block-number-invalid', () => {
    const s = associated('reader', 128);
    const r = ask(s, { type: 'get-request-normal', invoke, attribute: buffer });
    const wrong = ask(r.session, { type: 'get-request-next', invoke, blockNumber: 5 });
    expect(wrong.kind === 'reply' && hex(wrong.apdu)).toBe('C402C201000000050113');
    expect(wrong.session.blocks).toHaveLength(0);
  });

  it('[AS-6.4] GET with-list: a result per item in order, refusals among them', () => {
    const items = [
      { attribute: { classId: 3, instance: OBIS.voltage, attributeId: 2 } },
      { attribute: { classId: 3, instance: OBIS.phaseCurrent, attributeId: 2 } },
      { attribute: { classId: 8, instance: OBIS.clock, attributeId: 3 } },
    ];
    const r = ask(associated('reader'), { type: 'get-request-with-list', invoke, items });
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('C403C203001259D8010B0010FEB6');
  });
});

describe('SET in blocks, selected columns, the associated SAP [AS-7.3, AS-4.2, AS-1.4]', () => {
  const invoke = { id: 3, confirmed: true, highPriority: true };
  const mode = { classId: 1, instance: OBIS.mode, attributeId: 2 };

  // enum 2 (`16 02`) in two blocks of one byte each, as a client with a tiny PDU would send it.
  const block = (n: number, last: boolean, raw: number) => ({
    last,
    blockNumber: n,
    raw: Uint8Array.of(raw),
  });
  const first = {
    type: 'set-request-with-first-datablock' as const,
    invoke,
    attribute: mode,
    block: block(1, false, 0x16),
  };
  const second = { type: 'set-request-with-datablock' as const, invoke, block: block(2, true, 0x02) };

  it('[AS-7.3, AP-6.2] a SET value in blocks is put together, then decided as a normal SET', () => {
    const r1 = ask(associated('reader'), first);
    expect(r1.kind === 'reply' && hex(r1.apdu)).toBe('C502C300000001');
    const r2 = ask(r1.session, second);
    expect(r2.kind === 'command' && r2.command).toEqual({ op: 'set_mode', mode: 'measurement' });
    if (r2.kind === 'command') expect(hex(answerCommand(r2.pending, { ok: true }))).toBe('C503C30000000002');
    expect(r2.session.setBlocks).toBeNull();
  });

  it('[AS-7.3] a SET block out of turn ends it: data-block-number-invalid; a block with none going: no-long-set-in-progress', () => {
    const r1 = ask(associated('reader'), first);
    const r2 = ask(r1.session, { ...second, block: block(7, true, 0x02) });
    expect(r2.kind === 'reply' && hex(r2.apdu)).toBe('C503C31300000007');
    expect(r2.session.setBlocks).toBeNull();
    const r3 = ask(associated('reader'), second);
    expect(r3.kind === 'reply' && hex(r3.apdu)).toBe('C503C31200000002');
  });

  it('[AS-4.2] selected values pick the columns asked for, in that order', () => {
    const NOW_RANGE = rangeToAccess({
      restrictingObject: { classId: 8, logicalName: OBIS.clock, attributeIndex: 2, dataIndex: 0 },
      from: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(NOW - 15 * 60_000, 330)) },
      to: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(NOW, 330)) },
      selectedValues: [
        { classId: 112, logicalName: OBIS.credit, attributeIndex: 2, dataIndex: 0 },
        { classId: 8, logicalName: OBIS.clock, attributeIndex: 2, dataIndex: 0 },
      ],
    });
    const r = ask(associated('reader'), {
      type: 'get-request-normal',
      invoke,
      attribute: { classId: 7, instance: OBIS.blockLoadProfile, attributeId: 2 },
      access: NOW_RANGE,
    });
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    if (!d?.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
      throw new Error('no data');
    const rows = d.value.result.data;
    expect(rows.type === 'array' && rows.items.length).toBe(2); // blocks ending 13:15 and 13:30 IST
    // The block [13:15, 13:30) holds the samples before 13:30: the last has the balance 50,000 − 119.
    const last = rows.type === 'array' ? rows.items[1] : undefined;
    expect(last?.type === 'structure' && last.items.map((c) => c.type)).toEqual([
      'double-long',
      'octet-string',
    ]);
    expect(last?.type === 'structure' && last.items[0]).toEqual({ type: 'double-long', value: 50_000 - 119 });
  });

  it('[AS-1.4] a request from another client SAP than the one associated is served as with no association', () => {
    const r = ask(associated('public'), bytes('C0 01 C1 00 03 01 00 0C 07 00 FF 02 00'), view(), 32);
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('D80101');
  });
});
