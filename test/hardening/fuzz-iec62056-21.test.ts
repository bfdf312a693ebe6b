// Property-based fuzzing of the IEC 62056-21 codec (issue 21, scope 6): whatever arrives on the optical port,
// decodeMessage answers a Message or a typed error naming a rule and never throws; generated valid messages
// round-trip through encodeMessage [IEC-2, IEC-3]; the splitter gives the same messages however the bytes
// are chunked and never holds more than its bound [IEC-4]; the meter's state machine never throws and
// answers only with messages that decode [IEC-5]. Budget: fuzz-config.ts.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DecodeResult,
  decodeMessage,
  ERROR_CODES,
  encodeMessage,
  type Message,
} from '../../firmware-protocol/iec62056-21/codec.ts';
import type { DataLine, DataSet } from '../../firmware-protocol/iec62056-21/data-set.ts';
import { fromHex, loadVectors } from '../../firmware-protocol/iec62056-21/golden/vectors.ts';
import { createReader, type ReaderState } from '../../firmware-protocol/iec62056-21/reader.ts';
import { createServer, type ServerState } from '../../firmware-protocol/iec62056-21/server.ts';
import { type Piece, Splitter } from '../../firmware-protocol/iec62056-21/splitter.ts';
import { fuzzParams, fuzzTimeout } from './fuzz-config.ts';

const { valid } = loadVectors();
/** The valid vectors, and mode E's option select (IEC-10.2), so the meter meets it among the noise. */
const GOLDEN = [...valid.map((v) => fromHex(v.hex)), fromHex('063235320d0a')];

function expectTyped(result: DecodeResult): void {
  if (result.ok) return;
  expect(ERROR_CODES).toContain(result.error.code);
  expect(result.error.rule).toMatch(/^IEC-\d+(\.\d+)?$/);
  expect(result.error.message.length).toBeLessThan(200);
}

// ---- arbitraries ----

const chars = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(''));
const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Printable ASCII without the characters IEC-3.3 forbids in a value (and without `!`, IEC-2.4). */
const VALUE_CHARS = [...Array(95)]
  .map((_, i) => String.fromCharCode(0x20 + i))
  .filter((c) => !'()*/!'.includes(c))
  .join('');
const UNIT_CHARS = `${VALUE_CHARS}*`;

const dataSet: fc.Arbitrary<DataSet> = fc.record({
  address: fc.oneof(
    fc.constantFrom('F.F', 'C.1.0', '0.9.1', '1.8.0', '1-0:1.8.0*255', '1-0:32.7.0'),
    chars(`${DIGITS}.:-*&CFLP`, 1, 16),
  ),
  values: fc.array(
    fc.oneof(
      chars(VALUE_CHARS, 0, 32).map((value) => ({ value })),
      fc.record({ value: chars(VALUE_CHARS, 0, 32), unit: chars(UNIT_CHARS, 0, 16) }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
});
const lines: fc.Arbitrary<DataLine[]> = fc.array(fc.array(dataSet, { minLength: 1, maxLength: 3 }), {
  minLength: 0,
  maxLength: 6,
});

const message: fc.Arbitrary<Message> = fc.oneof(
  chars(`${DIGITS}${LETTERS} `, 0, 32).map((address) => ({ kind: 'request' as const, address })),
  fc
    .record({
      manufacturer: chars(LETTERS, 3, 3),
      baudChar: fc.constantFrom(...'0123456ABCDEF'),
      enhanced: fc.option(fc.constantFrom(...'0123'), { nil: undefined }),
      ident: chars(`${DIGITS}${LETTERS}.-_ `, 1, 16),
    })
    .map(({ enhanced, ...m }) => ({
      kind: 'identification' as const,
      ...m,
      ...(enhanced === undefined ? {} : { enhanced }),
    })),
  fc
    .record({ protocol: chars('01', 1, 1), baudChar: chars('0123456', 1, 1), mode: chars('012', 1, 1) })
    .map((m) => ({ kind: 'option-select' as const, ...m })),
  lines.map((l) => ({ kind: 'data' as const, lines: l })),
  fc
    .record({ command: chars('PWRE', 1, 1), type: chars(DIGITS, 1, 1), data: chars(VALUE_CHARS, 0, 40) })
    .map((m) => ({ kind: 'command' as const, ...m })),
  fc.constant({ kind: 'break' as const }),
  fc.constant({ kind: 'ack' as const }),
  fc.constant({ kind: 'nak' as const }),
);

/** Random bytes, golden messages, and golden messages with a byte flipped, cut or added. */
const hostile = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }).map((b) => b.map((x) => x & 0x7f)),
  fc.tuple(fc.constantFrom(...GOLDEN), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([g, at, v]) => {
    const b = Uint8Array.from(g);
    b[at % b.length] = v;
    return b;
  }),
  fc.tuple(fc.constantFrom(...GOLDEN), fc.nat()).map(([g, n]) => g.subarray(0, n % (g.length + 1))),
);

describe('decodeMessage [IEC-2][IEC-3][IEC-6]', () => {
  it(
    'never throws: a Message or a typed error naming a rule',
    () => {
      fc.assert(
        fc.property(hostile, (bytes) => {
          expectTyped(decodeMessage(bytes));
        }),
        fuzzParams(2_000),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    'generated valid messages round-trip through encodeMessage',
    () => {
      fc.assert(
        fc.property(message, (m) => {
          const bytes = encodeMessage(m);
          for (const b of bytes) expect(b).toBeLessThan(0x80);
          expect(decodeMessage(bytes)).toEqual({ ok: true, message: m });
        }),
        fuzzParams(1_000),
      );
    },
    fuzzTimeout(20_000),
  );
});

describe('Splitter [IEC-4]', () => {
  it(
    'gives the same pieces however a stream of messages and noise is chunked',
    () => {
      const stream = fc.array(
        fc.oneof(
          message.map((m) => encodeMessage(m)),
          fc.uint8Array({ maxLength: 20 }),
        ),
        {
          maxLength: 8,
        },
      );
      fc.assert(
        fc.property(
          stream,
          fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 10 }),
          (parts, cuts) => {
            const all = Uint8Array.from(parts.flatMap((p) => [...p]));
            const whole = new Splitter({ side: 'reader' }).push(all, 0);
            const s = new Splitter({ side: 'reader' });
            const pieces: Piece[] = [];
            for (let i = 0, k = 0; i < all.length; k++) {
              const n = cuts[k % cuts.length]!;
              pieces.push(...s.push(all.subarray(i, i + n), 0));
              i += n;
            }
            expect(pieces).toEqual(whole);
            for (const p of pieces)
              if (p.kind === 'message') expect(p.bytes.length).toBeLessThanOrEqual(16384);
          },
        ),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );
});

describe('the meter [IEC-5, IEC-10]', () => {
  it.each([false, true])(
    'never throws on hostile input and only ever sends messages that decode (mode E offered: %s); a switch to HDLC only on ACK 2 Z 2',
    (binaryMode) => {
      const server = createServer({
        manufacturer: 'MSX',
        ident: 'meterstack-1',
        baudChar: '5',
        binaryMode,
        readout: () => [[{ address: '1-0:1.8.0', values: [{ value: '000285.40', unit: 'kWh' }] }]],
      });
      const events = fc.array(fc.tuple(fc.oneof(hostile, fc.constantFrom(...GOLDEN)), fc.nat(5_000)), {
        maxLength: 12,
      });
      fc.assert(
        fc.property(events, (list) => {
          const splitter = new Splitter({ side: 'meter' });
          let state: ServerState = server.initial;
          let now = 0;
          for (const [bytes, dt] of list) {
            now += dt;
            for (const piece of splitter.push(bytes, now)) {
              const step = server.step(state, { kind: 'piece', piece, now });
              state = step.state;
              for (const e of step.effects) {
                if (e.kind === 'send') expect(decodeMessage(e.bytes).ok).toBe(true);
                if (e.kind === 'binary') {
                  const m = decodeMessage(piece.kind === 'message' ? piece.bytes : new Uint8Array());
                  expect(binaryMode && m.ok && m.message.kind === 'option-select' && m.message.mode).toBe(
                    '2',
                  );
                }
              }
            }
            state = server.step(state, { kind: 'tick', now }).state;
          }
        }),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );
});

describe('the reader [IEC-8]', () => {
  it(
    'never throws on hostile input, sends only messages that decode, and always ends by its deadline',
    () => {
      const reader = createReader();
      const events = fc.array(fc.tuple(fc.oneof(hostile, fc.constantFrom(...GOLDEN)), fc.nat(2_000)), {
        maxLength: 12,
      });
      fc.assert(
        fc.property(events, (list) => {
          const splitter = new Splitter({ side: 'reader' });
          const first = reader.start(0);
          let state: ReaderState = first.state;
          let results = 0;
          const take = (effects: typeof first.effects) => {
            for (const e of effects) {
              if (e.kind === 'send') expect(decodeMessage(e.bytes).ok).toBe(true);
              if (e.kind === 'result') results++;
            }
          };
          take(first.effects);
          let now = 0;
          for (const [bytes, dt] of list) {
            now += dt;
            const heard = reader.step(state, { kind: 'heard', now });
            state = heard.state;
            for (const piece of splitter.push(bytes, now)) {
              const step = reader.step(state, { kind: 'piece', piece, now });
              state = step.state;
              take(step.effects);
            }
          }
          // [IEC-8.2, IEC-8.4] Whatever came, a tick at the deadline ends the session, once.
          const due = reader.deadline(state);
          if (due !== null) take(reader.step(state, { kind: 'tick', now: due }).effects);
          expect(results).toBe(1);
        }),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );
});
