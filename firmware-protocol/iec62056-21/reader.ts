// The reader's side of one mode C readout as a reducer [IEC-8]: start(now) sends the sign-on, then
// step(state, event) -> { state, effects } until a `result` effect ends the session. Pure: time arrives in
// the events; the I/O layer carries out the effects in order (send, wait, set-baud), feeds the pieces a
// reader-side splitter cut, says when bytes arrived (`heard`) and sends a tick at deadline(). Rule numbers
// refer to ./PROTOCOL.md.

import { type BaudChar, baudOf, INITIAL_BAUD, isBaudChar, MODE_C_BAUDS } from './chars.ts';
import { decodeMessage, encodeMessage, type Message } from './codec.ts';
import type { DataLine } from './data-set.ts';
import { wireMs } from './server.ts';
import type { Piece } from './splitter.ts';

export interface ReaderOptions {
  /** [IEC-2.1] The device address to ask for; '' (default) for "whichever meter answers". */
  address?: string;
  /** [IEC-8.3] The fastest rate the reader will switch to. Default '5' (9600 Bd). */
  maxBaudChar?: BaudChar;
  /** [IEC-8.2] How long after its request the reader waits for the identification. Default 3000 ms. */
  answerTimeoutMs?: number;
  /** [IEC-8.4] How long after the option select the data message may take to begin. Default 3000 ms. */
  dataTimeoutMs?: number;
  /** [IEC-1.5] Silence that ends a data message under way (ta). Default 1500 ms. */
  interCharMs?: number;
  /** [IEC-8.3] The reader's own reaction time before its option select, 200..1500 ms. Default 200. */
  reactionMs?: number;
}

export interface Identification {
  manufacturer: string;
  baudChar: string;
  ident: string;
}

export type ReaderState =
  | { phase: 'done' }
  /** [IEC-8.2] The request is out; the identification is due by `deadline`. */
  | { phase: 'signing-on'; deadline: number }
  /** [IEC-8.4] The option select is out (or not needed); the data message is due by `deadline`. */
  | { phase: 'reading'; deadline: number; identification: Identification; baud: number };

export type ReaderEvent =
  | { kind: 'piece'; piece: Piece; now: number }
  /** Bytes arrived (before they are cut into pieces): a data message under way keeps the session. */
  | { kind: 'heard'; now: number }
  | { kind: 'tick'; now: number };

export type FailureCode =
  /** [IEC-8.2] No identification in time. */
  | 'no_answer'
  /** [IEC-8.4] No complete data message in time. */
  | 'timeout'
  /** [IEC-8.5] The meter sent a break. */
  | 'refused'
  /** [IEC-8.5] The data message was spoilt: a bad BCC, a bad data set, a parity error. */
  | 'bad_data';

export type Outcome =
  | { ok: true; identification: Identification; lines: DataLine[]; baud: number }
  | { ok: false; code: FailureCode; rule: string; message: string };

export type ReaderNote = 'noise' | 'dropped' | 'bad_message' | 'ignored';

export type ReaderEffect =
  | { kind: 'wait'; ms: number }
  | { kind: 'send'; bytes: Uint8Array; message: Message['kind'] }
  | { kind: 'set-baud'; baud: number }
  | { kind: 'note'; note: ReaderNote; detail: string }
  /** The session is over; the port is back at 300 Bd (a set-baud precedes this where needed). */
  | { kind: 'result'; outcome: Outcome };

export interface ReaderStep {
  state: ReaderState;
  effects: ReaderEffect[];
}

export interface Reader {
  /** [IEC-8.1] A new session at `now`: the port at 300 Bd, the request sent. */
  start(now: number): ReaderStep;
  step(state: ReaderState, event: ReaderEvent): ReaderStep;
  deadline(state: ReaderState): number | null;
}

const DONE: ReaderState = { phase: 'done' };

export function createReader(options: ReaderOptions = {}): Reader {
  const {
    address = '',
    maxBaudChar = '5',
    answerTimeoutMs = 3000,
    dataTimeoutMs = 3000,
    interCharMs = 1500,
    reactionMs = 200,
  } = options;
  if (!isBaudChar(maxBaudChar)) throw new TypeError('createReader: maxBaudChar is 0..6');
  if (!(answerTimeoutMs > 0 && dataTimeoutMs > 0 && interCharMs > 0)) {
    throw new TypeError('createReader: timeouts must be positive');
  }
  if (!(reactionMs >= 200 && reactionMs <= 1500))
    throw new TypeError('createReader: reactionMs is 200..1500');
  // encodeMessage checks the address now, so a bad option fails at start, not at the first poll.
  const request = encodeMessage({ kind: 'request', address });

  const note = (n: ReaderNote, detail: string): ReaderEffect => ({ kind: 'note', note: n, detail });

  /** [IEC-8.6] Every end of a session leaves the port at 300 Bd. */
  function end(state: ReaderState, outcome: Outcome, extra: ReaderEffect[] = []): ReaderStep {
    const back: ReaderEffect[] =
      state.phase === 'reading' && state.baud !== INITIAL_BAUD
        ? [{ kind: 'set-baud', baud: INITIAL_BAUD }]
        : [];
    return { state: DONE, effects: [...extra, ...back, { kind: 'result', outcome }] };
  }
  const fail = (state: ReaderState, code: FailureCode, rule: string, message: string) =>
    end(state, { ok: false, code, rule, message });

  function start(now: number): ReaderStep {
    return {
      state: { phase: 'signing-on', deadline: now + wireMs(request.length, INITIAL_BAUD) + answerTimeoutMs },
      effects: [
        { kind: 'set-baud', baud: INITIAL_BAUD },
        { kind: 'send', bytes: request, message: 'request' },
      ],
    };
  }

  /** [IEC-8.3] Mode C: ACK 0 Z 0 at 300 Bd, then Z's rate; mode B: Z's rate at once; mode A: stay. */
  function onIdentification(m: Extract<Message, { kind: 'identification' }>, now: number): ReaderStep {
    const identification = { manufacturer: m.manufacturer, baudChar: m.baudChar, ident: m.ident };
    const meaning = baudOf(m.baudChar);
    const reading = (baud: number, after: number): ReaderState => ({
      phase: 'reading',
      deadline: after + dataTimeoutMs,
      identification,
      baud,
    });
    if (meaning.mode === 'A') return { state: reading(INITIAL_BAUD, now), effects: [] };
    if (meaning.mode === 'B') {
      return { state: reading(meaning.baud, now), effects: [{ kind: 'set-baud', baud: meaning.baud }] };
    }
    const z = (m.baudChar as BaudChar) > maxBaudChar ? maxBaudChar : (m.baudChar as BaudChar);
    const select = encodeMessage({ kind: 'option-select', protocol: '0', baudChar: z, mode: '0' });
    const baud = MODE_C_BAUDS[z];
    const sent = now + reactionMs + wireMs(select.length, INITIAL_BAUD);
    return {
      state: reading(baud, sent),
      effects: [
        { kind: 'wait', ms: reactionMs },
        { kind: 'send', bytes: select, message: 'option-select' },
        { kind: 'set-baud', baud },
      ],
    };
  }

  function onMessage(state: Exclude<ReaderState, { phase: 'done' }>, m: Message, now: number): ReaderStep {
    if (state.phase === 'signing-on') {
      if (m.kind === 'identification') return onIdentification(m, now);
      return { state, effects: [note('ignored', `${m.kind} before the identification`)] };
    }
    switch (m.kind) {
      case 'data':
        return end(state, {
          ok: true,
          identification: state.identification,
          lines: m.lines,
          baud: state.baud,
        });
      case 'break':
        return fail(state, 'refused', 'IEC-8.5', 'the meter sent a break');
      default:
        return { state, effects: [note('ignored', `${m.kind} while reading`)] };
    }
  }

  function step(state: ReaderState, event: ReaderEvent): ReaderStep {
    if (state.phase === 'done') return { state, effects: [] };
    const now = event.now;
    if (event.kind === 'heard') {
      // [IEC-8.4] A data message under way may take longer than dataTimeoutMs, never a gap over ta.
      if (state.phase !== 'reading') return { state, effects: [] };
      return { state: { ...state, deadline: Math.max(state.deadline, now + interCharMs) }, effects: [] };
    }
    if (now >= state.deadline) {
      return state.phase === 'signing-on'
        ? fail(state, 'no_answer', 'IEC-8.2', 'no identification')
        : fail(state, 'timeout', 'IEC-8.4', 'no data message');
    }
    if (event.kind === 'tick') return { state, effects: [] };
    const piece = event.piece;
    if (piece.kind === 'noise') return { state, effects: [note('noise', `${piece.bytes} bytes`)] };
    if (piece.kind === 'dropped') {
      // [IEC-8.5] A data message spoilt by parity is a failed read, not silence to wait out.
      if (state.phase === 'reading' && piece.reason === 'parity') {
        return fail(state, 'bad_data', 'IEC-4.5', `parity error in ${piece.bytes} bytes`);
      }
      return { state, effects: [note('dropped', `${piece.reason}, ${piece.bytes} bytes`)] };
    }
    const decoded = decodeMessage(piece.bytes);
    if (!decoded.ok) {
      const { rule, message, code } = decoded.error;
      // [IEC-8.5] A block that fails its BCC or its data sets while reading is the readout, spoilt.
      const isBlock = piece.bytes[0] === 0x02;
      if (state.phase === 'reading' && isBlock) return fail(state, 'bad_data', rule, `${code}: ${message}`);
      return { state, effects: [note('bad_message', `[${rule}] ${message}`)] };
    }
    return onMessage(state, decoded.message, now);
  }

  return {
    start,
    step,
    deadline: (state) => (state.phase === 'done' ? null : state.deadline),
  };
}
