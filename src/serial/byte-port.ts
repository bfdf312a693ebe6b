// One serial port that stays open, for byte protocols (IEC 62056-21): opens `path` with the character
// format asked for, hands every chunk to `onData` with no framing, changes the baud rate on request, and
// when the port closes or vanishes (USB unplug, pty gone) polls for the path and reopens it. Never throws
// after start(); a write while the port is away is dropped and reported false.

import { existsSync } from 'node:fs';
import { SerialPort } from 'serialport';
import type { Logger } from './link.ts';

export interface BytePortOptions {
  path: string;
  baud: number;
  /** 7 data bits and even parity (IEC 62056-21's 7E1), or 8N1. A pty ignores both. */
  format: '7E1' | '8N1';
  log: Logger;
  onData: (chunk: Uint8Array) => void;
  /** Called after each (re)open; the port is at `baud` again then. */
  onOpen?: () => void;
  onClose?: (reason: string) => void;
  /** How often to look for a missing path or retry a failed open; default 100 ms. */
  pollMs?: number;
}

export class BytePort {
  readonly #opts: BytePortOptions;
  #port: SerialPort | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #missingLogged = false;
  #failLogged = '';
  #baud: number;

  constructor(opts: BytePortOptions) {
    if (typeof opts.path !== 'string' || opts.path === '') throw new TypeError('BytePort: path is required');
    if (!Number.isInteger(opts.baud) || opts.baud <= 0) {
      throw new TypeError(`BytePort: baud must be a positive integer, got ${opts.baud}`);
    }
    this.#opts = opts;
    this.#baud = opts.baud;
  }

  /** The rate the port is at now. */
  get baud(): number {
    return this.#baud;
  }

  get isOpen(): boolean {
    return this.#port?.isOpen ?? false;
  }

  start(): void {
    this.#attempt();
  }

  /** Writes bytes; false (nothing written) when the port is not open. */
  write(bytes: Uint8Array): boolean {
    const port = this.#port;
    if (!port?.isOpen) return false;
    port.write(Buffer.from(bytes));
    return true;
  }

  /** Resolves once everything written so far has left for the device (at once when not open). */
  drain(): Promise<void> {
    const port = this.#port;
    if (!port?.isOpen) return Promise.resolve();
    return new Promise((resolve) => port.drain(() => resolve()));
  }

  /**
   * Writes bytes and resolves once they are on the wire: drained, and at least their wire time (10 bits a
   * character at the current rate) after the write began. A pty drains at once, and a baud switch right
   * after would flush what the other end has not read yet; a real UART has then taken that long anyway.
   * False (nothing written) when the port is not open.
   */
  async send(bytes: Uint8Array): Promise<boolean> {
    const began = Date.now();
    if (!this.write(bytes)) return false;
    await this.drain();
    const left = (bytes.length * 10 * 1000) / this.#baud - (Date.now() - began);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    return true;
  }

  /**
   * Switches the rate; resolves false when the port is not open or the driver refused. The driver
   * flushes both directions (serialport's update), as a UART's switch loses what is in flight.
   */
  setBaud(baud: number): Promise<boolean> {
    const port = this.#port;
    if (!port?.isOpen) return Promise.resolve(false);
    return new Promise((resolve) =>
      port.update({ baudRate: baud }, (err) => {
        if (!err) this.#baud = baud;
        if (err)
          this.#opts.log('warn', `serial ${this.#opts.path}: cannot switch to ${baud} Bd: ${err.message}`);
        resolve(!err);
      }),
    );
  }

  /**
   * Reopens the port at another rate and character format (IEC 62056-21 mode E: from 300 Bd 7E1 to HDLC's
   * 8N1, IEC-10.4): a UART's format is set when the port opens, so the port is closed and opened again.
   * Resolves true once open at the new settings; false when it could not (the port then comes back at
   * its first settings, as after an unplug, and onOpen says so).
   */
  async reformat(baud: number, format: '7E1' | '8N1'): Promise<boolean> {
    const old = this.#port;
    this.#port = null; // its 'close' is ours, not a line gone
    if (old?.isOpen) await new Promise<void>((resolve) => old.close(() => resolve()));
    if (this.#closed) return false;
    return new Promise((resolve) => this.#openAt(baud, format, resolve));
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const port = this.#port;
    this.#port = null;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => this.#attempt(), this.#opts.pollMs ?? 100);
  }

  #attempt(): void {
    this.#timer = null;
    if (this.#closed) return;
    this.#openAt(this.#opts.baud, this.#opts.format, (ok) => {
      if (ok) this.#opts.onOpen?.();
    });
  }

  /** Opens at these settings; `done(false)` after a failure, which also schedules a retry at the first ones. */
  #openAt(baud: number, format: '7E1' | '8N1', done: (ok: boolean) => void): void {
    const { path, log } = this.#opts;
    if (!existsSync(path)) {
      if (!this.#missingLogged) log('warn', `serial ${path}: not present; waiting for it to appear`);
      this.#missingLogged = true;
      this.#schedule();
      done(false);
      return;
    }
    this.#missingLogged = false;
    const port = new SerialPort({
      path,
      baudRate: baud,
      dataBits: format === '7E1' ? 7 : 8,
      parity: format === '7E1' ? 'even' : 'none',
      stopBits: 1,
      autoOpen: false,
    });
    port.on('data', (chunk: Buffer) => this.#opts.onData(new Uint8Array(chunk)));
    port.on('error', (err) => log('warn', `serial ${path}: ${err.message}`));
    port.on('close', (err?: Error | null) => {
      if (this.#port !== port) return;
      this.#port = null;
      const reason = err ? err.message : 'closed';
      log('warn', `serial ${path}: ${reason}; reopening`);
      this.#opts.onClose?.(reason);
      this.#schedule();
    });
    port.open((err) => {
      if (this.#closed) {
        if (!err) port.close();
        done(false);
        return;
      }
      if (err) {
        // Logged once per kind of failure, not every 100 ms.
        if (err.message !== this.#failLogged) log('warn', `serial ${path}: open failed (${err.message})`);
        this.#failLogged = err.message;
        this.#schedule();
        done(false);
        return;
      }
      this.#failLogged = '';
      this.#port = port;
      this.#baud = baud;
      log('info', `serial ${path}: open at ${baud} Bd, ${format}`);
      done(true);
    });
  }
}
