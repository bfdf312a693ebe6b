// The DLMS meter's HDLC side on a serial port (IEC 62056-46): bytes from the port cut into frames
// (FrameSplitter, flushed after a quiet spell), the server's link state machine (hdlc/link.ts) ticked for
// its inactivity timeout, whole APDUs handed to the meter's application server, one session per link.
// The port reopens itself when it goes (a pty closed, a USB adapter unplugged). Never throws on input.

import { existsSync } from 'node:fs';
import { SerialPort } from 'serialport';
import { encodeFrame, type HdlcAddress } from '../firmware-protocol/dlms/hdlc/frame.ts';
import {
  DEFAULT_LINK_CONFIG,
  INITIAL_LINK,
  type LinkConfig,
  type LinkEffect,
  type LinkEvent,
  type LinkState,
  step,
} from '../firmware-protocol/dlms/hdlc/link.ts';
import { FrameSplitter, type SplitPiece } from '../firmware-protocol/dlms/hdlc/splitter.ts';
import { NEW_SESSION, type Session } from '../firmware-protocol/dlms/server/server.ts';
import type { Logger } from '../src/serial/link.ts';
import { QuietTimer } from '../src/serial/quiet-timer.ts';
import type { DlmsMeter } from './dlms-meter.ts';

/** [AS-8.2] Silence after which bytes held by the splitter are given up (an inter-character timeout). */
export const QUIET_MS = 25;
const TICK_MS = 1_000;
const REOPEN_MS = 100;

export interface HdlcMeterOptions {
  meter: DlmsMeter;
  path: string;
  baud: number;
  /** [AS-8.1] This meter's server address. */
  address: HdlcAddress;
  log: Logger;
  inactivityTimeoutMs?: number;
  now: () => number;
}

/** Counters of what the line brought that was not served, for the log and tests. */
export interface HdlcCounters {
  badFrames: number;
  dropped: number;
  noiseBytes: number;
}

export class HdlcMeterPort {
  readonly #o: HdlcMeterOptions;
  readonly #config: LinkConfig;
  #link: LinkState = INITIAL_LINK;
  #session: Session = NEW_SESSION;
  #splitter = new FrameSplitter();
  #port: SerialPort | null = null;
  /** [AS-8.2] Measured only while the process was awake to hear the line (a late timer waits once more). */
  readonly #quiet = new QuietTimer(QUIET_MS, () => this.#pieces(this.#splitter.flush()));
  #ticker: NodeJS.Timeout | null = null;
  #reopen: NodeJS.Timeout | null = null;
  #closed = false;
  readonly counters: HdlcCounters = { badFrames: 0, dropped: 0, noiseBytes: 0 };

  constructor(o: HdlcMeterOptions) {
    if (!o.path) throw new TypeError('HdlcMeterPort: path is required');
    if (!Number.isInteger(o.baud) || o.baud <= 0)
      throw new TypeError(`HdlcMeterPort: baud must be a positive integer, got ${o.baud}`);
    this.#o = o;
    this.#config = {
      ...DEFAULT_LINK_CONFIG,
      address: o.address,
      inactivityTimeoutMs: o.inactivityTimeoutMs ?? DEFAULT_LINK_CONFIG.inactivityTimeoutMs,
    };
  }

  start(): void {
    this.#open();
    this.#ticker = setInterval(() => this.#event({ kind: 'tick', atMs: this.#o.now() }), TICK_MS);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#quiet.clear();
    if (this.#reopen) clearTimeout(this.#reopen);
    if (this.#ticker) clearInterval(this.#ticker);
    const port = this.#port;
    this.#port = null;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  #open(): void {
    this.#reopen = null;
    if (this.#closed) return;
    const { path, baud, log } = this.#o;
    if (!existsSync(path)) {
      this.#reopen = setTimeout(() => this.#open(), REOPEN_MS);
      return;
    }
    const port = new SerialPort({
      path,
      baudRate: baud,
      dataBits: 8,
      parity: 'none',
      stopBits: 1,
      autoOpen: false,
    });
    port.on('data', (chunk: Buffer) => this.#bytes(chunk));
    port.on('error', (err) => log('warn', `dlms serial ${path}: ${err.message}`));
    port.on('close', () => {
      if (this.#port !== port) return;
      this.#port = null;
      this.#splitter.discard();
      log('warn', `dlms serial ${path}: closed; reopening`);
      if (!this.#closed) this.#reopen = setTimeout(() => this.#open(), REOPEN_MS);
    });
    port.open((err) => {
      if (this.#closed) {
        if (!err) port.close();
        return;
      }
      if (err) {
        log('warn', `dlms serial ${path}: open failed (${err.message})`);
        this.#reopen = setTimeout(() => this.#open(), REOPEN_MS * 10);
        return;
      }
      this.#port = port;
      log('info', `dlms serial ${path}: open at ${baud} baud, 8N1, HDLC`);
    });
  }

  #bytes(chunk: Uint8Array): void {
    this.#pieces(this.#splitter.push(chunk));
    // [AS-8.2, HD-8.3] After a quiet spell, nothing held waits any longer for bytes that will not come.
    if (this.#splitter.partial > 0) this.#quiet.arm();
    else this.#quiet.clear();
  }

  #pieces(pieces: SplitPiece[]): void {
    this.counters.noiseBytes = this.#splitter.noiseBytes;
    for (const p of pieces) {
      if (p.kind === 'frame') this.#event({ kind: 'frame', frame: p.frame, atMs: this.#o.now() });
      else {
        this.counters.badFrames++; // [AS-8.3] counted and logged, never answered
        this.#o.log('debug', `dlms: bad frame dropped: ${p.error.code} [${p.error.rule}] ${p.error.message}`);
      }
    }
  }

  #event(event: LinkEvent): void {
    const r = step(this.#config, this.#link, event);
    this.#link = r.state;
    for (const e of r.effects) this.#effect(e);
  }

  #effect(e: LinkEffect): void {
    switch (e.kind) {
      case 'send':
        this.#port?.write(Buffer.from(encodeFrame(e.frame)));
        return;
      case 'connected': // [AS-8.4] a new link starts with no association
      case 'disconnected':
        this.#session = NEW_SESSION;
        this.#o.log(
          'debug',
          `dlms: link ${e.kind === 'connected' ? `up with client ${e.client}` : `down (${e.reason})`}`,
        );
        return;
      case 'dropped':
        this.counters.dropped++;
        this.#o.log('debug', `dlms: frame dropped [${e.rule}] ${e.reason}`);
        return;
      case 'deliver': {
        const client = this.#link.client ?? 0;
        const h = this.#o.meter.handle(this.#session, client, e.apdu);
        this.#session = h.session;
        this.#event({ kind: 'respond', apdu: h.apdu, atMs: this.#o.now() });
        return;
      }
    }
  }
}
