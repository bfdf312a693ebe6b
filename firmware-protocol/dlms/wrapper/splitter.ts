// [WR-3] Cuts a TCP byte stream into WPDUs. TCP keeps no message boundaries, so a WPDU may arrive in many
// chunks and a chunk may hold many WPDUs; the header's length says where each ends. A wrong version or
// an APDU over the receiver's bound cannot be skipped (nothing marks where the next WPDU starts), so the
// splitter reports it once and stops: the adapter closes the connection. It holds at most one WPDU.

import { decodeHeader, HEADER_BYTES, MAX_WPDU_APDU, type Wpdu, type WrapperError } from './codec.ts';

export type StreamPiece = { kind: 'pdu'; pdu: Wpdu } | { kind: 'fatal'; error: WrapperError };

export class WpduSplitter {
  readonly #maxApdu: number;
  #chunks: Uint8Array[] = [];
  #held = 0;
  #failed = false;

  /** `maxApdu`: the longest APDU this receiver takes (its xDLMS max receive PDU size) [WR-3.2]. */
  constructor(maxApdu = MAX_WPDU_APDU) {
    if (!Number.isInteger(maxApdu) || maxApdu < 1 || maxApdu > MAX_WPDU_APDU) {
      throw new TypeError(`WpduSplitter: maxApdu must be 1..${MAX_WPDU_APDU}, got ${maxApdu}`);
    }
    this.#maxApdu = maxApdu;
  }

  /** True once the stream is out of step and must be closed [WR-3.3]. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Bytes of an unfinished WPDU held. */
  get partial(): number {
    return this.#held;
  }

  push(chunk: Uint8Array): StreamPiece[] {
    if (this.#failed || chunk.length === 0) return [];
    this.#chunks.push(new Uint8Array(chunk)); // a copy: a Buffer's slice is a view
    this.#held += chunk.length;
    const out: StreamPiece[] = [];
    while (this.#held >= HEADER_BYTES) {
      const header = decodeHeader(this.#peek(HEADER_BYTES), this.#maxApdu);
      if (!header.ok) {
        this.#failed = true;
        this.#chunks = [];
        this.#held = 0;
        out.push({ kind: 'fatal', error: header.error });
        break;
      }
      const total = HEADER_BYTES + header.length;
      if (this.#held < total) break;
      const bytes = this.#take(total);
      out.push({
        kind: 'pdu',
        pdu: { source: header.source, dest: header.dest, apdu: new Uint8Array(bytes.subarray(HEADER_BYTES)) },
      });
    }
    return out;
  }

  /** The first `n` held bytes, joining chunks only as far as needed. */
  #peek(n: number): Uint8Array {
    const first = this.#chunks[0]!;
    if (first.length >= n) return first.subarray(0, n);
    this.#join();
    return this.#chunks[0]!.subarray(0, n);
  }

  #take(n: number): Uint8Array {
    if (this.#chunks[0]!.length < n) this.#join();
    const first = this.#chunks[0]!;
    const bytes = first.subarray(0, n);
    if (first.length === n) this.#chunks.shift();
    else this.#chunks[0] = first.subarray(n);
    this.#held -= n;
    return bytes;
  }

  // Joined only when a header or a whole WPDU is there, so each byte is copied a bounded number of times.
  #join(): void {
    const all = new Uint8Array(this.#held);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    this.#chunks = [all];
  }
}
