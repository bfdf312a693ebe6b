// The IEC 62056-21 codec over every golden vector, both ways, and the byte-level rules: parity [IEC-1.2],
// baud characters [IEC-1.4] and the BCC's worked example in PROTOCOL.md [IEC-2.5].
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  addParity,
  addParityBit,
  ascii,
  baudOf,
  bcc,
  hasEvenParity,
  stripParity,
  stripParityBit,
} from './chars.ts';
import { decodeMessage, encodeMessage } from './codec.ts';
import { fromHex, loadVectors, toHex } from './golden/vectors.ts';

const { valid, invalid } = loadVectors();

describe('golden/valid.json', () => {
  it.each(valid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(decodeMessage(fromHex(v.hex))).toEqual({ ok: true, message: v.decoded });
    const encoded = encodeMessage(v.decoded);
    if (v.canonical) expect(toHex(encoded)).toBe(v.hex);
    else expect(decodeMessage(encoded)).toEqual({ ok: true, message: v.decoded });
  });

  it('every vector names its source', () => {
    for (const v of [...valid, ...invalid]) expect(v.source).toMatch(/^(https:\/\/|meterstack$)/);
  });
});

describe('golden/invalid.json', () => {
  it.each(invalid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const result = decodeMessage(fromHex(v.hex));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect({ code: result.error.code, rule: result.error.rule }).toEqual({ code: v.code, rule: v.rule });
  });
});

describe('[IEC-1.2] even parity in bit 7', () => {
  it('sets bit 7 exactly when the 7 data bits hold an odd number of ones', () => {
    expect(addParityBit(0x2f)).toBe(0xaf); // '/' = 010 1111: five ones
    expect(addParityBit(0x3f)).toBe(0x3f); // '?' = 011 1111: six ones
    expect(addParityBit(0x06)).toBe(0x06);
    expect(addParityBit(0x01)).toBe(0x81);
  });

  it('every 7-bit character round-trips, and flipping any one bit is caught', () => {
    for (let c = 0; c < 0x80; c++) {
      const b = addParityBit(c);
      expect(hasEvenParity(b)).toBe(true);
      expect(stripParityBit(b)).toBe(c);
      for (let bit = 0; bit < 8; bit++) expect(hasEvenParity(b ^ (1 << bit))).toBe(false);
    }
  });

  it('stripParity reports the offsets of bytes with wrong parity', () => {
    const sent = addParity(ascii('/?!\r\n'));
    sent[2] = sent[2]! ^ 0x80;
    const { chars, bad } = stripParity(sent);
    expect(String.fromCharCode(...chars)).toBe('/?!\r\n');
    expect(bad).toEqual([2]);
  });
});

describe('[IEC-1.4] baud-rate characters', () => {
  it('0..6 are mode C, 300 to 19200 Bd; A..F mode B; anything else mode A', () => {
    expect(['0', '1', '2', '3', '4', '5', '6'].map((c) => baudOf(c))).toEqual(
      [300, 600, 1200, 2400, 4800, 9600, 19200].map((baud) => ({ mode: 'C', baud })),
    );
    expect(baudOf('E')).toEqual({ mode: 'B', baud: 9600 });
    expect(baudOf('7')).toEqual({ mode: 'A' });
    expect(baudOf('Z')).toEqual({ mode: 'A' });
  });
});

describe('[IEC-2.5] block check character', () => {
  it("PROTOCOL.md's worked example: the running XOR after each character of SOH B 0 ETX", () => {
    const doc = readFileSync(new URL('PROTOCOL.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| after `(.+?)` +\| 0x([0-9A-F]{2}) +\| 0x([0-9A-F]{2}) +\|$/gm)];
    expect(rows.map((m) => m[1])).toEqual(['B', '0', 'ETX']);
    let x = 0;
    for (const [, , byte, running] of rows) {
      x ^= Number.parseInt(byte!, 16);
      expect(x).toBe(Number.parseInt(running!, 16));
    }
    expect(toHex(encodeMessage({ kind: 'break' }))).toBe(`01423003${x.toString(16)}`);
  });

  it('is the XOR of the bytes after SOH/STX up to and including ETX', () => {
    expect(bcc(ascii('B0\x03'))).toBe(0x71);
  });
});

describe('[IEC-2] encodeMessage refuses what no meter may send', () => {
  it.each([
    ['a 4-letter manufacturer', { kind: 'identification', manufacturer: 'ABCD', baudChar: '5', ident: 'x' }],
    [
      'a 17-character identification',
      { kind: 'identification', manufacturer: 'ABC', baudChar: '5', ident: 'x'.repeat(17) },
    ],
    ['a device address with a dash', { kind: 'request', address: '1-2' }],
    ['a value with a "("', { kind: 'data', lines: [[{ address: '1.8.0', values: [{ value: '1(' }] }]] }],
    ['a data set without values', { kind: 'data', lines: [[{ address: '1.8.0', values: [] }]] }],
  ] as const)('%s', (_name, m) => {
    expect(() => encodeMessage(m as never)).toThrow(TypeError);
  });
});

describe('PROTOCOL.md', () => {
  it('defines every rule the code, the tests and the golden vectors cite', () => {
    const dir = new URL('./', import.meta.url);
    const doc = readFileSync(new URL('PROTOCOL.md', dir), 'utf8');
    const defined = new Set(
      [...doc.matchAll(/\*\*(IEC-\d+\.\d+)\*\*|^## (IEC-\d+)/gm)].map((m) => m[1] ?? m[2]),
    );
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    const cited = new Set<string>();
    for (const f of [...files, 'golden/valid.json', 'golden/invalid.json']) {
      for (const m of readFileSync(new URL(f, dir), 'utf8').matchAll(/IEC-\d+(?:\.\d+)?/g)) cited.add(m[0]);
    }
    expect([...cited].filter((r) => !defined.has(r))).toEqual([]);
  });
});
