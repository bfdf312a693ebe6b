// Cuts a byte stream into lines at `\n` [SP-2.1], holding at most MAX_LINE_BYTES (+1 for a `\r`) of a
// line in memory: a longer one is dropped as it streams in and reported once, at its `\n`, as oversize
// [SP-2.2]. Like @serialport/parser-readline, but bounded, so garbage without newlines cannot grow the
// buffer. Bytes are read as latin1, so a non-ASCII byte reaches parseLine as itself and fails SP-2.1.

import { MAX_LINE_BYTES } from './frames.ts';

export type Piece = { kind: 'line'; line: string } | { kind: 'oversize'; bytes: number };

export class LineSplitter {
  readonly #max: number;
  #parts: string[] = [];
  #held = 0;
  /** Bytes of the current line when it is being dropped for length, else -1. */
  #dropping = -1;

  constructor(maxBytes = MAX_LINE_BYTES + 1) {
    if (!Number.isInteger(maxBytes) || maxBytes < 1) {
      throw new TypeError(`LineSplitter: maxBytes must be a positive integer, got ${maxBytes}`);
    }
    this.#max = maxBytes;
  }

  /** Feeds a chunk; returns the lines (without `\n`) and oversize reports it completed, in order. */
  push(chunk: Buffer | string): Piece[] {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
    const out: Piece[] = [];
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const end = nl < 0 ? text.length : nl;
      this.#take(text.slice(start, end));
      if (nl < 0) return out;
      out.push(this.#finish());
      start = nl + 1;
    }
  }

  /** Bytes of an unfinished line held or being dropped (0 between lines). */
  get partial(): number {
    return this.#dropping >= 0 ? this.#dropping : this.#held;
  }

  /** [SP-2.9] Forgets an unfinished line (its sender went quiet mid-line); returns its length so far. */
  discard(): number {
    const bytes = this.partial;
    this.#parts = [];
    this.#held = 0;
    this.#dropping = -1;
    return bytes;
  }

  #take(part: string): void {
    if (part.length === 0) return;
    if (this.#dropping >= 0) {
      this.#dropping += part.length;
      return;
    }
    if (this.#held + part.length > this.#max) {
      this.#dropping = this.#held + part.length;
      this.#parts = [];
      this.#held = 0;
      return;
    }
    this.#parts.push(part);
    this.#held += part.length;
  }

  #finish(): Piece {
    const piece: Piece =
      this.#dropping >= 0
        ? { kind: 'oversize', bytes: this.#dropping }
        : { kind: 'line', line: this.#parts.join('') };
    this.#parts = [];
    this.#held = 0;
    this.#dropping = -1;
    return piece;
  }
}
