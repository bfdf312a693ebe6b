// The reader's state machine [IEC-8], fed through the reader-side splitter as the bridge feeds it: what
// it sends and at which rate, and how every session ends (a readout, or a failure with its rule). Last,
// the reader and our meter's machine (server.ts) talk to each other over a simulated wire.
import { describe, expect, it } from 'vitest';
import { addParity, ascii } from './chars.ts';
import { decodeMessage, encodeMessage } from './codec.ts';
import type { DataLine } from './data-set.ts';
import { createReader, type ReaderEffect, type ReaderOptions, type ReaderState } from './reader.ts';
import { createServer, type Effect as ServerEffect } from './server.ts';
import { Splitter } from './splitter.ts';

const READOUT: DataLine[] = [
  [{ address: 'F.F', values: [{ value: '00' }] }],
  [{ address: '1-0:1.8.0', values: [{ value: '000285.40', unit: 'kWh' }] }],
];
const DATA = encodeMessage({ kind: 'data', lines: READOUT });
const IDENT = ascii('/MST5meterstack\r\n');

function harness(options: ReaderOptions = {}, parityInBit7 = false) {
  const reader = createReader(options);
  const splitter = new Splitter({ side: 'reader', parityInBit7 });
  const first = reader.start(0);
  let state: ReaderState = first.state;
  return {
    reader,
    first: first.effects,
    get state() {
      return state;
    },
    /** Bytes from the meter at `now`: the effects of every piece they complete. */
    hear(bytes: string | Uint8Array, now: number): ReaderEffect[] {
      const chunk = typeof bytes === 'string' ? ascii(bytes) : bytes;
      const heard = reader.step(state, { kind: 'heard', now });
      state = heard.state;
      const effects: ReaderEffect[] = [];
      for (const piece of splitter.push(chunk, now)) {
        const step = reader.step(state, { kind: 'piece', piece, now });
        state = step.state;
        effects.push(...step.effects);
      }
      return effects;
    },
    tick(now: number): ReaderEffect[] {
      const step = reader.step(state, { kind: 'tick', now });
      state = step.state;
      return step.effects;
    },
  };
}

/** Effects without notes, sends decoded: the session as it looks on the wire. */
function wire(effects: ReaderEffect[]) {
  return effects
    .filter((e) => e.kind !== 'note')
    .map((e) => {
      if (e.kind !== 'send') return e.kind === 'result' ? { result: e.outcome.ok || e.outcome.code } : e;
      const d = decodeMessage(e.bytes);
      return { send: d.ok ? d.message : d.error };
    });
}

describe('[IEC-8] the reader', () => {
  it('[IEC-8.1] starts at 300 Bd with /?! CR LF, or the address asked for', () => {
    expect(wire(harness().first)).toEqual([
      { kind: 'set-baud', baud: 300 },
      { send: { kind: 'request', address: '' } },
    ]);
    expect(wire(harness({ address: '12345' }).first)[1]).toEqual({
      send: { kind: 'request', address: '12345' },
    });
    expect(() => createReader({ address: 'bad!' })).toThrow(TypeError);
    expect(() => createReader({ maxBaudChar: '9' as never })).toThrow(TypeError);
  });

  it('[IEC-8.3] [IEC-8.6] mode C: ACK 0 Z 0 after its reaction time, Z, the readout, back to 300 Bd', () => {
    const h = harness();
    expect(wire(h.hear(IDENT, 400))).toEqual([
      { kind: 'wait', ms: 200 },
      { send: { kind: 'option-select', protocol: '0', baudChar: '5', mode: '0' } },
      { kind: 'set-baud', baud: 9600 },
    ]);
    const end = h.hear(DATA, 1000);
    expect(wire(end)).toEqual([{ kind: 'set-baud', baud: 300 }, { result: true }]);
    const result = end.at(-1);
    expect(result).toEqual({
      kind: 'result',
      outcome: {
        ok: true,
        identification: { manufacturer: 'MST', baudChar: '5', ident: 'meterstack' },
        lines: READOUT,
        baud: 9600,
      },
    });
    expect(h.state).toEqual({ phase: 'done' });
    expect(h.reader.deadline(h.state)).toBeNull();
  });

  const modes: [string, string, unknown[]][] = [
    ['offered 19200, reader stops at 9600', '/MST6x\r\n', ['5', 9600]],
    ['offered 2400', '/MST3x\r\n', ['3', 2400]],
    ['offered 300', '/MST0x\r\n', ['0', 300]],
  ];
  it.each(modes)('[IEC-8.3] mode C, %s', (_name, ident, [z, baud]) => {
    const effects = wire(harness().hear(ident, 400));
    expect(effects[1]).toEqual({ send: { kind: 'option-select', protocol: '0', baudChar: z, mode: '0' } });
    expect(effects[2]).toEqual({ kind: 'set-baud', baud });
  });

  it('[IEC-8.3] mode B switches at once without an option select; mode A stays at 300 Bd', () => {
    const b = harness();
    expect(wire(b.hear('/ABCEmodeB\r\n', 400))).toEqual([{ kind: 'set-baud', baud: 9600 }]);
    expect(wire(b.hear(DATA, 800))).toEqual([{ kind: 'set-baud', baud: 300 }, { result: true }]);
    const a = harness();
    expect(wire(a.hear('/ABCHmodeA\r\n', 400))).toEqual([]);
    expect(wire(a.hear(DATA, 800))).toEqual([{ result: true }]);
  });

  // How a session fails: the meter's bytes (after the identification where the case says) and the clock.
  const failures: [string, (h: ReturnType<typeof harness>) => ReaderEffect[], string, string][] = [
    ['no identification', (h) => h.tick(3200), 'no_answer', 'IEC-8.2'],
    [
      'no data after the option select',
      (h) => {
        h.hear(IDENT, 400);
        return h.tick(4000);
      },
      'timeout',
      'IEC-8.4',
    ],
    [
      'a break instead of the readout',
      (h) => {
        h.hear(IDENT, 400);
        return h.hear(encodeMessage({ kind: 'break' }), 900);
      },
      'refused',
      'IEC-8.5',
    ],
    [
      'a readout with a wrong BCC',
      (h) => {
        h.hear(IDENT, 400);
        const bad = DATA.slice();
        bad[bad.length - 1]! ^= 0x01;
        return h.hear(bad, 900);
      },
      'bad_data',
      'IEC-2.5',
    ],
    [
      'a readout whose data set does not parse',
      (h) => {
        h.hear(IDENT, 400);
        return h.hear(blockOf('1.8.0(12\r\n!\r\n'), 900);
      },
      'bad_data',
      'IEC-3.2',
    ],
  ];
  it.each(failures)('[IEC-8.5] %s: the session fails', (_name, run, code, rule) => {
    const h = harness();
    const effects = run(h);
    const result = effects.at(-1);
    expect(result?.kind).toBe('result');
    expect(
      result?.kind === 'result' && !result.outcome.ok && [result.outcome.code, result.outcome.rule],
    ).toEqual([code, rule]);
    // [IEC-8.6] A session that had switched ends back at 300 Bd.
    if (code !== 'no_answer') expect(effects.at(-2)).toEqual({ kind: 'set-baud', baud: 300 });
    expect(h.state).toEqual({ phase: 'done' });
  });

  it('[IEC-8.5] a data message spoilt by parity is bad_data (IEC-4.5)', () => {
    const h = harness({}, true);
    h.hear(addParity(IDENT), 400);
    const spoilt = addParity(DATA);
    spoilt[5]! ^= 0x80;
    expect(wire(h.hear(spoilt, 900)).at(-1)).toEqual({ result: 'bad_data' });
  });

  it('[IEC-8.4] bytes arriving keep a long readout alive; a gap over ta does not', () => {
    const h = harness();
    h.hear(IDENT, 400);
    const half = DATA.length >> 1;
    expect(h.hear(DATA.subarray(0, 10), 3000)).toEqual([]);
    expect(h.tick(3900)).toEqual([]); // past the 3000 ms after the option select, but bytes came at 3000
    expect(wire(h.hear(DATA.subarray(10, half), 4400))).toEqual([]);
    expect(wire(h.tick(5901)).at(-1)).toEqual({ result: 'timeout' });
  });

  it('[IEC-8.5] noise, stray messages and garbage before the identification are notes, never the end', () => {
    const h = harness();
    const notes = [
      ...h.hear(Uint8Array.of(0, 0, 0xff & 0x7f), 100),
      ...h.hear('/?!\r\n', 150),
      ...h.hear(blockOf('x'), 200),
    ];
    expect(notes.every((e) => e.kind === 'note')).toBe(true);
    expect(notes.length).toBeGreaterThanOrEqual(2);
    expect(wire(h.hear(IDENT, 400))[1]).toMatchObject({ send: { kind: 'option-select' } });
  });
});

/** STX text ETX BCC with a right BCC, whatever the text. */
function blockOf(body: string): Uint8Array {
  const bytes = ascii(`\x02${body}\x03`);
  let x = 0;
  for (let i = 1; i < bytes.length; i++) x ^= bytes[i]!;
  return Uint8Array.of(...bytes, x);
}

describe('[IEC-8] the reader against our meter (server.ts), over a simulated wire', () => {
  it('reads the meter: identification, the agreed rate on both ends, the readout, both back at 300 Bd', () => {
    const server = createServer({
      manufacturer: 'MST',
      ident: 'meterstack',
      baudChar: '6',
      readout: () => READOUT,
    });
    const reader = createReader({ maxBaudChar: '5' });
    const toMeter = new Splitter({ side: 'meter' });
    const toReader = new Splitter({ side: 'reader' });
    let meter = server.initial;
    let now = 0;
    const baud = { meter: 300, reader: 300 };
    let outcome: unknown = null;
    let { state, effects } = reader.start(now);
    // Runs each side's effects; a send is delivered to the other side only at a matching rate.
    for (let guard = 0; guard < 20 && outcome === null; guard++) {
      const meterEffects: ServerEffect[] = [];
      for (const e of effects) {
        if (e.kind === 'wait') now += e.ms;
        else if (e.kind === 'set-baud') baud.reader = e.baud;
        else if (e.kind === 'result') outcome = e.outcome;
        else if (e.kind === 'send') {
          expect(baud.meter).toBe(baud.reader);
          for (const piece of toMeter.push(e.bytes, now)) {
            const s = server.step(meter, { kind: 'piece', piece, now });
            meter = s.state;
            meterEffects.push(...s.effects);
          }
        }
      }
      effects = [];
      for (const e of meterEffects) {
        if (e.kind === 'wait') now += e.ms;
        else if (e.kind === 'set-baud') baud.meter = e.baud;
        else if (e.kind === 'send') {
          expect(baud.meter).toBe(baud.reader);
          for (const piece of toReader.push(e.bytes, now)) {
            const s = reader.step(state, { kind: 'piece', piece, now });
            state = s.state;
            effects.push(...s.effects);
          }
        }
      }
    }
    expect(outcome).toMatchObject({ ok: true, lines: READOUT, baud: 9600 });
    expect(baud).toEqual({ meter: 300, reader: 300 });
  });
});
