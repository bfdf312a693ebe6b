// The frame splitter [HD-8]: golden frames with noise between them, fed in every chunk size, come out
// whole and in order; 0x7E inside a frame is data; a damaged frame is reported once; memory stays bounded.
import { describe, expect, it } from 'vitest';
import { fromHex, loadFrameVectors, toHex } from './golden/vectors.ts';
import { FrameSplitter, type SplitPiece } from './splitter.ts';

const { frames } = loadFrameVectors();
const wire = frames.map((v) => fromHex(v.hex));

function feed(splitter: FrameSplitter, bytes: Uint8Array, chunk: number): SplitPiece[] {
  const out: SplitPiece[] = [];
  for (let at = 0; at < bytes.length; at += chunk) out.push(...splitter.push(bytes.subarray(at, at + chunk)));
  return out;
}

const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('[HD-8.1] FrameSplitter', () => {
  const noise = fromHex('00 FF 41 7E 7E 13 A0');
  const stream = concat(wire.flatMap((w) => [noise, w]));

  it.each([1, 2, 3, 7, 64, 4096])('finds every golden frame among noise, fed %i bytes at a time', (chunk) => {
    const splitter = new FrameSplitter();
    const pieces = feed(splitter, stream, chunk);
    expect(pieces.map((p) => p.kind)).toEqual(wire.map(() => 'frame'));
    expect(pieces.map((p) => toHex(p.bytes))).toEqual(frames.map((v) => v.hex));
    // [HD-8.2] Non-flag noise is counted: 5 of the 7 noise bytes per gap are not flags.
    expect(splitter.noiseBytes).toBe(5 * wire.length);
  });

  it('one flag may close a frame and open the next', () => {
    const shared = concat(wire.slice(0, 3).map((w, i) => (i === 0 ? w : w.subarray(1))));
    const pieces = new FrameSplitter().push(shared);
    expect(pieces.map((p) => toHex(p.bytes))).toEqual(frames.slice(0, 3).map((v) => v.hex));
  });

  it('a 0x7E inside a frame (here its HCS) does not cut it', () => {
    const v = frames.find((f) => f.name.includes('0x7E inside'))!;
    expect(feed(new FrameSplitter(), fromHex(v.hex), 1).map((p) => p.kind)).toEqual(['frame']);
  });

  it('[HD-2.5] a frame with a bad FCS is reported once, and the next frame still comes', () => {
    const bad = fromHex('7E A0 07 03 21 93 01 0F 7E');
    const pieces = new FrameSplitter().push(concat([bad, wire[0]!]));
    expect(pieces.map((p) => (p.kind === 'bad' ? p.error.code : p.kind))).toEqual(['bad_fcs', 'frame']);
  });

  it('[HD-8.2] holds at most one frame of noise, and a false header delays but does not lose a frame', () => {
    const splitter = new FrameSplitter(64);
    const fake = fromHex('7E A0 30'); // claims 50 bytes between flags, and no flag where it ends
    const pieces = feed(splitter, concat([fake, wire[0]!, new Uint8Array(60).fill(0x55)]), 5);
    expect(pieces.map((p) => toHex(p.bytes))).toEqual([frames[0]!.hex]);
    expect(splitter.partial).toBeLessThanOrEqual(64);
    expect(feed(splitter, new Uint8Array(100_000).fill(0x33), 999)).toEqual([]);
    expect(splitter.partial).toBe(0);
  });

  it('a false header whose claimed end is the closing flag of a real frame does not swallow it', () => {
    const pieces = new FrameSplitter().push(fromHex(`7E A0 0A ${frames[0]!.hex}`));
    expect(pieces.map((p) => (p.kind === 'bad' ? p.error.code : toHex(p.bytes)))).toEqual([
      'bad_address',
      frames[0]!.hex,
    ]);
  });

  it('[HD-8.3] flush, after the line goes quiet, finds a frame a false header was hiding', () => {
    const splitter = new FrameSplitter();
    // The closing flag of one frame, a noise byte A0 and the next frame's flag read as a header of 128.
    expect(
      splitter.push(fromHex(`${frames[0]!.hex} A0 ${frames[5]!.hex}`)).map((p) => toHex(p.bytes)),
    ).toEqual([frames[0]!.hex]);
    expect(splitter.flush().map((p) => toHex(p.bytes))).toEqual([frames[5]!.hex]);
    expect(splitter.partial).toBe(0);
    expect(splitter.noiseBytes).toBe(1);
  });

  it('discard forgets an unfinished frame', () => {
    const splitter = new FrameSplitter();
    splitter.push(wire[2]!.subarray(0, 10));
    expect(splitter.discard()).toBe(10);
    expect(splitter.push(wire[0]!).map((p) => p.kind)).toEqual(['frame']);
  });

  it('refuses a bound it could not honour', () => {
    expect(() => new FrameSplitter(8)).toThrow(TypeError);
    expect(() => new FrameSplitter(5000)).toThrow(TypeError);
  });
});

describe('Buffers in, plain copies out', () => {
  it('a frame decoded from a Node Buffer does not alias it', () => {
    const buffer = Buffer.from(fromHex(frames[2]!.hex));
    const pieces = new FrameSplitter().push(buffer);
    const info = pieces[0]!.kind === 'frame' ? pieces[0]!.frame.info : undefined;
    buffer.fill(0);
    expect(info && toHex(info)).toBe(frames[2]!.decoded.info);
    expect(info?.constructor).toBe(Uint8Array);
  });
});
