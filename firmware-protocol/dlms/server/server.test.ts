// The application server, request APDU in, response APDU out [AS-x.y]: golden exchanges in hex first,
// then the rules that need more than one exchange.
import { describe, expect, it } from 'vitest';
import { associationRequest, MECHANISM } from '../apdu/aarq.ts';
import { decodeApdu } from '../apdu/apdu.ts';
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
    name: '[AS-3.6] a full meter whose sample lacks the phase current: object-unavailable, never a made-up number',
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
      // A meter with a 64 KiB buffer: every value in one response, none in blocks [AS-6.1].
      const s = associated(who, 0xffff);
      const big = { ...CONFIG, maxReceivePduSize: 0xffff };
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
            undefined,
            big,
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
