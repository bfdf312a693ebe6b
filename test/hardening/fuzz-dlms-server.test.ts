// Property-based fuzzing of the COSEM application server (issue 21 item 6): whatever APDU bytes arrive in
// an association, `serve` never throws and answers an APDU that decodes and fits the client's max receive
// PDU size, or a contract command [AS-1.1, AS-1.3]; any GET of any object, class and attribute gets a
// value or a data-access-result [AS-3.1].
// Budget: fuzz-config.ts (CI runs a few hundred cases; `npm run fuzz` runs for minutes).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeApdu } from '../../firmware-protocol/dlms/apdu/apdu.ts';
import { OBJECTS } from '../../firmware-protocol/dlms/cosem/object-list.ts';
import { serve } from '../../firmware-protocol/dlms/server/server.ts';
import { associated, bytes, CONFIG, view } from '../../firmware-protocol/dlms/server/test-helpers.ts';
import { fuzzParams, fuzzTimeout } from './fuzz-config.ts';

const PDU = 200;
const v = view();
const sessions = { public: associated('public', PDU, v), reader: associated('reader', PDU, v) };
const SEEDS = [
  'C0 01 C1 00 08 00 00 01 00 00 FF 02 00',
  'C0 01 C1 00 07 01 00 63 01 00 FF 02 01 01 02 04 02 04 12 00 08 09 06 00 00 01 00 00 FF 0F 02 12 00 00 09 0C 07 EA 0B 1A 04 0C 00 00 00 FE B6 00 09 0C 07 EA 0B 1A 04 0E 00 00 00 FE B6 00 01 00',
  'C0 03 C1 02 00 03 01 00 0C 07 00 FF 02 00 00 08 00 00 01 00 00 FF 02 00',
  'C1 01 C1 00 01 00 00 60 32 00 FF 02 00 16 01',
  'C1 02 C1 00 01 00 00 60 32 00 FF 02 00 01 00 00 00 01 02 16 01',
  'C3 01 C1 00 46 00 00 60 03 0A FF 01 01 0F 00',
  'C3 01 C1 00 70 00 00 13 0A 00 FF 01 01 05 00 00 27 10',
  'C0 02 C1 00 00 00 01',
  '62 00',
].map(bytes);

const mutated = fc
  .tuple(
    fc.constantFrom(...SEEDS),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
    fc.nat(),
  )
  .map(([seed, flips, cut]) => {
    const b = Uint8Array.from(seed);
    for (const [i, x] of flips) b[i % b.length] = x;
    return b.slice(0, Math.max(1, b.length - (cut % 4)));
  });
const hostile = fc.oneof(fc.uint8Array({ maxLength: 300 }), mutated);

function expectAnswer(r: ReturnType<typeof serve>): void {
  if (r.kind !== 'reply') return;
  expect(r.apdu.length).toBeLessThanOrEqual(PDU);
  expect(decodeApdu(r.apdu).ok).toBe(true);
}

describe('[AS-1.1, AS-1.3] the server answers whatever arrives', () => {
  it(
    'hostile and mutated APDUs in either association: a decodable answer within the PDU size, never a throw',
    () => {
      fc.assert(
        fc.property(
          hostile,
          fc.constantFrom('public', 'reader') as fc.Arbitrary<'public' | 'reader'>,
          (apdu, who) => {
            const s = sessions[who];
            expectAnswer(serve(CONFIG, s, s.association!.clientSap, apdu, v));
          },
        ),
        fuzzParams(400),
      );
    },
    fuzzTimeout(30_000),
  );

  it(
    '[AS-3.1] a GET of any object under any class and attribute: a value or a data-access-result',
    () => {
      const obis = fc.oneof(fc.constantFrom(...OBJECTS.map((o) => o.obis)), fc.constant('1.2.3.4.5.6'));
      fc.assert(
        fc.property(
          obis,
          fc.integer({ min: 0, max: 200 }),
          fc.integer({ min: -128, max: 127 }),
          (instance, classId, attributeId) => {
            const r = serve(CONFIG, sessions.reader, 32, encodeGet(classId, instance, attributeId), v);
            expectAnswer(r);
            const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
            expect(d?.ok && d.value.type.startsWith('get-response')).toBe(true);
          },
        ),
        fuzzParams(300),
      );
    },
    fuzzTimeout(30_000),
  );
});

function encodeGet(classId: number, instance: string, attributeId: number): Uint8Array {
  const ln = instance.split('.').map(Number);
  return Uint8Array.from([0xc0, 0x01, 0xc1, classId >> 8, classId & 0xff, ...ln, attributeId & 0xff, 0x00]);
}
