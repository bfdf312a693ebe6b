// One serial port that stays open: opens `path`, cuts what arrives into lines [SP-2.1, SP-2.2], and when
// the port closes or vanishes (USB unplug, pty gone) polls for the path to reappear and reopens it, with
// backoff only while an existing path fails to open. Never gives up and never throws after start().
// Used by the bridge and by the serial meter alike.

import { existsSync } from 'node:fs';
import { SerialPort } from 'serialport';
import { LineSplitter } from '../../firmware-protocol/serial/splitter.ts';

/** [SP-2.9] An unfinished line is dropped after this long without a byte. */
export const PARTIAL_LINE_MS = 2_000;

/** A line's level and text; `debug` lines show with `--log-level debug` (`--verbose`). */
export type Logger = (level: 'debug' | 'info' | 'warn' | 'error', msg: string) => void;

export interface SerialLinkOptions {
  path: string;
  baud: number;
  log: Logger;
  onLine: (line: string) => void;
  /** A line longer than the protocol allows was dropped [SP-2.2]. */
  onOversize: (bytes: number) => void;
  onOpen: () => void;
  onClose: (reason: string) => void;
  /** How often to look for a missing path; default 100 ms, so a replugged port is back well within 2 s. */
  pollMs?: number;
  /** Backoff bounds for a path that exists but will not open. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** [SP-2.9] Silence after which an unfinished line is dropped. */
  partialLineMs?: number;
}

export class SerialLink {
  readonly #opts: Required<SerialLinkOptions>;
  #port: SerialPort | null = null;
  #timer: NodeJS.Timeout | null = null;
  #partialTimer: NodeJS.Timeout | null = null;
  #backoff: number;
  #closed = false;
  #missingLogged = false;

  constructor(opts: SerialLinkOptions) {
    if (typeof opts.path !== 'string' || opts.path === '')
      throw new TypeError('SerialLink: path is required');
    if (!Number.isInteger(opts.baud) || opts.baud <= 0) {
      throw new TypeError(`SerialLink: baud must be a positive integer, got ${opts.baud}`);
    }
    this.#opts = {
      pollMs: 100,
      minBackoffMs: 100,
      maxBackoffMs: 2_000,
      partialLineMs: PARTIAL_LINE_MS,
      ...opts,
    };
    this.#backoff = this.#opts.minBackoffMs;
  }

  get isOpen(): boolean {
    return this.#port?.isOpen ?? false;
  }

  start(): void {
    this.#attempt();
  }

  /** Writes one line (the `\n` is added). False when the port is not open: the line is dropped. */
  write(line: string): boolean {
    const port = this.#port;
    if (!port?.isOpen) return false;
    port.write(`${line}\n`, 'latin1');
    return true;
  }

  /** Resolves once everything written so far has left for the device. */
  drain(): Promise<void> {
    const port = this.#port;
    if (!port?.isOpen) return Promise.resolve();
    return new Promise((resolve) => port.drain(() => resolve()));
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#partialTimer) clearTimeout(this.#partialTimer);
    const port = this.#port;
    this.#port = null;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  /** [SP-2.9] While a line is unfinished, a quiet spell of partialLineMs drops it. */
  #watchPartial(splitter: LineSplitter): void {
    if (this.#partialTimer) clearTimeout(this.#partialTimer);
    this.#partialTimer = null;
    if (splitter.partial === 0) return;
    this.#partialTimer = setTimeout(() => {
      this.#partialTimer = null;
      const bytes = splitter.discard();
      this.#opts.log(
        'warn',
        `serial ${this.#opts.path}: dropped an unfinished line of ${bytes} bytes, ` +
          `no byte for ${this.#opts.partialLineMs} ms [SP-2.9]`,
      );
    }, this.#opts.partialLineMs);
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => this.#attempt(), ms);
  }

  #attempt(): void {
    this.#timer = null;
    if (this.#closed) return;
    const { path, baud, log } = this.#opts;
    if (!existsSync(path)) {
      if (!this.#missingLogged) log('warn', `serial ${path}: not present; waiting for it to appear`);
      this.#missingLogged = true;
      this.#backoff = this.#opts.minBackoffMs;
      this.#schedule(this.#opts.pollMs);
      return;
    }
    this.#missingLogged = false;
    const port = new SerialPort({
      path,
      baudRate: baud,
      dataBits: 8,
      parity: 'none',
      stopBits: 1,
      autoOpen: false,
    });
    const splitter = new LineSplitter();
    port.on('data', (chunk: Buffer) => {
      for (const piece of splitter.push(chunk)) {
        if (piece.kind === 'line') this.#opts.onLine(piece.line);
        else this.#opts.onOversize(piece.bytes);
      }
      this.#watchPartial(splitter);
    });
    port.on('error', (err) => log('warn', `serial ${path}: ${err.message}`));
    port.on('close', (err?: Error | null) => {
      if (this.#port !== port) return;
      this.#port = null;
      const reason = err ? err.message : 'closed';
      log('warn', `serial ${path}: ${reason}; reopening`);
      this.#opts.onClose(reason);
      this.#schedule(this.#opts.pollMs);
    });
    port.open((err) => {
      if (this.#closed) {
        if (!err) port.close();
        return;
      }
      if (err) {
        log('warn', `serial ${path}: open failed (${err.message}); retry in ${this.#backoff} ms`);
        this.#schedule(this.#backoff);
        this.#backoff = Math.min(this.#backoff * 2, this.#opts.maxBackoffMs);
        return;
      }
      this.#port = port;
      this.#backoff = this.#opts.minBackoffMs;
      log('info', `serial ${path}: open at ${baud} baud, 8N1`);
      this.#opts.onOpen();
    });
  }
}
