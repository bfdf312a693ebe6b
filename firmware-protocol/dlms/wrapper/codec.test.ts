// The wrapper codec over its golden vectors, both directions; the TCP splitter fed in every chunk size;
// the fatal errors that close a connection. Rule numbers refer to ../WRAPPER.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../hdlc/golden/vectors.ts';
import { decodeDatagram, decodeHeader, encodeWpdu, MAX_WPDU_APDU } from './codec.ts';
import { type StreamPiece, WpduSplitter } from './splitter.ts';

interface Valid {
  name: string;
  hex: string;
  decoded: { source: number; dest: number; apdu: string };
  source: string;
}
interface Invalid {
  name: string;
  hex: string;
  code: string;
  rule: string;
}
const load = <T>(file: string): T[] =>
  JSON.parse(readFileSync(new URL(`golden/${file}`, import.meta.url), 'utf8')) as T[];
const valid = load<Valid>('valid.json');
const invalid = load<Invalid>('invalid.json');
const pdu = (v: Valid) => ({ ...v.decoded, apdu: fromHex(v.decoded.apdu) });

describe('golden/valid.json', () => {
  it.each(valid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(decodeDatagram(fromHex(v.hex))).toEqual({ ok: true, pdu: pdu(v) });
    expect(toHex(encodeWpdu(pdu(v)))).toBe(v.hex);
  });
});

describe('golden/invalid.json', () => {
  it.each(invalid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const result = decodeDatagram(fromHex(v.hex));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect({ code: result.error.code, rule: result.error.rule }).toEqual({ code: v.code, rule: v.rule });
  });
});

describe('[WR-2] encodeWpdu', () => {
  it('[WR-2.3] refuses a wPort outside 16 bits', () => {
    expect(() => encodeWpdu({ source: 0x10000, dest: 1, apdu: Uint8Array.of(1) })).toThrow(/WR-2.3/);
  });

  it('[WR-2.4] refuses an empty or oversized APDU', () => {
    expect(() => encodeWpdu({ source: 16, dest: 1, apdu: new Uint8Array(0) })).toThrow(/WR-2.4/);
    expect(() => encodeWpdu({ source: 16, dest: 1, apdu: new Uint8Array(MAX_WPDU_APDU + 1) })).toThrow(
      /WR-2.4/,
    );
  });

  it('[WR-3.2] the header is checked against the receiver bound', () => {
    expect(decodeHeader(fromHex('00 01 00 10 00 01 04 01'), 1024)).toMatchObject({
      ok: false,
      error: { code: 'too_long', rule: 'WR-3.2' },
    });
  });
});

describe('[WR-3] WpduSplitter', () => {
  const stream = fromHex(valid.map((v) => v.hex).join(' '));
  const feed = (splitter: WpduSplitter, bytes: Uint8Array, chunk: number): StreamPiece[] => {
    const out: StreamPiece[] = [];
    for (let at = 0; at < bytes.length; at += chunk)
      out.push(...splitter.push(bytes.subarray(at, at + chunk)));
    return out;
  };

  it.each([1, 2, 7, 8, 9, 50, 10_000])(
    '[WR-3.1] gives every golden WPDU, fed %i bytes at a time',
    (chunk) => {
      const splitter = new WpduSplitter();
      const pieces = feed(splitter, stream, chunk);
      expect(pieces).toEqual(valid.map((v) => ({ kind: 'pdu', pdu: pdu(v) })));
      expect(splitter.partial).toBe(0);
    },
  );

  it('[WR-3.3] a bad version is reported once, then the stream is dead', () => {
    const splitter = new WpduSplitter();
    const pieces = splitter.push(fromHex(`${valid[0]!.hex} 00 02 00 10 00 01 00 01 C0 ${valid[1]!.hex}`));
    expect(pieces.map((p) => (p.kind === 'fatal' ? p.error.code : p.kind))).toEqual(['pdu', 'bad_version']);
    expect(splitter.failed).toBe(true);
    expect(splitter.push(fromHex(valid[0]!.hex))).toEqual([]);
  });

  it('[WR-3.2] an APDU over the bound is fatal before its body arrives', () => {
    const splitter = new WpduSplitter(100);
    expect(splitter.push(fromHex('00 01 00 10 00 01 00 65'))).toMatchObject([
      { kind: 'fatal', error: { code: 'too_long' } },
    ]);
    expect(splitter.partial).toBe(0);
  });

  it('refuses a bound it could not honour', () => {
    expect(() => new WpduSplitter(0)).toThrow(TypeError);
    expect(() => new WpduSplitter(70_000)).toThrow(TypeError);
  });
});

describe('WRAPPER.md', () => {
  const doc = readFileSync(new URL('../WRAPPER.md', import.meta.url), 'utf8');

  it('defines every rule the code and the tests cite', () => {
    const defined = new Set([...doc.matchAll(/\*\*(WR-\d+\.\d+)\*\*/g)].map((m) => m[1]));
    for (const file of ['codec.ts', 'splitter.ts', 'codec.test.ts']) {
      const text = readFileSync(new URL(file, import.meta.url), 'utf8');
      for (const [rule] of text.matchAll(/WR-\d+\.\d+/g))
        expect(defined.has(rule), `${file} cites ${rule}`).toBe(true);
    }
  });

  it("[WR-2.1] the header table's example is the first golden vector", () => {
    expect(valid[0]!.hex.startsWith('00 01 00 10 00 01 00 1F 60 1D A1 09 06 07 60 85 74 05 08 01 01')).toBe(
      true,
    );
    expect(doc).toContain('`00 1F` (31 bytes of APDU follow)');
  });
});
