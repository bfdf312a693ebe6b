// The helpers around the codecs: date-time and instants, selective-access descriptors, block transfer
// edge cases, result names, refusals, encoder refusals, and APDU.md's worked examples.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACSE_USER_DIAGNOSTIC, associationRequest, CLIENT_SAP } from './aarq.ts';
import { decodeApdu, encodeApdu } from './apdu.ts';
import { fromHex, toHex } from './axdr.ts';
import {
  acceptBlock,
  blockPayloadSize,
  getListResponses,
  getResponses,
  setRequests,
  splitIntoBlocks,
  startAssembly,
} from './blocks.ts';
import {
  type CaptureObject,
  entryFromAccess,
  entryToAccess,
  obisFromBytes,
  obisToBytes,
  rangeFromAccess,
  rangeToAccess,
} from './cosem.ts';
import { type Data, decodeData, encodeData } from './data.ts';
import { dateTimeFromInstant, dateTimeToInstant, decodeDateTime, encodeDateTime } from './datetime.ts';
import { ACCESS_RESULTS, accessResultName, DAR } from './errors.ts';
import { decodeResultList } from './get.ts';
import { loadVectors } from './golden/vectors.ts';
import { exceptionFor, PDU_TOO_LONG } from './refusal.ts';

const doc = readFileSync(new URL('../APDU.md', import.meta.url), 'utf8');
const inv = { id: 1, confirmed: true, highPriority: true };

describe('[AX-5] date-time', () => {
  it('[AX-5.4] an instant in IST: deviation -330, day of week Thursday, and back', () => {
    const ms = Date.UTC(2026, 10, 26, 8, 0, 0, 120);
    const dt = dateTimeFromInstant(ms, 330);
    expect(dt).toMatchObject({
      year: 2026,
      month: 11,
      day: 26,
      dayOfWeek: 4,
      hour: 13,
      minute: 30,
      hundredths: 12,
    });
    expect(dt.deviation).toBe(-330);
    expect(dateTimeToInstant(dt)).toBe(ms);
    expect(toHex(encodeDateTime(dt))).toBe('07ea0b1a040d1e000cfeb600');
  });

  it("[AX-5.1] APDU.md's worked example is the bytes it names", () => {
    const m = /```\n(07 EA \|[^\n]+)\n/.exec(doc);
    const hex = m![1]!.replace(/\|/g, '');
    const dt = decodeDateTime(fromHex(hex));
    expect(dt).toEqual({ ok: true, value: dateTimeFromInstant(Date.UTC(2026, 10, 26, 8, 0), 330) });
  });

  it('[AX-5.4] the public vectors read as the instants their source meant (deviation -60 is UTC+1)', () => {
    const dt = decodeDateTime(fromHex('07e10a010700000000ffc480'));
    if (!dt.ok) throw new Error('decode');
    expect(dt.value.status).toBe(0x80);
    expect(new Date(dateTimeToInstant(dt.value)!).toISOString()).toBe('2017-09-30T23:00:00.000Z');
  });

  it('[AX-5.2] unspecified or special fields name no instant, unless an offset is assumed', () => {
    const dt = dateTimeFromInstant(0, 0);
    expect(dateTimeToInstant({ ...dt, year: null })).toBeNull();
    expect(dateTimeToInstant({ ...dt, day: 0xfe })).toBeNull();
    expect(dateTimeToInstant({ ...dt, deviation: null })).toBeNull();
    expect(dateTimeToInstant({ ...dt, deviation: null }, 330)).toBe(-330 * 60_000);
  });

  it('[AX-5.2] an encoder refuses a field out of range', () => {
    expect(() => encodeDateTime({ ...dateTimeFromInstant(0, 0), hour: 24 })).toThrow(RangeError);
    expect(() => encodeDateTime({ ...dateTimeFromInstant(0, 0), deviation: 721 })).toThrow(/AX-5.4/);
  });
});

describe('[AX-3.1][AX-5.1] a public load profile buffer', () => {
  it('reads as 24 hourly rows: a date-time each hour, status 0, the energy register rising', () => {
    const v = loadVectors().data.find((x) => x.name.includes('load profile buffer'))!;
    const d = v.decoded as Data;
    if (d.type !== 'array') throw new Error(d.type);
    const rows = d.items.map((row) => {
      if (row.type !== 'structure' || row.items[0]?.type !== 'octet-string') throw new Error('row');
      const dt = decodeDateTime(row.items[0].value);
      if (!dt.ok) throw new Error(dt.error.message);
      return {
        hour: dt.value.hour,
        deviation: dt.value.deviation,
        status: row.items[1],
        value: row.items[2],
      };
    });
    expect(rows.map((r) => r.hour)).toEqual([...Array(24).keys()]);
    expect(rows.every((r) => r.deviation === null)).toBe(true);
    expect(rows[0]!.value).toEqual({ type: 'double-long-unsigned', value: 100000 });
    expect(rows[23]!.value).toEqual({ type: 'double-long-unsigned', value: 100000 + 23 * 416 });
  });
});

describe('[AP-4] selective access', () => {
  const clock: CaptureObject = { classId: 8, logicalName: '0.0.1.0.0.255', attributeIndex: 2, dataIndex: 0 };

  it('[AP-4.2] the public range-descriptor vector reads as a range', () => {
    const v = loadVectors().apdu.find((x) => x.name.includes('from 2017-10-01'))!;
    const r = decodeApdu(fromHex(v.hex));
    if (!r.ok || r.value.type !== 'get-request-normal' || !r.value.access) throw new Error('decode');
    const range = rangeFromAccess(r.value.access)!;
    expect(range.restrictingObject).toEqual(clock);
    expect(range.selectedValues).toEqual([]);
    expect(range.from).toEqual({ type: 'octet-string', value: fromHex('07e10a010700000000ffc480') });
    expect(rangeToAccess(range)).toEqual(r.value.access);
  });

  it('[AP-4.3] anything not shaped as a range is null', () => {
    expect(rangeFromAccess({ selector: 2, parameters: { type: 'null-data' } })).toBeNull();
    const access = rangeToAccess({
      restrictingObject: clock,
      from: { type: 'null-data' },
      to: { type: 'null-data' },
      selectedValues: [clock],
    });
    if (access.parameters.type !== 'structure') throw new Error('shape');
    const broken: Data = {
      ...access.parameters,
      items: [{ type: 'integer', value: 1 }, ...access.parameters.items.slice(1)],
    };
    expect(rangeFromAccess({ selector: 1, parameters: broken })).toBeNull();
  });

  it('[AP-4.4] entry descriptor both ways', () => {
    const e = { fromEntry: 1, toEntry: 0, fromSelectedValue: 1, toSelectedValue: 0 };
    expect(entryFromAccess(entryToAccess(e))).toEqual(e);
    expect(entryFromAccess({ selector: 1, parameters: { type: 'null-data' } })).toBeNull();
  });

  it('[AP-3.2] OBIS codes: six numbers 0-255', () => {
    expect(obisFromBytes(obisToBytes('1.0.99.1.0.255'))).toBe('1.0.99.1.0.255');
    expect(() => obisToBytes('1.0.99.1.0')).toThrow(RangeError);
    expect(() => obisToBytes('1.0.99.1.0.256')).toThrow(RangeError);
  });
});

describe('[AP-5.5][AP-5.6] GET block transfer', () => {
  const big: Data = { type: 'octet-string', value: new Uint8Array(1000).fill(7) };

  it('[AP-5.5] a response that fits is one normal response', () => {
    expect(getResponses(inv, { type: 'unsigned', value: 1 }, 64)).toEqual([
      {
        type: 'get-response-normal',
        invoke: inv,
        result: { kind: 'data', data: { type: 'unsigned', value: 1 } },
      },
    ]);
  });

  it('[AP-5.5] blocks fill the PDU exactly: 9 header bytes and the raw-data length', () => {
    expect(blockPayloadSize(128)).toBe(118); // 9 + 1 (76) + 118
    expect(blockPayloadSize(200)).toBe(189); // 9 + 2 (81 BD) + 189
    const blocks = getResponses(inv, big, 128);
    expect(blocks).toHaveLength(Math.ceil(encodeData(big).length / 118));
    for (const b of blocks.slice(0, -1)) expect(encodeApdu(b)).toHaveLength(128);
    expect(() => blockPayloadSize(10)).toThrow(RangeError);
  });

  it('[AP-5.6] out-of-order, refused and oversized transfers stop', () => {
    const blocks = splitIntoBlocks(inv, encodeData(big), 128).map((b) => {
      if (b.type !== 'get-response-with-datablock') throw new Error(b.type);
      return b.block;
    });
    expect(acceptBlock(startAssembly(), blocks[1]!)).toMatchObject({
      kind: 'error',
      error: { rule: 'AP-5.6' },
    });
    expect(acceptBlock(startAssembly(), blocks[0]!, 50)).toMatchObject({ kind: 'error' });
    const aborted = {
      last: true,
      blockNumber: 1,
      result: { kind: 'error' as const, result: DAR.longGetAborted },
    };
    expect(acceptBlock(startAssembly(), aborted)).toEqual({ kind: 'refused', result: 15 });
  });
});

describe('[AP-6.2] SET block transfer', () => {
  const attr = { classId: 20, instance: '0.0.13.0.0.255', attributeId: 7 };
  it('a value that fits is one set-request-normal; a longer one goes in blocks that fill the PDU', () => {
    expect(setRequests(inv, attr, { type: 'unsigned', value: 1 }, 64)).toHaveLength(1);
    const value: Data = { type: 'octet-string', value: new Uint8Array(500).fill(1) };
    const reqs = setRequests(inv, attr, value, 128);
    expect(reqs[0]!.type).toBe('set-request-with-first-datablock');
    for (const r of reqs.slice(0, -1)) expect(encodeApdu(r)).toHaveLength(128);
    let state = startAssembly();
    for (const r of reqs) {
      if (r.type === 'set-request-normal') throw new Error(r.type);
      const step = acceptBlock(state, r.block);
      if (step.kind === 'more') state = step.state;
      else expect(step.kind === 'done' && decodeData(step.raw)).toEqual({ ok: true, value });
    }
  });
});

describe('[AP-9.1] result codes', () => {
  it('one list, with the action names where they differ', () => {
    expect(accessResultName(3)).toBe('read-write-denied');
    expect(accessResultName(15)).toBe('long-get-aborted');
    expect(accessResultName(15, true)).toBe('long-action-aborted');
    expect(accessResultName(17, true)).toBe('long-set-aborted');
    expect(accessResultName(77)).toBe('unknown-77');
    for (const [name, code] of Object.entries(DAR)) {
      const kebab = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      expect(ACCESS_RESULTS.find((r) => r.code === code)?.name).toBe(kebab);
    }
  });

  it("APDU.md's table lists exactly these codes and names", () => {
    const rows = [
      ...doc.slice(doc.indexOf('## AP-9')).matchAll(/^ *\| (\d+) \| ([a-z-]+) \| ?([a-z-]*) ?\|$/gm),
    ];
    expect(rows.map((m) => [Number(m[1]), m[2], m[3]])).toEqual(
      ACCESS_RESULTS.map((r) => [r.code, r.name, r.action ?? (r.code >= 17 && r.code <= 19 ? '' : r.name)]),
    );
  });
});

describe('[AP-8.2] refusals', () => {
  const errorOf = (hex: string) => {
    const r = decodeApdu(fromHex(hex));
    if (r.ok) throw new Error('decoded');
    return r.error;
  };
  it('an unsupported service or unknown tag: service-unknown / service-not-supported', () => {
    expect(toHex(encodeApdu(exceptionFor(errorOf('c81e30'))))).toBe('d80202');
    expect(toHex(encodeApdu(exceptionFor(errorOf('9901'))))).toBe('d80202');
  });
  it('a broken APDU: service-not-allowed / operation-not-possible', () => {
    expect(toHex(encodeApdu(exceptionFor(errorOf('c001c10008'))))).toBe('d80101');
    expect(toHex(encodeApdu(PDU_TOO_LONG))).toBe('d80104');
  });
});

describe('[AP-2.10] IS 15959 associations', () => {
  it('the public client (SAP 16) proposes no security; the meter reader (SAP 32) LLS', () => {
    expect(CLIENT_SAP).toEqual({ public: 16, meterReader: 32 });
    const pub = loadVectors().apdu.find((v) => v.name.includes('no security (public client)'))!;
    expect(toHex(encodeApdu(associationRequest()))).toBe(pub.hex);
    expect(ACSE_USER_DIAGNOSTIC.authenticationFailure).toBe(13);
  });

  it("APDU.md's annotated AARQ is the meter reader's AARQ", () => {
    const block = /```\n(60 36[\s\S]*?)```/.exec(doc)![1]!;
    const hex = block
      .split('\n')
      .map((line) => /^\s*((?:[0-9A-F]{2} )*[0-9A-F]{2})/.exec(line)?.[1] ?? '')
      .join('')
      .replace(/ /g, '');
    expect(hex.toLowerCase()).toBe(toHex(encodeApdu(associationRequest({ password: '12345678' }))));
  });
});

describe('[AX-1.2] encoders refuse values the encoding cannot hold', () => {
  it.each<[string, Data]>([
    ['integer 128', { type: 'integer', value: 128 }],
    ['unsigned -1', { type: 'unsigned', value: -1 }],
    ['long-unsigned 1.5', { type: 'long-unsigned', value: 1.5 }],
    ['long64 2^63', { type: 'long64', value: 2n ** 63n }],
    ['visible-string beyond Latin-1', { type: 'visible-string', value: '₹' }],
    ['bit-string of x', { type: 'bit-string', value: '10x' }],
    ['date of 4 bytes', { type: 'date', value: new Uint8Array(4) }],
  ])('%s', (_name, d) => {
    expect(() => encodeData(d)).toThrow(RangeError);
  });

  it('[AX-3.2] any non-zero boolean byte is true', () => {
    expect(decodeData(fromHex('0302'))).toEqual({ ok: true, value: { type: 'boolean', value: true } });
  });
});

describe('APDU.md and the code cite the same rules', () => {
  it('every rule cited in the code, tests and vectors is defined, and every rule defined is cited', () => {
    const here = new URL('./', import.meta.url);
    const files = [
      ...readdirSync(here)
        .filter((f) => /\.(ts|json)$/.test(f))
        .map((f) => new URL(f, here)),
      ...readdirSync(new URL('golden/', here)).map((f) => new URL(`golden/${f}`, here)),
      new URL('../../../test/hardening/fuzz-dlms-apdu.test.ts', here),
    ];
    const cited = new Set(files.flatMap((f) => readFileSync(f, 'utf8').match(/A[XP]-\d+\.\d+/g) ?? []));
    const defined = new Set([...doc.matchAll(/^- \*\*(A[XP]-\d+\.\d+)\*\*/gm)].map((m) => m[1]!));
    expect([...cited].filter((r) => !defined.has(r))).toEqual([]);
    expect([...defined].filter((r) => !cited.has(r))).toEqual([]);
  });
});

describe('[AX-1.1] error offsets are positions in the whole APDU', () => {
  it('a bad conformance block inside an AARQ is reported where it starts, byte 22', () => {
    const r = decodeApdu(fromHex('601ca109060760857405080101be0f040d01000000065f1f03007e1f04b0'));
    expect(r).toMatchObject({ ok: false, error: { rule: 'AP-2.7', offset: 22 } });
  });
});

describe('[AP-5.5][AP-5.6] GET with-list in blocks', () => {
  it('the count and results go in blocks and come back', () => {
    const results = Array.from({ length: 40 }, (_, i) =>
      i % 3
        ? { kind: 'data' as const, data: { type: 'double-long-unsigned' as const, value: i * 1000 } }
        : { kind: 'error' as const, result: 4 },
    );
    expect(getListResponses(inv, results.slice(0, 2), 64)).toEqual([
      { type: 'get-response-with-list', invoke: inv, results: results.slice(0, 2) },
    ]);
    const blocks = getListResponses(inv, results, 64);
    expect(blocks.length).toBeGreaterThan(1);
    let state = startAssembly();
    for (const b of blocks) {
      if (b.type !== 'get-response-with-datablock') throw new Error(b.type);
      expect(encodeApdu(b).length).toBeLessThanOrEqual(64);
      const step = acceptBlock(state, b.block);
      if (step.kind === 'more') state = step.state;
      else expect(step.kind === 'done' && decodeResultList(step.raw)).toEqual({ ok: true, value: results });
    }
  });
});
