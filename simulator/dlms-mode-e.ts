// The DLMS meter's optical port with IEC 62056-21 protocol mode E [IEC-10]: the port starts at 300 Bd 7E1
// and answers the sign-on (server.ts with binaryMode: the identification offers `\2`, a mode C readout
// still works); `ACK 2 Z 2` reopens it at Z's rate 8N1 and hands it to the meter's HDLC link
// (hdlc-server-link.ts); when that link ends, or no SNRM comes, the port goes back to the sign-on.
// This file only moves bytes and carries out effects in order; the rules are the pure machines'.

import type { HdlcAddress } from '../firmware-protocol/dlms/hdlc/frame.ts';
import { type BaudChar, INITIAL_BAUD } from '../firmware-protocol/iec62056-21/chars.ts';
import {
  createServer,
  type Effect,
  type Server,
  type ServerEvent,
  type ServerState,
} from '../firmware-protocol/iec62056-21/server.ts';
import { Splitter } from '../firmware-protocol/iec62056-21/splitter.ts';
import { BytePort } from '../src/serial/byte-port.ts';
import type { Logger } from '../src/serial/link.ts';
import type { DlmsMeter } from './dlms-meter.ts';
import { HdlcServerLink } from './hdlc-server-link.ts';
import { IEC_IDENT, IEC_MANUFACTURER } from './iec-meter.ts';
import { iecReadout } from './iec-readout.ts';

/** [IEC-10.5] Back to the sign-on when no HDLC link has come up this long after the switch. */
export const NO_SNRM_MS = 5_000;
const TICK_MS = 1_000;

export interface ModeEMeterOptions {
  meter: DlmsMeter;
  path: string;
  /** [AS-8.1] The meter's HDLC server address. */
  address: HdlcAddress;
  log: Logger;
  now: () => number;
  inactivityTimeoutMs?: number;
  /** [IEC-1.4] The fastest rate offered for HDLC (and a mode C readout); default '5' (9600 Bd). */
  baudChar?: BaudChar;
  /** [IEC-1.5] Reaction time before the identification, 200..1500 ms; default 200. */
  reactionMs?: number;
}

export class ModeEMeterPort {
  readonly #o: ModeEMeterOptions;
  readonly #server: Server;
  readonly #port: BytePort;
  readonly #link: HdlcServerLink;
  #splitter = new Splitter({ side: 'meter' });
  #session: ServerState;
  #phase: 'sign-on' | 'hdlc' = 'sign-on';
  #effects: Promise<void> = Promise.resolve();
  #deadline: NodeJS.Timeout | null = null;
  #noSnrm: NodeJS.Timeout | null = null;
  #ticker: NodeJS.Timeout | null = null;
  /** [IEC-8.3] Bumped by each request answered: a queued answer to an older one is dropped, not sent. */
  #answerGen = 0;

  constructor(o: ModeEMeterOptions) {
    this.#o = o;
    this.#server = createServer({
      manufacturer: IEC_MANUFACTURER,
      ident: IEC_IDENT,
      baudChar: o.baudChar ?? '5',
      binaryMode: true,
      reactionMs: o.reactionMs ?? 200,
      readout: (now) => iecReadout(o.meter.state, now),
    });
    this.#session = this.#server.initial;
    this.#link = new HdlcServerLink({
      meter: o.meter,
      address: o.address,
      log: o.log,
      now: o.now,
      ...(o.inactivityTimeoutMs === undefined ? {} : { inactivityTimeoutMs: o.inactivityTimeoutMs }),
      write: (bytes) => this.#port.write(bytes),
      onLink: (up) => {
        if (up) this.#clearNoSnrm();
        else this.#queue(() => this.#toSignOn('the HDLC link ended'));
      },
    });
    this.#port = new BytePort({
      path: o.path,
      baud: INITIAL_BAUD,
      format: '7E1',
      log: o.log,
      onData: (chunk) => this.#onData(chunk),
      // [IEC-10.5] A port that comes back (or could not be reopened) starts with the sign-on.
      onOpen: () => this.#signOnState(),
    });
  }

  get phase(): 'sign-on' | 'hdlc' {
    return this.#phase;
  }

  start(): void {
    this.#port.start();
    this.#ticker = setInterval(() => {
      if (this.#phase === 'hdlc') this.#link.tick();
    }, TICK_MS);
  }

  async close(): Promise<void> {
    for (const t of [this.#deadline, this.#noSnrm]) if (t) clearTimeout(t);
    if (this.#ticker) clearInterval(this.#ticker);
    this.#link.close();
    await this.#effects;
    await this.#port.close();
  }

  #signOnState(): void {
    this.#phase = 'sign-on';
    this.#splitter = new Splitter({ side: 'meter' });
    this.#session = this.#server.initial;
    this.#link.reset();
    this.#clearNoSnrm();
  }

  #onData(chunk: Uint8Array): void {
    if (this.#phase === 'hdlc') {
      this.#link.push(chunk);
      return;
    }
    const now = this.#o.now();
    for (const piece of this.#splitter.push(chunk, now)) this.#step({ kind: 'piece', piece, now });
    this.#watch();
  }

  #step(event: ServerEvent): void {
    try {
      const { state, effects } = this.#server.step(this.#session, event);
      this.#session = state;
      // A flood of `/?!` would queue a reaction wait and an identification each, without bound: only the
      // newest request's are carried out, the older ones' skipped when their turn comes.
      const answers = effects.some((e) => e.kind === 'send' && e.message === 'identification');
      const gen = answers ? ++this.#answerGen : null;
      for (const e of effects) this.#effect(e, gen);
    } catch (err) {
      // [IEC-9.4] A bug must not end the meter: log it and go idle.
      this.#o.log('error', `iec62056-21: ${(err as Error).stack ?? err}`);
      this.#session = this.#server.initial;
    }
  }

  /** [IEC-5.3, IEC-4.4] A timer for the session's deadline and an unfinished message. */
  #watch(): void {
    if (this.#deadline) clearTimeout(this.#deadline);
    this.#deadline = null;
    const due = [this.#server.deadline(this.#session), this.#splitter.deadline].filter(
      (d): d is number => d !== null,
    );
    if (due.length === 0 || this.#phase !== 'sign-on') return;
    this.#deadline = setTimeout(
      () => {
        const now = this.#o.now();
        for (const piece of this.#splitter.expire(now)) this.#step({ kind: 'piece', piece, now });
        this.#step({ kind: 'tick', now });
        this.#watch();
      },
      Math.max(0, Math.min(...due) - this.#o.now()) + 1,
    );
  }

  #effect(e: Effect, gen: number | null = null): void {
    const stale = () => gen !== null && gen !== this.#answerGen;
    switch (e.kind) {
      case 'note': {
        const level =
          e.note === 'readout' || e.note === 'identified' || e.note === 'binary' ? 'debug' : 'info';
        this.#o.log(level, `iec62056-21: ${e.note}${e.detail ? `: ${e.detail}` : ''}`);
        return;
      }
      case 'wait':
        this.#queue(() => (stale() ? Promise.resolve() : new Promise((r) => setTimeout(r, e.ms))));
        return;
      case 'send':
        this.#queue(async () => {
          if (!stale()) await this.#port.send(e.bytes);
        });
        return;
      case 'set-baud':
        this.#queue(async () => {
          await this.#port.setBaud(e.baud);
        });
        return;
      case 'binary':
        this.#queue(() => this.#toHdlc(e.baud));
        return;
    }
  }

  /** [IEC-10.4] Reopened at Z's rate 8N1; the HDLC link starts afresh and has NO_SNRM_MS to come up. */
  async #toHdlc(baud: number): Promise<void> {
    if (this.#deadline) clearTimeout(this.#deadline);
    this.#link.reset();
    this.#phase = 'hdlc';
    if (!(await this.#port.reformat(baud, '8N1'))) return; // back at the sign-on via onOpen
    this.#o.log('info', `iec62056-21: mode E: HDLC at ${baud} Bd, 8N1 [IEC-10.4]`);
    this.#clearNoSnrm();
    this.#noSnrm = setTimeout(() => {
      this.#noSnrm = null;
      this.#queue(() => this.#toSignOn(`no SNRM within ${NO_SNRM_MS} ms`));
    }, NO_SNRM_MS);
  }

  /** [IEC-10.5] Back to 300 Bd 7E1 and the sign-on, once what the link sent last is on the wire. */
  async #toSignOn(why: string): Promise<void> {
    if (this.#phase !== 'hdlc') return;
    await this.#port.drain();
    await new Promise((r) => setTimeout(r, 50)); // a pty drains at once; the UA to a DISC must leave first
    this.#signOnState();
    this.#o.log('info', `iec62056-21: back to the sign-on at 300 Bd (${why}) [IEC-10.5]`);
    await this.#port.reformat(INITIAL_BAUD, '7E1');
  }

  #clearNoSnrm(): void {
    if (this.#noSnrm) clearTimeout(this.#noSnrm);
    this.#noSnrm = null;
  }

  #queue(run: () => Promise<unknown>): void {
    this.#effects = this.#effects.then(run).then(
      () => undefined,
      (err: unknown) => this.#o.log('warn', `iec62056-21: ${(err as Error).message}`),
    );
  }
}
