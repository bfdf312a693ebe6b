// [HD-8] Finds frames in a serial byte stream. HDLC as IEC 62056-46 uses it has no byte stuffing: 0x7E may
// occur inside a frame, so a frame is found by its length field and a flag at the end it names, not by
// the next flag. Bytes that do not start a frame are dropped and counted. The buffer holds at most one
// frame (`maxFrameBytes`, flags included), so noise cannot grow it; work is bounded per byte.

import { fcs16 } from './fcs16.ts';
import {
  decodeFrame,
  FLAG,
  type FrameError,
  type HdlcFrame,
  headerLength,
  MAX_FRAME_LENGTH,
  MIN_FRAME_BYTES,
} from './frame.ts';

export type SplitPiece =
  | { kind: 'frame'; frame: HdlcFrame; bytes: Uint8Array }
  | { kind: 'bad'; error: FrameError; bytes: Uint8Array };

export class FrameSplitter {
  readonly #max: number;
  readonly #buf: Uint8Array;
  #len = 0;
  #noise = 0;

  /** `maxFrameBytes`: the longest frame accepted, flags included (default: what the length field allows). */
  constructor(maxFrameBytes = MAX_FRAME_LENGTH + 2) {
    if (
      !Number.isInteger(maxFrameBytes) ||
      maxFrameBytes < MIN_FRAME_BYTES ||
      maxFrameBytes > MAX_FRAME_LENGTH + 2
    ) {
      throw new TypeError(
        `FrameSplitter: maxFrameBytes must be ${MIN_FRAME_BYTES}..${MAX_FRAME_LENGTH + 2}, got ${maxFrameBytes}`,
      );
    }
    this.#max = maxFrameBytes;
    this.#buf = new Uint8Array(maxFrameBytes);
  }

  /** Feeds a chunk of any size; returns the frames (and frames with a bad HCS/FCS) it completed, in order. */
  push(chunk: Uint8Array): SplitPiece[] {
    const out: SplitPiece[] = [];
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(this.#max - this.#len, chunk.length - at);
      this.#buf.set(chunk.subarray(at, at + take), this.#len);
      this.#len += take;
      at += take;
      this.#scan(out);
    }
    return out;
  }

  /** Bytes other than flags dropped so far, outside any frame [HD-8.2]. */
  get noiseBytes(): number {
    return this.#noise;
  }

  /** Bytes of an unfinished frame held. */
  get partial(): number {
    return this.#len;
  }

  /**
   * [HD-8.3] The line has gone quiet: nothing held can still be completed, so a header waiting for more
   * bytes was false. Looks again one byte further on, delivering any whole frame it hid, and drops the
   * rest. Called by the adapter after the inter-character timeout; work is bounded by the buffer.
   */
  flush(): SplitPiece[] {
    const out: SplitPiece[] = [];
    while (this.#len > 0) {
      if (this.#buf[0] !== FLAG) this.#noise++;
      this.#buf.copyWithin(0, 1, this.#len);
      this.#len--;
      this.#scan(out);
    }
    return out;
  }

  /** Forgets everything held (the port was closed or reopened); returns how many bytes that was. */
  discard(): number {
    const n = this.#len;
    this.#len = 0;
    return n;
  }

  #scan(out: SplitPiece[]): void {
    let start = 0;
    const buf = this.#buf;
    for (;;) {
      // [HD-8.2] Skip to the next flag; what lies before it is noise.
      while (start < this.#len && buf[start] !== FLAG) {
        start++;
        this.#noise++;
      }
      if (this.#len - start < 3) break;
      const format = buf[start + 1]!;
      const total = (((format & 0x07) << 8) | buf[start + 2]!) + 2;
      // [HD-8.1] A flag followed by something that cannot be a type-3 frame of an acceptable length is
      // a flag between frames (or noise): move past it.
      if ((format & 0xf0) !== 0xa0 || total < MIN_FRAME_BYTES || total > this.#max) {
        start++;
        continue;
      }
      if (this.#len - start < total) break;
      if (buf[start + total - 1] !== FLAG) {
        start++;
        continue;
      }
      const bytes = buf.slice(start, start + total);
      const result = decodeFrame(bytes);
      out.push(
        result.ok
          ? { kind: 'frame', frame: result.frame, bytes }
          : { kind: 'bad', error: result.error, bytes },
      );
      // [HD-8.1] The closing flag may also open the next frame: keep it. A length is trusted only when
      // the frame decodes or its HCS is right; otherwise the "frame" may be noise that ended inside a
      // real frame, so move one byte on and look again.
      const trusted = result.ok || (result.error.code === 'bad_fcs' && hasGoodHcs(bytes));
      start += trusted ? total - 1 : 1;
    }
    if (start > 0) {
      buf.copyWithin(0, start, this.#len);
      this.#len -= start;
    }
  }
}

/** True when the frame has an information field and its HCS is right [HD-2.4, HD-2.5]. */
function hasGoodHcs(bytes: Uint8Array): boolean {
  const header = headerLength(bytes);
  if (header === null || header + 2 >= bytes.length - 3) return false;
  return fcs16(bytes, 1, header) === (bytes[header]! | (bytes[header + 1]! << 8));
}
