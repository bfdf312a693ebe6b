// The splitter [IEC-4]: every golden message comes out whole however the bytes are chunked; noise, overlong
// messages, silence and parity errors are dropped with a report, never delivered.
import { describe, expect, it } from 'vitest';
import { addParity, ascii } from './chars.ts';
import { encodeMessage } from './codec.ts';
import { fromHex, loadVectors } from './golden/vectors.ts';
import { type Piece, type Side, Splitter } from './splitter.ts';

const { valid } = loadVectors();

/** The side a message is read on: what a reader sends reaches the meter. */
function sideFor(kind: string): Side {
  return kind === 'request' || kind === 'option-select' || kind === 'command' ? 'meter' : 'reader';
}

function feed(s: Splitter, bytes: Uint8Array, chunk: number, now = 0): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < bytes.length; i += chunk) out.push(...s.push(bytes.subarray(i, i + chunk), now));
  return out;
}

describe('[IEC-4.1] golden messages come out whole at every chunk size', () => {
  it.each(valid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const bytes = fromHex(v.hex);
    for (const chunk of [1, 2, 3, 7, bytes.length]) {
      const s = new Splitter({ side: sideFor(v.decoded.kind) });
      expect(feed(s, bytes, chunk)).toEqual([{ kind: 'message', bytes }]);
    }
  });
});

describe('[IEC-4.1] what a lone ACK is depends on the side', () => {
  it('on the reader side ACK is a message by itself; on the meter side it opens an option select', () => {
    expect(new Splitter({ side: 'reader' }).push(Uint8Array.of(6), 0)).toEqual([
      { kind: 'message', bytes: Uint8Array.of(6) },
    ]);
    const meter = new Splitter({ side: 'meter' });
    expect(meter.push(Uint8Array.of(6), 0)).toEqual([]);
    expect(meter.push(ascii('050\r\n'), 0)).toEqual([{ kind: 'message', bytes: ascii('\x06050\r\n') }]);
  });
});

describe('[IEC-4.3] noise', () => {
  it("a reader's wake-up NULs before the request are reported once, then the request comes out", () => {
    const s = new Splitter({ side: 'meter' });
    expect(s.push(ascii('\0\0\0\0/?!\r\n'), 0)).toEqual([
      { kind: 'noise', bytes: 4 },
      { kind: 'message', bytes: ascii('/?!\r\n') },
    ]);
  });

  it('a new start inside an unfinished line breaks it off', () => {
    const s = new Splitter({ side: 'meter' });
    expect(s.push(ascii('/?12/?!\r\n'), 0)).toEqual([
      { kind: 'dropped', reason: 'broken', bytes: 4 },
      { kind: 'message', bytes: ascii('/?!\r\n') },
    ]);
  });
});

describe('[IEC-4.2] bounds', () => {
  it('an overlong / line is dropped at its LF, and the next message is whole', () => {
    const s = new Splitter({ side: 'meter' });
    const long = ascii(`/?${'1'.repeat(100)}!\r\n/?!\r\n`);
    expect(s.push(long, 0)).toEqual([
      { kind: 'dropped', reason: 'oversize', bytes: 105 },
      { kind: 'message', bytes: ascii('/?!\r\n') },
    ]);
  });

  it('a block over maxBlock is dropped after its BCC', () => {
    const s = new Splitter({ side: 'reader', maxBlock: 16 });
    const data = encodeMessage({
      kind: 'data',
      lines: [[{ address: '1.8.0', values: [{ value: '1'.repeat(20) }] }]],
    });
    const pieces = feed(s, data, 5);
    expect(pieces).toEqual([{ kind: 'dropped', reason: 'oversize', bytes: data.length }]);
  });

  it('bytes without any end never grow the buffer past its bound', () => {
    const s = new Splitter({ side: 'reader', maxBlock: 64 });
    s.push(Uint8Array.of(2), 0);
    for (let i = 0; i < 100; i++) expect(s.push(new Uint8Array(1000).fill(0x31), 0)).toEqual([]);
  });
});

describe('[IEC-4.4] silence', () => {
  it('drops a message unfinished after 1500 ms without a byte; not before', () => {
    const s = new Splitter({ side: 'meter' });
    s.push(ascii('/?'), 1000);
    expect(s.deadline).toBe(2500);
    expect(s.expire(2500)).toEqual([]);
    expect(s.push(ascii('!\r'), 2500)).toEqual([]);
    // The LF comes too late: the line is dropped, and the LF itself is noise (reported with the next start).
    expect(s.push(ascii('\n'), 4001)).toEqual([{ kind: 'dropped', reason: 'timeout', bytes: 4 }]);
    expect(s.deadline).toBeNull();
  });
});

describe('[IEC-4.5][IEC-1.2] parity in bit 7', () => {
  it('strips correct parity and delivers the 7-bit message', () => {
    const s = new Splitter({ side: 'meter', parityInBit7: true });
    expect(s.push(addParity(ascii('/?!\r\n')), 0)).toEqual([{ kind: 'message', bytes: ascii('/?!\r\n') }]);
  });

  it('a wrong parity bit inside a message spoils it; outside one it is noise', () => {
    const s = new Splitter({ side: 'meter', parityInBit7: true });
    const bad = addParity(ascii('/?!\r\n'));
    bad[1] = bad[1]! ^ 0x80;
    expect(s.push(bad, 0)).toEqual([{ kind: 'dropped', reason: 'parity', bytes: 5 }]);
    // A bare 0x02 has odd parity (STX is sent as 0x82): it opens nothing.
    expect(s.push(Uint8Array.of(0x02, ...addParity(ascii('/?!\r\n'))), 0)).toEqual([
      { kind: 'noise', bytes: 1 },
      { kind: 'message', bytes: ascii('/?!\r\n') },
    ]);
  });
});

describe('options', () => {
  it('refuses nonsense with a TypeError', () => {
    expect(() => new Splitter({ side: 'x' as Side })).toThrow(TypeError);
    expect(() => new Splitter({ side: 'meter', maxBlock: 1 })).toThrow(TypeError);
    expect(() => new Splitter({ side: 'meter', interCharMs: 0 })).toThrow(TypeError);
  });
});
