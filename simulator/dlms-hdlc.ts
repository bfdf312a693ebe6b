// The DLMS meter's HDLC side on a serial port (IEC 62056-46): the port, reopened when it goes (a pty
// closed, a USB adapter unplugged), carrying the meter's HDLC link (hdlc-server-link.ts), ticked every
// second for its inactivity timeout. Never throws on input.

import { existsSync } from 'node:fs';
import { SerialPort } from 'serialport';
import type { HdlcAddress } from '../firmware-protocol/dlms/hdlc/frame.ts';
import type { Logger } from '../src/serial/link.ts';
import type { DlmsMeter } from './dlms-meter.ts';
import { type HdlcCounters, HdlcServerLink } from './hdlc-server-link.ts';

export { type HdlcCounters, QUIET_MS } from './hdlc-server-link.ts';

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

export class HdlcMeterPort {
  readonly #o: HdlcMeterOptions;
  readonly #link: HdlcServerLink;
  #port: SerialPort | null = null;
  #ticker: NodeJS.Timeout | null = null;
  #reopen: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(o: HdlcMeterOptions) {
    if (!o.path) throw new TypeError('HdlcMeterPort: path is required');
    if (!Number.isInteger(o.baud) || o.baud <= 0)
      throw new TypeError(`HdlcMeterPort: baud must be a positive integer, got ${o.baud}`);
    this.#o = o;
    this.#link = new HdlcServerLink({
      meter: o.meter,
      address: o.address,
      log: o.log,
      now: o.now,
      ...(o.inactivityTimeoutMs === undefined ? {} : { inactivityTimeoutMs: o.inactivityTimeoutMs }),
      write: (bytes) => this.#port?.write(Buffer.from(bytes)),
    });
  }

  get counters(): HdlcCounters {
    return this.#link.counters;
  }

  start(): void {
    this.#open();
    this.#ticker = setInterval(() => this.#link.tick(), TICK_MS);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#link.close();
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
    port.on('data', (chunk: Buffer) => this.#link.push(chunk));
    port.on('error', (err) => log('warn', `dlms serial ${path}: ${err.message}`));
    port.on('close', () => {
      if (this.#port !== port) return;
      this.#port = null;
      this.#link.reset();
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
}
