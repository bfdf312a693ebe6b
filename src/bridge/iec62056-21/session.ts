// One readout at a time over a serial port that stays open: the pure reader (firmware-protocol/
// iec62056-21/reader.ts) driven by the port's bytes and a timer, its effects (wait, send, set-baud)
// carried out in order [IEC-8, IEC-9]. Every read ends in a tagged outcome, never a throw.

import { addParity } from '../../../firmware-protocol/iec62056-21/chars.ts';
import {
  createReader,
  type Outcome,
  type Reader,
  type ReaderEffect,
  type ReaderEvent,
  type ReaderOptions,
  type ReaderState,
} from '../../../firmware-protocol/iec62056-21/reader.ts';
import { Splitter } from '../../../firmware-protocol/iec62056-21/splitter.ts';
import { BytePort } from '../../serial/byte-port.ts';
import type { Logger } from '../../serial/link.ts';

export interface IecSessionOptions extends ReaderOptions {
  path: string;
  /** [IEC-9.2] The port runs 8N1 and bit 7 carries the parity. */
  parityInBit7?: boolean;
  log: Logger;
  now: () => number;
}

export type ReadOutcome = Outcome | { ok: false; code: 'port_gone'; rule: string; message: string };

export class IecSession {
  readonly #opts: IecSessionOptions;
  readonly #reader: Reader;
  readonly #port: BytePort;
  /** The read in progress: its state, splitter and how to finish it. */
  #current: {
    state: ReaderState;
    splitter: Splitter;
    finish: (o: ReadOutcome) => void;
    effects: Promise<void>;
    timer: NodeJS.Timeout | null;
  } | null = null;
  /** The read under way: a second caller joins it rather than queueing another (the line is half duplex). */
  #inFlight: Promise<ReadOutcome> | null = null;
  /** Notes of the reader (noise, bad messages): counted for the log. */
  readonly counts = new Map<string, number>();

  constructor(opts: IecSessionOptions) {
    this.#opts = opts;
    this.#reader = createReader(opts);
    this.#port = new BytePort({
      path: opts.path,
      baud: 300,
      format: opts.parityInBit7 ? '8N1' : '7E1',
      log: opts.log,
      onData: (chunk) => this.#onData(chunk),
    });
  }

  get isOpen(): boolean {
    return this.#port.isOpen;
  }

  start(): void {
    this.#port.start();
  }

  async close(): Promise<void> {
    this.#current?.finish({ ok: false, code: 'port_gone', rule: 'IEC-9.4', message: 'bridge closing' });
    await this.#port.close();
  }

  /** One readout; a read asked for while one is under way gets that one's outcome. */
  read(): Promise<ReadOutcome> {
    if (this.#inFlight) return this.#inFlight;
    const run = this.#read().finally(() => {
      this.#inFlight = null;
    });
    this.#inFlight = run;
    return run;
  }

  #read(): Promise<ReadOutcome> {
    if (!this.#port.isOpen) {
      return Promise.resolve({
        ok: false,
        code: 'port_gone',
        rule: 'IEC-9.4',
        message: `${this.#opts.path} is not open`,
      });
    }
    return new Promise<ReadOutcome>((resolve) => {
      const started = this.#reader.start(this.#opts.now());
      const current = {
        state: started.state,
        splitter: new Splitter({ side: 'reader', parityInBit7: this.#opts.parityInBit7 ?? false }),
        finish: (o: ReadOutcome) => {
          if (this.#current !== current) return;
          this.#current = null;
          if (current.timer) clearTimeout(current.timer);
          // The port goes back to 300 Bd before the next read starts (the reader's last effects).
          void current.effects.then(() => resolve(o));
        },
        effects: Promise.resolve(),
        timer: null as NodeJS.Timeout | null,
      };
      this.#current = current;
      this.#run(started.effects);
      this.#watch();
    });
  }

  #onData(chunk: Uint8Array): void {
    const current = this.#current;
    if (current === null) return; // between reads: the tail of a readout, or noise; nothing is waiting
    const now = this.#opts.now();
    this.#step({ kind: 'heard', now });
    for (const piece of current.splitter.push(chunk, now)) {
      if (this.#current !== current) return;
      this.#step({ kind: 'piece', piece, now });
    }
    this.#watch();
  }

  #step(event: ReaderEvent): void {
    const current = this.#current;
    if (current === null) return;
    const { state, effects } = this.#reader.step(current.state, event);
    current.state = state;
    this.#run(effects);
  }

  #watch(): void {
    const current = this.#current;
    if (current === null) return;
    if (current.timer) clearTimeout(current.timer);
    const due = this.#reader.deadline(current.state);
    if (due === null) return;
    current.timer = setTimeout(
      () => {
        current.timer = null;
        this.#step({ kind: 'tick', now: this.#opts.now() });
        this.#watch();
      },
      Math.max(0, due - this.#opts.now()) + 1,
    );
  }

  #run(effects: ReaderEffect[]): void {
    const current = this.#current;
    if (current === null) return;
    for (const effect of effects) {
      switch (effect.kind) {
        case 'note':
          this.counts.set(effect.note, (this.counts.get(effect.note) ?? 0) + 1);
          this.#opts.log('debug', `iec62056-21: ${effect.note}: ${effect.detail}`);
          break;
        case 'result':
          current.finish(effect.outcome);
          break;
        default:
          current.effects = current.effects.then(() => this.#carryOut(effect));
      }
    }
  }

  async #carryOut(effect: Extract<ReaderEffect, { kind: 'wait' | 'send' | 'set-baud' }>): Promise<void> {
    switch (effect.kind) {
      case 'wait':
        await new Promise((r) => setTimeout(r, effect.ms));
        return;
      case 'send':
        // [IEC-9.1] On the wire before the next effect (a baud switch flushes what is in flight).
        await this.#port.send(this.#opts.parityInBit7 ? addParity(effect.bytes) : effect.bytes);
        return;
      case 'set-baud':
        await this.#port.setBaud(effect.baud);
        return;
    }
  }
}
