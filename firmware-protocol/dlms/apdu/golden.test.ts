// Every golden vector both ways: the bytes decode to the value, and the value encodes to the bytes.
// Invalid vectors give the error code and rule they name. Rule numbers refer to ../APDU.md.
import { describe, expect, it } from 'vitest';
import { type Apdu, decodeApdu, encodeApdu } from './apdu.ts';
import { fromHex, toHex } from './axdr.ts';
import { type Data, decodeData, encodeData } from './data.ts';
import { decodeDateTime } from './datetime.ts';
import { loadVectors } from './golden/vectors.ts';

const { data, apdu, invalid } = loadVectors();

describe('golden/data.json', () => {
  it.each(data.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(decodeData(fromHex(v.hex))).toEqual({ ok: true, value: v.decoded });
    expect(toHex(encodeData(v.decoded as Data))).toBe(v.hex);
  });
});

describe('golden/apdu.json', () => {
  it.each(apdu.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(decodeApdu(fromHex(v.hex))).toEqual({ ok: true, value: v.decoded });
    expect(toHex(encodeApdu(v.decoded as Apdu))).toBe(v.hex);
  });
});

describe('golden/invalid.json', () => {
  it.each(invalid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const bytes = fromHex(v.hex);
    const r =
      v.decoder === 'data'
        ? decodeData(bytes)
        : v.decoder === 'apdu'
          ? decodeApdu(bytes)
          : decodeDateTime(bytes);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect({ code: r.error.code, rule: r.error.rule }).toEqual({ code: v.code, rule: v.rule });
  });
});

describe('every vector names its source', () => {
  it('public sources are named; the rest are ours', () => {
    for (const v of [...data, ...apdu, ...invalid]) expect(v.source.length).toBeGreaterThan(0);
    const pub = [...data, ...apdu].filter((v) => v.source !== 'meterstack');
    expect(pub.length).toBeGreaterThanOrEqual(25);
  });
});
