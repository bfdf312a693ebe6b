// A serial line emulated between two socat pty pairs: the relay holds one end of each pair and carries
// the bytes across at a line rate, each direction on its own (full duplex: DLMS over HDLC alternates
// strictly, so a half-duplex RS-485 or optical link would carry the same exchange in the same time).
// A byte written by one side arrives at the other when its 10 bits (8N1) would have finished on the
// wire: byte i of a burst at start + (i + 1) × 10 / baud, the burst starting when the line is free.
// A pty alone moves bytes at memory speed, whatever baud rate the ports were opened with.
//
// Besides carrying bytes, the relay counts them, notes when each side answered (how long after the
// last byte it received it began to send), and how late its own timers released bytes.
//
// The client closes its port once its DISC is written (as the bridge does), so nobody reads the UA to
// it: the relay times and counts that UA but does not write it, or it would wait in the pty and the
// next round's client would take it for the UA to its SNRM.

import { SerialPort } from 'serialport';
import { FrameSplitter } from '../../firmware-protocol/dlms/hdlc/splitter.ts';

export type Side = 'client' | 'meter';

/** What one round moved and where its time went, in ms (bytes both ways, flags included). */
export interface RoundStats {
  bytes: Record<Side, number>;
  /** From the first byte the client sent to the last byte the client received. */
  elapsedMs: number;
  /** Summed over turns: from the last byte a side received to the first byte it sent back. */
  reactionMs: Record<Side, number>;
  /** Summed over bursts: how far behind its due time the relay released a burst's last byte. */
  lateMs: number;
  /** The longest the relay held a byte past its due time: over 25 ms, the line itself went quiet mid-frame. */
  maxLateMs: number;
}

class PacedLine {
  #bytes: number[] = [];
  #due: number[] = [];
  #freeAt = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly byteMs: () => number,
    private readonly deliver: (chunk: Uint8Array, atMs: number) => void,
    private readonly onLate: (ms: number, last: boolean) => void,
  ) {}

  get idle(): boolean {
    return this.#bytes.length === 0;
  }

  push(chunk: Uint8Array, nowMs: number): void {
    const byteMs = this.byteMs();
    if (byteMs === 0 && this.idle) {
      this.deliver(chunk, nowMs);
      return;
    }
    let t = Math.max(nowMs, this.#freeAt);
    for (const b of chunk) {
      t += byteMs;
      this.#bytes.push(b);
      this.#due.push(t);
    }
    this.#freeAt = t;
    if (!this.#timer) this.#pump();
  }

  #pump(): void {
    this.#timer = null;
    const now = performance.now();
    let n = 0;
    while (n < this.#due.length && this.#due[n]! <= now) n++;
    if (n > 0) {
      const firstDue = this.#due[0]!;
      const lastDue = this.#due[n - 1]!;
      const chunk = Uint8Array.from(this.#bytes.splice(0, n));
      this.#due.splice(0, n);
      this.onLate(now - firstDue, false);
      if (this.idle) this.onLate(now - lastDue, true);
      this.deliver(chunk, now);
    }
    if (!this.idle) this.#timer = setTimeout(() => this.#pump(), Math.max(0, this.#due[0]! - now));
  }
}

export class PacedRelay {
  #ports: Record<Side, SerialPort | null> = { client: null, meter: null };
  /** Line toward each side. */
  readonly #to: Record<Side, PacedLine>;
  #byteMs = 0;
  #clientFrames = new FrameSplitter();
  #discSent = false;
  #stats: RoundStats = emptyStats();
  #first = -1;
  #last = -1;
  #lastTo: Record<Side, number> = { client: -1, meter: -1 };
  #lastFrom: Record<Side, number> = { client: -1, meter: -1 };

  constructor(readonly baud: number) {
    const late = (ms: number, last: boolean) => {
      if (last) this.#stats.lateMs += ms;
      else this.#stats.maxLateMs = Math.max(this.#stats.maxLateMs, ms);
    };
    this.#to = {
      client: new PacedLine(
        () => this.#byteMs,
        (c, t) => this.#deliver('client', c, t),
        late,
      ),
      meter: new PacedLine(
        () => this.#byteMs,
        (c, t) => this.#deliver('meter', c, t),
        late,
      ),
    };
  }

  /** Opens the relay's end of a side's pty pair (again: the old one, if any, is closed first). */
  async attach(side: Side, path: string): Promise<void> {
    const old = this.#ports[side];
    if (old?.isOpen) await new Promise<void>((r) => old.close(() => r()));
    const port = new SerialPort({ path, baudRate: this.baud, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
    port.on('data', (chunk: Buffer) => this.#arrive(side, chunk));
    this.#ports[side] = port;
  }

  /** Starts a round: paced at the line rate, or carried at once (`paced` false). */
  begin(opts: { paced: boolean }): void {
    this.#byteMs = opts.paced ? (10 * 1000) / this.baud : 0;
    this.#clientFrames = new FrameSplitter();
    this.#discSent = false;
    this.#stats = emptyStats();
    this.#first = this.#last = -1;
    this.#lastTo = { client: -1, meter: -1 };
    this.#lastFrom = { client: -1, meter: -1 };
  }

  /** The client's last frame (DISC, at the end of a round) is answered and the line is empty. */
  get answered(): boolean {
    return this.#to.client.idle && this.#to.meter.idle && this.#last > this.#lastFrom.client;
  }

  /** The round's figures. */
  end(): RoundStats {
    this.#stats.elapsedMs = this.#last - this.#first;
    return this.#stats;
  }

  async close(): Promise<void> {
    for (const port of Object.values(this.#ports))
      if (port?.isOpen) await new Promise<void>((r) => port.close(() => r()));
  }

  #arrive(from: Side, chunk: Uint8Array): void {
    const now = performance.now();
    this.#stats.bytes[from] += chunk.length;
    if (from === 'client' && this.#first < 0) this.#first = now;
    // A side's reaction: from the last byte it received to the first byte of its answer.
    if (this.#lastTo[from] > this.#lastFrom[from]) this.#stats.reactionMs[from] += now - this.#lastTo[from];
    this.#lastFrom[from] = now;
    if (from === 'client')
      for (const p of this.#clientFrames.push(chunk))
        if (p.kind === 'frame' && p.frame.control.type === 'DISC') this.#discSent = true;
    this.#to[from === 'client' ? 'meter' : 'client'].push(chunk, now);
  }

  #deliver(to: Side, chunk: Uint8Array, atMs: number): void {
    this.#lastTo[to] = atMs;
    if (to === 'client') this.#last = atMs;
    if (to === 'client' && this.#discSent) return; // the UA to DISC: its client has gone
    this.#ports[to]?.write(Buffer.from(chunk));
  }
}

function emptyStats(): RoundStats {
  return {
    bytes: { client: 0, meter: 0 },
    elapsedMs: 0,
    reactionMs: { client: 0, meter: 0 },
    lateMs: 0,
    maxLateMs: 0,
  };
}
