// The meter's state machine [IEC-5], driven through the meter-side splitter as the I/O layer will drive it:
// what it sends, when, and at which rate; what it refuses and how; and that nothing bad gets an answer.
import { describe, expect, it } from 'vitest';
import { ascii } from './chars.ts';
import { decodeMessage, encodeMessage, type Message } from './codec.ts';
import type { DataLine } from './data-set.ts';
import { createServer, type Effect, type ServerOptions, type ServerState, wireMs } from './server.ts';
import { Splitter } from './splitter.ts';

const READOUT: DataLine[] = [
  [{ address: 'F.F', values: [{ value: '00' }] }],
  [{ address: '1-0:1.8.0', values: [{ value: '000285.40', unit: 'kWh' }] }],
  [{ address: '1-0:32.7.0', values: [{ value: '230.1', unit: 'V' }] }],
];

function harness(extra: Partial<ServerOptions> = {}) {
  const server = createServer({
    manufacturer: 'MSX',
    ident: 'meterstack-1',
    baudChar: '5',
    readout: () => READOUT,
    ...extra,
  });
  const splitter = new Splitter({ side: 'meter' });
  let state: ServerState = server.initial;
  return {
    server,
    get state() {
      return state;
    },
    /** Bytes from the reader at `now`: the effects of every piece they complete. */
    send(bytes: string | Uint8Array, now: number): Effect[] {
      const chunk = typeof bytes === 'string' ? ascii(bytes) : bytes;
      const effects: Effect[] = [];
      for (const piece of splitter.push(chunk, now)) {
        const step = server.step(state, { kind: 'piece', piece, now });
        state = step.state;
        effects.push(...step.effects);
      }
      return effects;
    },
    tick(now: number): Effect[] {
      const step = server.step(state, { kind: 'tick', now });
      state = step.state;
      return step.effects;
    },
  };
}

/** The effects without notes, sends decoded, so a case reads like the exchange on the wire. */
function wire(effects: Effect[]): (string | Message)[] {
  return effects.flatMap((e): (string | Message)[] => {
    if (e.kind === 'wait') return [`wait ${e.ms}`];
    if (e.kind === 'set-baud') return [`baud ${e.baud}`];
    if (e.kind === 'binary') return [`binary ${e.baud}`];
    if (e.kind === 'note') return [];
    const d = decodeMessage(e.bytes);
    return [d.ok ? d.message : `undecodable ${e.message}`];
  });
}
const notes = (effects: Effect[]) => effects.flatMap((e) => (e.kind === 'note' ? [e.note] : []));
const IDENT: Message = { kind: 'identification', manufacturer: 'MSX', baudChar: '5', ident: 'meterstack-1' };

describe('[IEC-5] a mode C data readout', () => {
  it('[IEC-5.1][IEC-5.2][IEC-5.4] request, identification, option select, readout at 9600 Bd, back to 300', () => {
    const h = harness();
    expect(wire(h.send('/?!\r\n', 0))).toEqual(['wait 200', IDENT]);
    expect(h.state.phase).toBe('identified');
    expect(wire(h.send('\x06050\r\n', 1500))).toEqual([
      'baud 9600',
      'wait 200',
      { kind: 'data', lines: READOUT },
      'baud 300',
    ]);
    expect(h.state).toEqual({ phase: 'idle' });
  });

  it('[IEC-5.4] a slower rate than offered is granted; 300 Bd needs no switch but still returns to 300', () => {
    const h = harness();
    h.send('/?!\r\n', 0);
    expect(wire(h.send('\x06020\r\n', 100)).slice(0, 1)).toEqual(['baud 1200']);
  });

  it('[IEC-5.4] reads the data sets when the option select arrives, and leaves out a bad one', () => {
    const seen: number[] = [];
    const h = harness({
      readout: (now) => {
        seen.push(now);
        return [[{ address: '1.8.0', values: [{ value: 'x'.repeat(40) }] }], ...READOUT];
      },
    });
    h.send('/?!\r\n', 0);
    const effects = h.send('\x06050\r\n', 700);
    expect(seen).toEqual([700]);
    expect(notes(effects)).toEqual(['bad_data_set', 'readout']);
    expect(wire(effects)[2]).toEqual({ kind: 'data', lines: READOUT });
  });
});

describe('[IEC-5.1] device addresses', () => {
  it.each([
    ['no address', '', '/?!\r\n', true],
    ['its address', '12345678', '/?12345678!\r\n', true],
    ['its address with leading zeros', '12345678', '/?0012345678!\r\n', true],
    ['no address, meter has one', '12345678', '/?!\r\n', true],
    ['another address', '12345678', '/?87654321!\r\n', false],
    ['an address, meter has none', '', '/?1!\r\n', false],
  ])('a request with %s: answered %s', (_name, address, request, answered) => {
    const h = harness({ address });
    const effects = h.send(request, 0);
    expect(wire(effects)).toEqual(answered ? ['wait 200', IDENT] : []);
    if (!answered) expect(notes(effects)).toEqual(['other_address']);
  });
});

describe('[IEC-5.3] the option select window', () => {
  const window = 200 + wireMs(encodeMessage(IDENT).length, 300) + 2200;

  it('a tick at the deadline returns the meter to idle without a word', () => {
    const h = harness();
    h.send('/?!\r\n', 0);
    expect(h.server.deadline(h.state)).toBe(window);
    expect(h.tick(window - 1)).toEqual([]);
    expect(notes(h.tick(window))).toEqual(['option_timeout']);
    expect(h.state).toEqual({ phase: 'idle' });
    expect(h.server.deadline(h.state)).toBeNull();
  });

  it('an option select after the deadline finds the meter idle even without a tick', () => {
    const h = harness();
    h.send('/?!\r\n', 0);
    const effects = h.send('\x06050\r\n', window + 10);
    expect(wire(effects)).toEqual([]);
    expect(notes(effects)).toEqual(['option_timeout', 'ignored']);
  });

  it('a new request restarts the sign-on; a break ends it silently', () => {
    const h = harness();
    h.send('/?!\r\n', 0);
    expect(wire(h.send('/?!\r\n', 1000))).toEqual(['wait 200', IDENT]);
    expect(h.server.deadline(h.state)).toBe(1000 + window);
    expect(wire(h.send(encodeMessage({ kind: 'break' }), 1200))).toEqual([]);
    expect(h.state).toEqual({ phase: 'idle' });
  });
});

describe('[IEC-5.5] refusals: a break at 300 Bd, then idle', () => {
  it.each([
    ['programming mode', '\x06051\r\n'],
    ['binary mode (HDLC)', '\x06052\r\n'],
    ['a manufacturer mode', '\x0605A\r\n'],
    ['the secondary protocol', '\x06150\r\n'],
    ['a rate faster than offered', '\x06060\r\n'],
    ['a mode B letter', '\x060E0\r\n'],
  ])('%s', (_name, select) => {
    const h = harness();
    h.send('/?!\r\n', 0);
    const effects = h.send(select, 500);
    expect(wire(effects)).toEqual(['wait 200', { kind: 'break' }]);
    expect(notes(effects)).toEqual(['refused']);
    expect(h.state).toEqual({ phase: 'idle' });
  });

  it('a command message (P1 password) within a session', () => {
    const h = harness();
    h.send('/?!\r\n', 0);
    const p1 = encodeMessage({ kind: 'command', command: 'P', type: '1', data: '(00000000)' });
    expect(wire(h.send(p1, 500))).toEqual(['wait 200', { kind: 'break' }]);
  });
});

describe('[IEC-5.6] nothing else is answered', () => {
  it.each([
    ['an option select outside a session', '\x06050\r\n'],
    [
      'a command outside a session',
      encodeMessage({ kind: 'command', command: 'R', type: '1', data: '1.8.0()' }),
    ],
    ['a request with a bad address', '/?12-3!\r\n'],
    ['noise', '\0\0\0xyz'],
    ['a block with a wrong BCC', '\x01B0\x03x'],
  ])('%s', (_name, bytes) => {
    const h = harness();
    const effects = [...h.send(bytes, 0), ...h.send('/', 10)];
    expect(wire(effects)).toEqual([]);
    expect(notes(effects).length).toBeGreaterThan(0);
  });
});

describe('options', () => {
  it.each([
    ['a 4-letter manufacturer', { manufacturer: 'ABCD' }],
    ['a 17-character ident', { ident: 'x'.repeat(17) }],
    ['a baud character 7', { baudChar: '7' }],
    ['a reaction time over 1500 ms', { reactionMs: 1600 }],
    ['a reaction time under 200 ms', { reactionMs: 20 }],
    ['an address with a dash', { address: '1-2' }],
  ])('refuses %s with a TypeError', (_name, extra) => {
    expect(() => harness(extra as Partial<ServerOptions>)).toThrow(TypeError);
  });
});
