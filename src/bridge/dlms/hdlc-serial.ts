// [CL-10.1] DLMS over HDLC on a serial port (optical probe or RS-485): the serial port, FrameSplitter
// (flushed after 25 ms of silence, HD-8.3) and the HDLC client link machine (hdlc/client.ts). SNRM is
// repeated until UA comes, or the open fails.

import { SerialPort } from 'serialport';
import {
  type ClientConfig,
  type ClientEvent,
  type ClientState,
  clientStep,
  INITIAL_CLIENT,
} from '../../../firmware-protocol/dlms/hdlc/client.ts';
import { encodeFrame, type HdlcAddress } from '../../../firmware-protocol/dlms/hdlc/frame.ts';
import { FrameSplitter } from '../../../firmware-protocol/dlms/hdlc/splitter.ts';
import { type BaudChar, MODE_C_BAUDS } from '../../../firmware-protocol/iec62056-21/chars.ts';
import { QuietTimer } from '../../serial/quiet-timer.ts';
import { signOnModeE } from './mode-e-sign-on.ts';
import type { ApduTransport, TransportEvents } from './transport.ts';

/** [HD-8.3] The line is quiet this long: a partial frame is never finished. */
export const FLUSH_AFTER_MS = 25;
/** [CL-10.1] SNRM sent at most this many times, each waiting `snrmWaitMs` for its UA. */
const SNRM_TRIES = 3;

export interface HdlcSerialOptions {
  path: string;
  baud: number;
  client: number;
  server: HdlcAddress;
  snrmWaitMs?: number;
  /**
   * [IEC-10.6] An optical port in IEC 62056-21 mode E: sign on at 300 Bd 7E1 before each association and
   * run HDLC at the rate agreed (the slower of the meter's offer and `baud`).
   */
  modeE?: boolean;
}

/** [IEC-10.3] The fastest mode E rate not above `baud` (9600 Bd at most unless asked). */
function baudCharFor(baud: number): BaudChar {
  const chars = (Object.keys(MODE_C_BAUDS) as BaudChar[]).filter((c) => MODE_C_BAUDS[c] <= baud);
  return chars[chars.length - 1] ?? '0';
}

export class HdlcSerialTransport implements ApduTransport {
  readonly where: string;
  readonly retries = 2;
  readonly #opts: HdlcSerialOptions;
  readonly #config: ClientConfig;
  readonly #splitter = new FrameSplitter();
  #state: ClientState = INITIAL_CLIENT;
  #port: SerialPort | null = null;
  #events: TransportEvents | null = null;
  /** [HD-8.3] A partial frame is flushed once the line has been quiet (a late timer waits once more). */
  readonly #flushTimer = new QuietTimer(FLUSH_AFTER_MS, () => {
    const noise = this.#splitter.noiseBytes;
    for (const piece of this.#splitter.flush()) this.#piece(piece);
    this.#noise(noise);
  });
  #connected: (() => void) | null = null;
  #closed = false;

  constructor(opts: HdlcSerialOptions) {
    this.#opts = opts;
    this.where = opts.path;
    this.#config = { client: opts.client, server: opts.server, propose: {}, maxMessageBytes: 1 << 20 };
  }

  async open(events: TransportEvents): Promise<void> {
    this.#events = events;
    const baudRate = this.#opts.modeE
      ? await signOnModeE({ path: this.#opts.path, maxBaudChar: baudCharFor(this.#opts.baud) })
      : this.#opts.baud;
    const port = new SerialPort({ path: this.#opts.path, baudRate, autoOpen: false });
    this.#port = port;
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    port.on('data', (chunk: Buffer) => this.#onData(chunk));
    port.on('close', () => this.#gone('serial port closed'));
    port.on('error', (err) => this.#gone(`serial port error: ${err.message}`));
    const wait = this.#opts.snrmWaitMs ?? 1_000;
    for (let i = 0; i < SNRM_TRIES && !this.#closed; i++) {
      const up = new Promise<boolean>((resolve) => {
        this.#connected = () => resolve(true);
        setTimeout(() => resolve(false), wait).unref();
      });
      this.#step({ kind: 'connect' });
      if (await up) return;
    }
    await this.close();
    throw new Error(`no UA to SNRM on ${this.where} after ${SNRM_TRIES} tries [CL-10.1]`);
  }

  send(apdu: Uint8Array): void {
    this.#step({ kind: 'request', apdu });
  }

  repeat(): void {
    this.#step({ kind: 'retry' });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    const port = this.#port;
    if (port?.isOpen && this.#state.mode === 'NRM') {
      // [HD-11] DISC on the way out, so the meter frees its link at once, not at its inactivity timeout.
      this.#step({ kind: 'disconnect' });
      await new Promise<void>((r) => port.drain(() => r()));
    }
    this.#closed = true;
    this.#flushTimer.clear();
    if (port?.isOpen) await new Promise<void>((r) => port.close(() => r()));
  }

  #gone(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#flushTimer.clear();
    this.#events?.onClosed(reason);
  }

  #onData(chunk: Buffer): void {
    const noise = this.#splitter.noiseBytes;
    for (const piece of this.#splitter.push(chunk)) this.#piece(piece);
    this.#noise(noise);
    if (this.#splitter.partial > 0) this.#flushTimer.arm();
    else this.#flushTimer.clear();
  }

  /** [HD-8.2] Bytes outside any frame since `before`: one report per chunk, not per byte. */
  #noise(before: number): void {
    const n = this.#splitter.noiseBytes - before;
    if (n > 0) this.#events?.onBad('HD-8.2', `${n} bytes of noise outside any frame`);
  }

  #piece(piece: ReturnType<FrameSplitter['push']>[number]): void {
    if (piece.kind === 'bad') {
      this.#events?.onBad(piece.error.rule, `bad frame: ${piece.error.message}`);
      return;
    }
    this.#step({ kind: 'frame', frame: piece.frame });
  }

  #step(event: ClientEvent): void {
    const r = clientStep(this.#config, this.#state, event);
    this.#state = r.state;
    for (const e of r.effects) {
      switch (e.kind) {
        case 'send':
          if (this.#port?.isOpen) this.#port.write(Buffer.from(encodeFrame(e.frame)));
          break;
        case 'connected':
          this.#connected?.();
          this.#connected = null;
          break;
        case 'response':
          this.#events?.onApdu(e.apdu);
          break;
        case 'disconnected':
          if (e.reason !== 'ua') this.#gone(`the meter ended the HDLC link (${e.reason.toUpperCase()})`);
          break;
        case 'refused':
          this.#events?.onBad(e.rule, e.reason);
          break;
      }
    }
  }
}
