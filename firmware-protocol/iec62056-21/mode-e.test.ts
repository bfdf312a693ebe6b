// Protocol mode E [IEC-10]: the sign-on that hands the optical port to HDLC. Golden exchange
// (golden/mode-e.json: the request and option select as Gurux's client sends them, our identification),
// the meter's side (server.ts with binaryMode) and the reader's choice (mode-e.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ascii } from './chars.ts';
import { decodeMessage, encodeMessage, type Message } from './codec.ts';
import { chooseModeE, modeEOptionSelect } from './mode-e.ts';
import { createServer, type Effect, type ServerState } from './server.ts';
import { Splitter } from './splitter.ts';

interface Vector {
  name: string;
  from: 'reader' | 'meter';
  hex: string;
  decoded: Message;
  source: string;
}
const GOLDEN = JSON.parse(readFileSync(new URL('./golden/mode-e.json', import.meta.url), 'utf8')) as Vector[];
const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

describe('mode E golden exchange [IEC-10]', () => {
  it.each(GOLDEN.map((v) => [v.name, v] as const))(
    '%s: decodes, and encodes back to the same bytes',
    (_n, v) => {
      const d = decodeMessage(fromHex(v.hex));
      expect(d).toEqual({ ok: true, message: v.decoded });
      expect(hexOf(encodeMessage(v.decoded))).toBe(v.hex);
    },
  );
});

function meter(binaryMode: boolean) {
  const server = createServer({
    manufacturer: 'MST',
    ident: 'meterstack',
    baudChar: '5',
    binaryMode,
    readout: () => [[{ address: 'F.F', values: [{ value: '00' }] }]],
  });
  const splitter = new Splitter({ side: 'meter' });
  let state: ServerState = server.initial;
  return (bytes: Uint8Array, now: number): Effect[] => {
    const out: Effect[] = [];
    for (const piece of splitter.push(bytes, now)) {
      const s = server.step(state, { kind: 'piece', piece, now });
      state = s.state;
      out.push(...s.effects);
    }
    return out;
  };
}
const sent = (effects: Effect[]) =>
  effects.flatMap((e) =>
    e.kind === 'send' ? [hexOf(e.bytes)] : e.kind === 'binary' ? [`binary ${e.baud}`] : [],
  );

describe('the meter offering mode E [IEC-10.1, IEC-10.4, IEC-5.5]', () => {
  const [request, identification, select] = GOLDEN.map((v) => fromHex(v.hex)) as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ];

  it('[IEC-10.1, IEC-10.4] answers the golden request with the golden identification, and ACK 2 5 2 with HDLC at 9600 Bd, nothing sent', () => {
    const m = meter(true);
    expect(sent(m(request, 0))).toEqual([hexOf(identification)]);
    expect(sent(m(select, 1000))).toEqual(['binary 9600']);
  });

  it('[IEC-10.4] a slower Z is taken; a faster one than offered is refused with a break (IEC-5.5)', () => {
    const m = meter(true);
    m(request, 0);
    expect(sent(m(modeEOptionSelect('3'), 1000))).toEqual(['binary 2400']);
    m(request, 2000);
    expect(sent(m(ascii('\x06262\r\n'), 3000))).toEqual(['01423003' + '71']);
  });

  it('[IEC-10.2] V 0 with Y 2 is not mode E: refused with a break, as before', () => {
    const m = meter(true);
    m(request, 0);
    expect(sent(m(ascii('\x06052\r\n'), 1000))).toEqual(['0142300371']);
  });

  it('[IEC-10.1] the same meter still gives a mode C readout on ACK 0 5 0', () => {
    const m = meter(true);
    m(request, 0);
    const out = m(ascii('\x06050\r\n'), 1000);
    expect(out.some((e) => e.kind === 'send' && e.message === 'data')).toBe(true);
  });

  it('[IEC-5.5, IEC-10.1] a mode C meter offers no \\2 and refuses ACK 2 5 2 with a break', () => {
    const m = meter(false);
    expect(sent(m(request, 0))).toEqual([hexOf(ascii('/MST5meterstack\r\n'))]);
    expect(sent(m(select, 1000))).toEqual(['0142300371']);
  });
});

describe("the reader's choice [IEC-10.3]", () => {
  const id = GOLDEN[1]!.decoded as Extract<Message, { kind: 'identification' }>;
  it('[IEC-10.3] the golden identification gives the golden option select', () => {
    const c = chooseModeE(id);
    expect(c.ok && { baud: c.baud, hex: hexOf(c.optionSelect) }).toEqual({ baud: 9600, hex: GOLDEN[2]!.hex });
  });
  it("[IEC-10.3] the slower of the meter's offer and the reader's limit", () => {
    const c = chooseModeE(id, '4');
    expect(c.ok && c.baud).toBe(4800);
  });
  it('[IEC-10.1] a meter without \\2 offers no mode E; a mode B letter is no mode E rate', () => {
    const { enhanced: _, ...plain } = id;
    expect(chooseModeE(plain)).toMatchObject({ ok: false, rule: 'IEC-10.1' });
    expect(chooseModeE({ ...id, baudChar: 'E' })).toMatchObject({ ok: false, rule: 'IEC-10.3' });
  });
});
