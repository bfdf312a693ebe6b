// A virtual meter on an IEC 62056-21 optical port (`meterstack meter --protocol iec62056-21`): the pure
// meter (./meter) on a real clock, its readout (./iec-readout.ts) served by the pure mode C machine
// (firmware-protocol/iec62056-21/server.ts) over a serial port. This file only moves bytes in and carries
// out the machine's effects (wait, send, switch baud) in order [IEC-5, IEC-9]. Rule numbers refer to
// firmware-protocol/iec62056-21/PROTOCOL.md.

import { addParity, type BaudChar, INITIAL_BAUD } from '../firmware-protocol/iec62056-21/chars.ts';
import {
  createServer,
  type Effect,
  type Note,
  type Server,
  type ServerState,
} from '../firmware-protocol/iec62056-21/server.ts';
import { Splitter } from '../firmware-protocol/iec62056-21/splitter.ts';
import { BytePort } from '../src/serial/byte-port.ts';
import type { Logger } from '../src/serial/link.ts';
import { iecReadout } from './iec-readout.ts';
import { step } from './meter/index.ts';
import type { MeterState } from './meter/types.ts';

/** [IEC-2.2] Our manufacturer letters and identification (upper-case third letter: no 20 ms promise). */
export const IEC_MANUFACTURER = 'MST';
export const IEC_IDENT = 'meterstack';

export interface IecMeterOptions {
  state: MeterState;
  serial: string;
  now: () => number;
  log: Logger;
  /** [IEC-1.4] The fastest rate offered; default '5' (9600 Bd). */
  baudChar?: BaudChar;
  /** [IEC-5.1] The meter's device address; default '' (answers `/?!` only). */
  address?: string;
  /** [IEC-9.2] The port runs 8N1 and bit 7 carries the parity (a USB adapter without 7E1). */
  parityInBit7?: boolean;
  /** [IEC-1.5] Reaction time, 200..1500 ms; default DEFAULT_REACTION_MS. */
  reactionMs?: number;
}

/**
 * [IEC-9.1] Our virtual meter's reaction time: 500 ms, inside IEC-1.5's 200..1500, so a reader that switches
 * its rate a little late after its option select (smartmeter-obis: 250 ms after its write drained) is at the
 * new rate before the readout starts.
 */
export const DEFAULT_REACTION_MS = 500;

/** How often the meter's registers are brought up to now when nobody reads them (its own work). */
const ADVANCE_MS = 60_000;

export class IecMeter {
  #state: MeterState;
  readonly #opts: IecMeterOptions;
  readonly #server: Server;
  readonly #port: BytePort;
  #splitter: Splitter;
  #session: ServerState;
  /** Effects run one after another: a reaction time, then the bytes, then a baud switch. */
  #effects: Promise<void> = Promise.resolve();
  #deadline: NodeJS.Timeout | null = null;
  #advance: NodeJS.Timeout | null = null;
  readonly #counts = new Map<Note, number>();

  constructor(opts: IecMeterOptions) {
    this.#opts = opts;
    this.#state = opts.state;
    this.#server = createServer({
      manufacturer: IEC_MANUFACTURER,
      ident: IEC_IDENT,
      baudChar: opts.baudChar ?? '5',
      address: opts.address ?? '',
      reactionMs: opts.reactionMs ?? DEFAULT_REACTION_MS,
      readout: (now) => {
        this.#advanceTo(now);
        return iecReadout(this.#state, now);
      },
    });
    this.#session = this.#server.initial;
    this.#splitter = this.#newSplitter();
    this.#port = new BytePort({
      path: opts.serial,
      baud: INITIAL_BAUD,
      // [IEC-9.2] 7E1 on a real UART; with parityInBit7 the UART runs 8N1 and we carry the parity.
      format: opts.parityInBit7 ? '8N1' : '7E1',
      log: opts.log,
      onData: (chunk) => this.#onData(chunk),
      // [IEC-9.3] A port that comes back starts a fresh session at 300 Bd.
      onOpen: () => this.#reset(),
    });
  }

  get state(): MeterState {
    return this.#state;
  }

  /** How many times each note came (noise, bad messages, readouts...): the meter's counters. */
  get counts(): ReadonlyMap<Note, number> {
    return this.#counts;
  }

  start(): void {
    this.#port.start();
    this.#advance = setInterval(() => this.#advanceTo(this.#opts.now()), ADVANCE_MS);
  }

  async stop(): Promise<void> {
    if (this.#deadline) clearTimeout(this.#deadline);
    if (this.#advance) clearInterval(this.#advance);
    await this.#effects;
    await this.#port.close();
  }

  /** Integrates the meter up to `now`; its telemetry has nowhere to go on an optical port. */
  #advanceTo(now: number): void {
    this.#state = step(this.#state, { type: 'advance' }, now).state;
  }

  #newSplitter(): Splitter {
    return new Splitter({ side: 'meter', parityInBit7: this.#opts.parityInBit7 ?? false });
  }

  #reset(): void {
    this.#splitter = this.#newSplitter();
    this.#session = this.#server.initial;
  }

  #onData(chunk: Uint8Array): void {
    const now = this.#opts.now();
    for (const piece of this.#splitter.push(chunk, now)) this.#step({ kind: 'piece', piece, now });
    this.#watch();
  }

  #step(event: Parameters<Server['step']>[1]): void {
    try {
      const { state, effects } = this.#server.step(this.#session, event);
      this.#session = state;
      for (const effect of effects) this.#queue(effect);
    } catch (err) {
      // [IEC-9.4] A bug must not end the meter: log it and go idle.
      this.#opts.log('error', `iec62056-21: ${(err as Error).stack ?? err}`);
      this.#session = this.#server.initial;
    }
  }

  /** A timer for the session's deadline [IEC-5.3] and for an unfinished message [IEC-4.4]. */
  #watch(): void {
    if (this.#deadline) clearTimeout(this.#deadline);
    this.#deadline = null;
    const due = [this.#server.deadline(this.#session), this.#splitter.deadline].filter(
      (d): d is number => d !== null,
    );
    if (due.length === 0) return;
    const wait = Math.max(0, Math.min(...due) - this.#opts.now()) + 1;
    this.#deadline = setTimeout(() => {
      const now = this.#opts.now();
      for (const piece of this.#splitter.expire(now)) this.#step({ kind: 'piece', piece, now });
      this.#step({ kind: 'tick', now });
      this.#watch();
    }, wait);
  }

  #queue(effect: Effect): void {
    if (effect.kind === 'note') {
      this.#note(effect.note, effect.detail);
      return;
    }
    this.#effects = this.#effects
      .then(() => this.#run(effect))
      .catch((err: unknown) => {
        this.#opts.log('warn', `iec62056-21: ${effect.kind} failed: ${(err as Error).message}`);
      });
  }

  async #run(effect: Exclude<Effect, { kind: 'note' }>): Promise<void> {
    switch (effect.kind) {
      case 'wait':
        await new Promise((r) => setTimeout(r, effect.ms));
        return;
      case 'send': {
        // [IEC-9.2] 7-bit characters; the parity bit added here only where the UART runs 8N1.
        const bytes = this.#opts.parityInBit7 ? addParity(effect.bytes) : effect.bytes;
        // [IEC-9.1] On the wire before the next effect (a baud switch flushes what is in flight).
        if (!(await this.#port.send(bytes))) {
          this.#opts.log('debug', `iec62056-21: ${effect.message} not sent: the port is not open`);
          return;
        }
        this.#opts.log('debug', `iec62056-21: sent ${effect.message} (${bytes.length} bytes)`);
        return;
      }
      case 'set-baud':
        await this.#port.setBaud(effect.baud);
        return;
      case 'binary': // [IEC-10] never offered by this mode C meter (no binaryMode), so never selected
        return;
    }
  }

  #note(note: Note, detail: string): void {
    this.#counts.set(note, (this.#counts.get(note) ?? 0) + 1);
    // [IEC-5.6] Refusals, drops and bad messages are logged; a readout is the meter's normal work.
    const level = note === 'readout' || note === 'identified' ? 'debug' : 'info';
    this.#opts.log(level, `iec62056-21: ${note}${detail ? `: ${detail}` : ''}`);
  }
}
