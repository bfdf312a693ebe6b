// The DLMS meter's HDLC link, apart from the port that carries it: bytes cut into frames (FrameSplitter,
// flushed after a quiet spell), the server's link state machine (hdlc/link.ts) ticked for its inactivity
// timeout, whole APDUs handed to the meter's application server, one session per link. Used on a plain
// serial port (dlms-hdlc.ts) and after the optical port's mode E sign-on (dlms-mode-e.ts). Never throws on
// input.

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

export interface HdlcServerLinkOptions {
  meter: DlmsMeter;
  /** [AS-8.1] This meter's server address. */
  address: HdlcAddress;
  log: Logger;
  inactivityTimeoutMs?: number;
  now: () => number;
  /** Bytes for the line. */
  write: (bytes: Uint8Array) => void;
  /** [AS-8.4] The link came up (SNRM answered) or went down (DISC, inactivity timeout). */
  onLink?: (up: boolean) => void;
}

/** Counters of what the line brought that was not served, for the log and tests. */
export interface HdlcCounters {
  badFrames: number;
  dropped: number;
  noiseBytes: number;
}

export class HdlcServerLink {
  readonly #o: HdlcServerLinkOptions;
  readonly #config: LinkConfig;
  #link: LinkState = INITIAL_LINK;
  #session: Session = NEW_SESSION;
  #splitter = new FrameSplitter();
  /** [AS-8.2] Measured only while the process was awake to hear the line (a late timer waits once more). */
  readonly #quiet = new QuietTimer(QUIET_MS, () => this.#pieces(this.#splitter.flush()));
  readonly counters: HdlcCounters = { badFrames: 0, dropped: 0, noiseBytes: 0 };

  constructor(o: HdlcServerLinkOptions) {
    this.#o = o;
    this.#config = {
      ...DEFAULT_LINK_CONFIG,
      address: o.address,
      inactivityTimeoutMs: o.inactivityTimeoutMs ?? DEFAULT_LINK_CONFIG.inactivityTimeoutMs,
    };
  }

  /** Bytes from the line. */
  push(chunk: Uint8Array): void {
    this.#pieces(this.#splitter.push(chunk));
    // [AS-8.2, HD-8.3] After a quiet spell, nothing held waits any longer for bytes that will not come.
    if (this.#splitter.partial > 0) this.#quiet.arm();
    else this.#quiet.clear();
  }

  /** [AS-8.4] The inactivity timeout's clock, ticked every second by the port. */
  tick(): void {
    this.#event({ kind: 'tick', atMs: this.#o.now() });
  }

  /** The line went away (port closed, mode E over): a partial frame is dropped, the link starts afresh. */
  reset(): void {
    this.#quiet.clear();
    this.#splitter.discard();
    this.#link = INITIAL_LINK;
    this.#session = NEW_SESSION;
  }

  close(): void {
    this.#quiet.clear();
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
        this.#o.write(encodeFrame(e.frame));
        return;
      case 'connected': // [AS-8.4] a new link starts with no association
      case 'disconnected':
        this.#session = NEW_SESSION;
        this.#o.log(
          'debug',
          `dlms: link ${e.kind === 'connected' ? `up with client ${e.client}` : `down (${e.reason})`}`,
        );
        this.#o.onLink?.(e.kind === 'connected');
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
