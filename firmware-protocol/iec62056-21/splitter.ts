// Cuts a byte stream into IEC 62056-21 messages for decodeMessage [IEC-4]. Bounded (a message longer than
// its limit is dropped as it streams in), noise tolerant (bytes outside a message are counted and skipped),
// and clock-free: the caller passes the time of each chunk, so a message whose sender went quiet is dropped
// after the inter-character time [IEC-1.5]. One splitter per direction: the meter's side reads what a reader
// sends, the reader's side what a meter sends. Rule numbers refer to ./PROTOCOL.md.

import { ACK, ETX, hasEvenParity, LF, NAK, SOH, STX, stripParityBit } from './chars.ts';

export type Side = 'meter' | 'reader';

export type Piece =
  | { kind: 'message'; bytes: Uint8Array }
  /** A message begun but not delivered: too long, cut by silence, spoilt parity, or cut by a new start. */
  | { kind: 'dropped'; reason: 'oversize' | 'timeout' | 'parity' | 'broken'; bytes: number }
  /** [IEC-4.3] Bytes outside any message (a reader's wake-up NULs, line noise), reported once per run. */
  | { kind: 'noise'; bytes: number };

export interface SplitterOptions {
  /** Which end this splitter sits at: it decides what a lone ACK is [IEC-4.1]. */
  side: Side;
  /** [IEC-4.2] Longest STX/SOH block kept, BCC included. Default 16384. */
  maxBlock?: number;
  /** [IEC-1.5] Silence after which an unfinished message is dropped, in ms. Default 1500. */
  interCharMs?: number;
  /** [IEC-1.2] True when the port runs 8N1 and bit 7 carries the even parity: check and strip it. */
  parityInBit7?: boolean;
}

/** [IEC-4.2] `/` lines are short: 1 + 32-character address + `?!` CR LF, or a 22-character identification. */
const MAX_SLASH = 40;
const MAX_OPTION_SELECT = 6;

type Frame = 'slash' | 'option' | 'block' | 'block-bcc';

export class Splitter {
  readonly #side: Side;
  readonly #maxBlock: number;
  readonly #interCharMs: number;
  readonly #parity: boolean;
  #buf: number[] = [];
  #frame: Frame | null = null;
  #spoilt = false;
  #oversize = 0;
  #noise = 0;
  #last = Number.NEGATIVE_INFINITY;

  constructor(options: SplitterOptions) {
    const { side, maxBlock = 16384, interCharMs = 1500, parityInBit7 = false } = options;
    if (side !== 'meter' && side !== 'reader') throw new TypeError(`Splitter: side must be meter or reader`);
    if (!Number.isInteger(maxBlock) || maxBlock < 4)
      throw new TypeError('Splitter: maxBlock must be an integer >= 4');
    if (!(interCharMs > 0)) throw new TypeError('Splitter: interCharMs must be positive');
    this.#side = side;
    this.#maxBlock = maxBlock;
    this.#interCharMs = interCharMs;
    this.#parity = parityInBit7;
  }

  /** Feeds bytes that arrived at `now` (ms); returns the pieces they completed, in order. */
  push(chunk: Uint8Array, now: number): Piece[] {
    const out = this.expire(now);
    for (const raw of chunk) {
      const bad = this.#parity && !hasEvenParity(raw);
      this.#byte(this.#parity ? stripParityBit(raw) : raw, bad, out);
    }
    if (chunk.length > 0) this.#last = now;
    return out;
  }

  /** [IEC-1.5] Drops an unfinished message when nothing came for interCharMs before `now`. */
  expire(now: number): Piece[] {
    const out: Piece[] = [];
    if (now - this.#last <= this.#interCharMs) return out;
    if (this.#frame !== null) out.push(this.#drop('timeout'));
    if (this.#noise > 0) out.push(this.#flushNoise());
    return out;
  }

  /** When the unfinished message (if any) will be dropped, for the caller's timer; null when none. */
  get deadline(): number | null {
    return this.#frame === null ? null : this.#last + this.#interCharMs;
  }

  #byte(c: number, bad: boolean, out: Piece[]): void {
    const frame = this.#frame;
    if (frame === null) {
      // A byte with wrong parity cannot open a message: it is noise [IEC-1.2].
      if (bad) this.#noise++;
      else this.#hunt(c, out);
      return;
    }
    if (bad) this.#spoilt = true;
    // A new start inside a short message means the old one was broken off [IEC-4.3].
    if ((frame === 'slash' || frame === 'option') && (c === 0x2f || c === SOH || c === STX)) {
      out.push(this.#drop('broken'));
      this.#hunt(c, out);
      return;
    }
    this.#take(c, frame === 'slash' ? MAX_SLASH : frame === 'option' ? MAX_OPTION_SELECT : this.#maxBlock);
    const lineEnd = (frame === 'slash' || frame === 'option') && c === LF;
    if (lineEnd || (frame === 'option' && this.#size() >= MAX_OPTION_SELECT)) this.#finish(out);
    else if (frame === 'block' && c === ETX) this.#frame = 'block-bcc';
    else if (frame === 'block-bcc') this.#finish(out);
  }

  /** [IEC-4.1] Outside a message: a start character opens one, anything else is noise. */
  #hunt(c: number, out: Piece[]): void {
    const single = c === NAK || (c === ACK && this.#side === 'reader');
    const opens = c === 0x2f || c === SOH || c === STX || c === ACK || c === NAK;
    if (!opens) {
      this.#noise++;
      return;
    }
    if (this.#noise > 0) out.push(this.#flushNoise());
    this.#reset();
    if (single) {
      out.push({ kind: 'message', bytes: Uint8Array.of(c) });
      return;
    }
    this.#buf = [c];
    this.#frame = c === 0x2f ? 'slash' : c === ACK ? 'option' : 'block';
  }

  #take(c: number, max: number): void {
    if (this.#oversize > 0 || this.#buf.length >= max) {
      if (this.#oversize === 0) this.#oversize = this.#buf.length;
      this.#oversize++;
      this.#buf = [];
      return;
    }
    this.#buf.push(c);
  }

  #size(): number {
    return this.#oversize > 0 ? this.#oversize : this.#buf.length;
  }

  #finish(out: Piece[]): void {
    if (this.#oversize > 0) out.push(this.#drop('oversize'));
    else if (this.#spoilt) out.push(this.#drop('parity'));
    else {
      out.push({ kind: 'message', bytes: Uint8Array.from(this.#buf) });
      this.#reset();
    }
  }

  #drop(reason: 'oversize' | 'timeout' | 'parity' | 'broken'): Piece {
    const piece: Piece = { kind: 'dropped', reason, bytes: this.#size() };
    this.#reset();
    return piece;
  }

  #flushNoise(): Piece {
    const piece: Piece = { kind: 'noise', bytes: this.#noise };
    this.#noise = 0;
    return piece;
  }

  #reset(): void {
    this.#buf = [];
    this.#frame = null;
    this.#spoilt = false;
    this.#oversize = 0;
  }
}
