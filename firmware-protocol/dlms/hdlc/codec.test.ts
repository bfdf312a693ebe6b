// The HDLC codec over every golden vector, both directions; the FCS's catalogue check value; the LLC
// header, the SNRM/UA parameters and segmentation. Rule numbers refer to ../HDLC.md.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fcs16 } from './fcs16.ts';
import { decodeControl, decodeFrame, encodeControl, encodeFrame, frameLength } from './frame.ts';
import { frameFromVector, fromHex, loadFrameVectors, toHex } from './golden/vectors.ts';
import { stripLlc, withLlc } from './llc.ts';
import { DEFAULT_PARAMS, decodeParams, encodeParams, negotiate } from './params.ts';
import { addSegment, EMPTY_REASSEMBLY, type Reassembly, segment } from './segment.ts';

const { frames, invalid } = loadFrameVectors();

describe('golden/frames.json', () => {
  it.each(frames.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const bytes = fromHex(v.hex);
    const result = decodeFrame(bytes);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect({ ...result.frame, info: toHex(result.frame.info) }).toEqual(v.decoded);
    expect(toHex(encodeFrame(frameFromVector(v)))).toBe(v.hex);
    if (v.params !== undefined)
      expect(decodeParams(result.frame.info)).toEqual({ ok: true, params: v.params });
  });

  it('names a source for every vector, and most come from public logs', () => {
    for (const v of frames) expect(v.source.length).toBeGreaterThan(5);
    expect(frames.filter((v) => v.source.includes('https://')).length).toBeGreaterThanOrEqual(20);
  });
});

describe('golden/invalid.json', () => {
  it.each(invalid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const result = decodeFrame(fromHex(v.hex));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect({ code: result.error.code, rule: result.error.rule }).toEqual({ code: v.code, rule: v.rule });
  });
});

describe('[HD-2.5] FCS-16', () => {
  it('CRC-16/X-25 has its catalogue check value 0x906E for "123456789"', () => {
    expect(fcs16(new TextEncoder().encode('123456789'))).toBe(0x906e);
  });

  it('the SNRM 7E A0 07 03 21 93 0F 01 7E carries FCS 0x010F, low byte first', () => {
    expect(fcs16(fromHex('A0 07 03 21 93'))).toBe(0x010f);
  });
});

describe('[HD-4.1] control field', () => {
  it('every byte decodes, and every decoded control encodes back to its byte', () => {
    for (let byte = 0; byte < 256; byte++) expect(encodeControl(decodeControl(byte))).toBe(byte);
  });

  it('REJ, SREJ and U frames DLMS does not use are unknown', () => {
    expect(decodeControl(0x19)).toEqual({ type: 'unknown', byte: 0x19 }); // REJ N(R)=0, P
    expect(decodeControl(0x2f)).toEqual({ type: 'unknown', byte: 0x2f }); // SABM
  });
});

describe('[HD-2.2] encodeFrame', () => {
  it('refuses a frame longer than the length field holds', () => {
    const address = { bytes: 1 as const, value: 1 };
    const info = new Uint8Array(2047);
    expect(() =>
      encodeFrame({
        segmented: false,
        dest: address,
        src: address,
        control: { type: 'UI', pf: false },
        info,
      }),
    ).toThrow(/HD-2.2/);
  });

  it('frameLength is the length field it writes', () => {
    const dest = { bytes: 4 as const, upper: 1, lower: 0x1234 };
    const src = { bytes: 1 as const, value: 16 };
    for (const n of [0, 1, 128, 2030]) {
      const bytes = encodeFrame({
        segmented: false,
        dest,
        src,
        control: { type: 'I', ns: 0, nr: 0, pf: true },
        info: new Uint8Array(n),
      });
      expect(frameLength(dest, src, n)).toBe(bytes.length - 2);
    }
  });

  it('[HD-3.1] refuses an address out of range', () => {
    const bad = { bytes: 1 as const, value: 128 };
    expect(() =>
      encodeFrame({
        segmented: false,
        dest: bad,
        src: bad,
        control: { type: 'UI', pf: false },
        info: new Uint8Array(0),
      }),
    ).toThrow(/HD-3.1/);
  });
});

describe('[HD-5.1] LLC header', () => {
  it('command and response headers round-trip', () => {
    const apdu = fromHex('C0 01 C1 00 08 00 00 01 00 00 FF 02 00');
    expect(toHex(withLlc(apdu, 'command'))).toBe(`E6 E6 00 ${toHex(apdu)}`);
    expect(stripLlc(withLlc(apdu, 'response'))).toEqual({ ok: true, direction: 'response', apdu });
  });

  it('the AARQ of a public log is found behind its header', () => {
    const v = frames.find((f) => f.name.includes('low-level-security'))!;
    const llc = stripLlc(fromHex(v.decoded.info));
    expect(llc.ok && llc.direction === 'command' && llc.apdu[0]).toBe(0x60); // AARQ tag
  });

  it('anything else is bad_llc', () => {
    expect(stripLlc(fromHex('E6 E6'))).toMatchObject({
      ok: false,
      error: { code: 'bad_llc', rule: 'HD-5.1' },
    });
    expect(stripLlc(fromHex('E6 E8 00 01'))).toMatchObject({ ok: false });
  });
});

describe('[HD-6] SNRM/UA parameters', () => {
  it('[HD-6.1] our encoding of a UA is the one Gurux and the meters in the vectors write', () => {
    const ua = frames.find((f) => f.name.startsWith('[HD-6.1] UA with 1-byte lengths'))!;
    expect(toHex(encodeParams(ua.params!))).toBe(ua.decoded.info);
    expect(encodeParams({})).toEqual(new Uint8Array(0));
  });

  it('[HD-6.2] an empty information field states nothing; negotiation falls back to 128 and 1', () => {
    expect(decodeParams(new Uint8Array(0))).toEqual({ ok: true, params: {} });
    expect(negotiate({}, { maxInfoTx: 2030, maxInfoRx: 2030, windowTx: 7, windowRx: 7 })).toEqual(
      DEFAULT_PARAMS,
    );
  });

  it("[HD-6.4] each value is the smaller side's, seen from the server", () => {
    const server = { maxInfoTx: 248, maxInfoRx: 62, windowTx: 1, windowRx: 1 };
    expect(negotiate({ maxInfoTx: 1500, maxInfoRx: 1500, windowTx: 1, windowRx: 1 }, server)).toEqual(server);
    expect(negotiate({ maxInfoTx: 40, maxInfoRx: 50 }, server)).toEqual({
      ...server,
      maxInfoTx: 50,
      maxInfoRx: 40,
    });
  });

  it('[HD-6.3] lengths above 2030 are lowered; zero and windows above 7 are refused', () => {
    expect(decodeParams(fromHex('81 80 04 05 02 FF FF'))).toEqual({ ok: true, params: { maxInfoTx: 2030 } });
    expect(decodeParams(fromHex('81 80 03 05 01 00'))).toMatchObject({
      ok: false,
      error: { rule: 'HD-6.3' },
    });
    expect(decodeParams(fromHex('81 80 03 07 01 08'))).toMatchObject({
      ok: false,
      error: { rule: 'HD-6.3' },
    });
  });

  it('[HD-6.1] unknown parameters are skipped; a bad group is refused', () => {
    expect(decodeParams(fromHex('81 80 07 09 02 12 34 05 01 40'))).toEqual({
      ok: true,
      params: { maxInfoTx: 64 },
    });
    expect(decodeParams(fromHex('81 80 05 05 02 00'))).toMatchObject({
      ok: false,
      error: { rule: 'HD-6.1' },
    });
    expect(decodeParams(fromHex('82 80 00'))).toMatchObject({ ok: false, error: { rule: 'HD-6.1' } });
    expect(decodeParams(fromHex('81 80 04 05 05 00 00'))).toMatchObject({ ok: false });
  });
});

describe('[HD-7] segmentation', () => {
  it('[HD-7.1] cuts a message into fields of at most maxInfo, S set on all but the last', () => {
    const message = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
    const parts = segment(message, 128);
    expect(parts.map((p) => [p.info.length, p.more])).toEqual([
      [128, true],
      [128, true],
      [44, false],
    ]);
    let r: Reassembly = EMPTY_REASSEMBLY;
    for (const part of parts) {
      const step = addSegment(r, part.info, part.more, 0xffff);
      if (step.kind === 'more') r = step.reassembly;
      else if (step.kind === 'done') expect(step.message).toEqual(message);
      else throw new Error('too long');
    }
  });

  it('[HD-7.1] a message of exactly maxInfo bytes is one frame', () => {
    expect(segment(new Uint8Array(128), 128).map((p) => p.more)).toEqual([false]);
  });

  it('[HD-7.3] refuses the segment that would pass the bound', () => {
    const first = addSegment(EMPTY_REASSEMBLY, new Uint8Array(100), true, 150);
    expect(first.kind).toBe('more');
    if (first.kind !== 'more') return;
    expect(addSegment(first.reassembly, new Uint8Array(100), true, 150)).toEqual({
      kind: 'too_long',
      rule: 'HD-7.3',
      bytes: 200,
    });
  });
});

describe('HDLC.md', () => {
  const doc = readFileSync(new URL('../HDLC.md', import.meta.url), 'utf8');

  it('defines every rule the code and the tests cite', () => {
    const defined = new Set([...doc.matchAll(/\*\*(HD-\d+\.\d+)\*\*/g)].map((m) => m[1]));
    const sections = new Set([...doc.matchAll(/^## (HD-\d+) /gm)].map((m) => m[1]));
    for (const file of readdirSync(new URL('./', import.meta.url)).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(new URL(file, import.meta.url), 'utf8');
      for (const [rule] of text.matchAll(/HD-\d+(\.\d+)?/g)) {
        expect(defined.has(rule) || sections.has(rule), `${file} cites ${rule}`).toBe(true);
      }
    }
  });

  it("[HD-2.5] the worked example's frame is in the golden vectors", () => {
    expect(doc).toContain('`7E A0 07 03 21 93 0F 01 7E`');
    expect(frames.map((v) => v.hex)).toContain('7E A0 07 03 21 93 0F 01 7E');
  });
});
