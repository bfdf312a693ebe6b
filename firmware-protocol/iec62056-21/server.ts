// The meter's side of a mode C session as a reducer [IEC-5]: step(state, event) -> { state, effects }.
// Pure: time arrives in the events, the readout comes from options.readout, and the effects (wait, send,
// switch baud) are carried out in order by the I/O layer, which also calls step with a tick at deadline().
// Rule numbers refer to ./PROTOCOL.md.

import { type BaudChar, INITIAL_BAUD, isBaudChar, MODE_C_BAUDS } from './chars.ts';
import { decodeMessage, encodeMessage, type Message } from './codec.ts';
import { checkDataSet, type DataLine } from './data-set.ts';
import { isModeE, MODE_E_ENHANCED } from './mode-e.ts';
import type { Piece } from './splitter.ts';

export interface ServerOptions {
  /** [IEC-2.2] Three letters; the third in upper case, as we do not promise the 20 ms reaction time. */
  manufacturer: string;
  /** [IEC-2.2] 1 to 16 characters. */
  ident: string;
  /** [IEC-1.4] The fastest rate offered in the identification. */
  baudChar: BaudChar;
  /** [IEC-5.1] The device address; '' (default) when the meter answers only requests without one. */
  address?: string;
  /** [IEC-1.5] Reaction time before each answer, 200..1500 ms. Default 200. */
  reactionMs?: number;
  /** [IEC-1.5] How long the meter waits for the option select after its identification. Default 2200. */
  optionTimeoutMs?: number;
  /**
   * [IEC-10.1] Mode E offered: the identification carries `\2`, and `ACK 2 Z 2` hands the line to HDLC
   * (a `binary` effect) instead of being refused. Default false (a mode C meter).
   */
  binaryMode?: boolean;
  /** [IEC-5.4] The data sets at `now`, read when a readout is selected. */
  readout: (now: number) => readonly DataLine[];
}

export type ServerState =
  | { phase: 'idle' }
  /** [IEC-5.3] Identification sent; an option select is due by `deadline`. */
  | { phase: 'identified'; deadline: number };

export type ServerEvent =
  /** A piece the meter-side splitter cut (IEC-4), at `now`. */
  | { kind: 'piece'; piece: Piece; now: number }
  /** The time passed; the I/O layer sends one at deadline(). */
  | { kind: 'tick'; now: number };

/** Something worth a counter or a log line; never an answer on the wire. */
export type Note =
  | 'noise'
  | 'dropped'
  | 'bad_message'
  | 'ignored'
  | 'other_address'
  | 'identified'
  | 'readout'
  | 'refused'
  | 'binary'
  | 'option_timeout'
  | 'bad_data_set';

export type Effect =
  /** Wait this long before the next effect (the reaction time) [IEC-1.5]. */
  | { kind: 'wait'; ms: number }
  /** Write these 7-bit characters; the next effect waits until they are on the wire. */
  | { kind: 'send'; bytes: Uint8Array; message: Message['kind'] }
  /** Switch the port's rate [IEC-5.4]. */
  | { kind: 'set-baud'; baud: number }
  /** [IEC-10.4] Mode E selected: the line is HDLC at `baud`, 8N1, until the I/O layer hands it back. */
  | { kind: 'binary'; baud: number }
  | { kind: 'note'; note: Note; detail: string };

export interface Step {
  state: ServerState;
  effects: Effect[];
}

export interface Server {
  readonly initial: ServerState;
  step(state: ServerState, event: ServerEvent): Step;
  /** When the caller must send a tick; null when nothing is due. */
  deadline(state: ServerState): number | null;
}

/** [IEC-1.1] Time on the wire: 10 bits a character (start, 7 data, parity, stop). */
export function wireMs(chars: number, baud: number): number {
  return (chars * 10 * 1000) / baud;
}

const IDLE: ServerState = { phase: 'idle' };
const note = (n: Note, detail: string): Effect => ({ kind: 'note', note: n, detail });

/** [IEC-5.1] Leading zeros are not significant: `/?00012345!` reaches meter 12345. */
const normalAddress = (a: string) => a.replace(/^0+(?=.)/, '');

export function createServer(options: ServerOptions): Server {
  const { reactionMs = 200, optionTimeoutMs = 2200, address = '' } = options;
  // [IEC-1.5] The standard's window; the 20 ms of a lower-case manufacturer letter is not offered.
  if (!(reactionMs >= 200 && reactionMs <= 1500))
    throw new TypeError('createServer: reactionMs is 200..1500');
  if (!(optionTimeoutMs > 0)) throw new TypeError('createServer: optionTimeoutMs must be positive');
  if (!isBaudChar(options.baudChar)) throw new TypeError('createServer: baudChar is 0..6');
  if (!/^[0-9A-Za-z ]{0,32}$/.test(address)) throw new TypeError('createServer: bad device address');
  // encodeMessage checks the manufacturer and ident now, so a bad option fails at start, not at a request.
  const identification = encodeMessage({
    kind: 'identification',
    manufacturer: options.manufacturer,
    baudChar: options.baudChar,
    ident: options.ident,
    ...(options.binaryMode ? { enhanced: MODE_E_ENHANCED } : {}),
  });
  const breakBytes = encodeMessage({ kind: 'break' });
  const wait: Effect = { kind: 'wait', ms: reactionMs };

  function onRequest(requested: string, now: number): Step {
    if (requested !== '' && normalAddress(requested) !== normalAddress(address)) {
      return { state: IDLE, effects: [note('other_address', requested)] };
    }
    const due = now + reactionMs + wireMs(identification.length, INITIAL_BAUD) + optionTimeoutMs;
    return {
      state: { phase: 'identified', deadline: due },
      effects: [
        wait,
        { kind: 'send', bytes: identification, message: 'identification' },
        note('identified', ''),
      ],
    };
  }

  function refuse(why: string): Step {
    return {
      state: IDLE,
      effects: [wait, { kind: 'send', bytes: breakBytes, message: 'break' }, note('refused', why)],
    };
  }

  function onOptionSelect(m: Extract<Message, { kind: 'option-select' }>, now: number): Step {
    if (options.binaryMode && isModeE(m)) {
      // [IEC-10.4] No answer in 7E1: the meter switches to Z's rate and 8N1 and waits for SNRM.
      if (!isBaudChar(m.baudChar) || m.baudChar > options.baudChar)
        return refuse(`baud-rate character ${m.baudChar} not offered (IEC-5.5)`);
      const baud = MODE_C_BAUDS[m.baudChar];
      return { state: IDLE, effects: [{ kind: 'binary', baud }, note('binary', `HDLC at ${baud} Bd`)] };
    }
    if (m.protocol !== '0') return refuse(`protocol control character ${m.protocol} (IEC-5.5)`);
    if (m.mode !== '0') return refuse(`mode ${m.mode}: only the data readout (IEC-5.5)`);
    if (!isBaudChar(m.baudChar) || m.baudChar > options.baudChar) {
      return refuse(`baud-rate character ${m.baudChar} not offered (IEC-5.5)`);
    }
    const effects: Effect[] = [];
    const lines: DataLine[] = [];
    for (const line of options.readout(now)) {
      const kept = line.filter((set) => {
        const problem = checkDataSet(set);
        if (problem !== null) effects.push(note('bad_data_set', problem));
        return problem === null;
      });
      if (kept.length > 0) lines.push(kept);
    }
    const baud = MODE_C_BAUDS[m.baudChar];
    const data = encodeMessage({ kind: 'data', lines });
    effects.push(
      { kind: 'set-baud', baud },
      wait,
      { kind: 'send', bytes: data, message: 'data' },
      { kind: 'set-baud', baud: INITIAL_BAUD },
      note('readout', `${lines.length} lines at ${baud} Bd`),
    );
    return { state: IDLE, effects };
  }

  function onMessage(state: ServerState, m: Message, now: number): Step {
    if (m.kind === 'request') return onRequest(m.address, now);
    if (state.phase === 'idle') return { state, effects: [note('ignored', `${m.kind} outside a session`)] };
    switch (m.kind) {
      case 'option-select':
        return onOptionSelect(m, now);
      case 'break':
        return { state: IDLE, effects: [note('ignored', 'break: session ended by the reader')] };
      case 'command':
        return refuse(`command ${m.command}${m.type}: no programming mode (IEC-5.5)`);
      default:
        return { state, effects: [note('ignored', m.kind)] };
    }
  }

  function step(state: ServerState, event: ServerEvent): Step {
    const now = event.now;
    // [IEC-5.3] An option select that comes too late finds the meter idle again.
    if (state.phase === 'identified' && now >= state.deadline) {
      const timedOut: Step = { state: IDLE, effects: [note('option_timeout', '')] };
      if (event.kind === 'tick') return timedOut;
      const next = step(IDLE, event);
      return { state: next.state, effects: [...timedOut.effects, ...next.effects] };
    }
    if (event.kind === 'tick') return { state, effects: [] };
    const piece = event.piece;
    if (piece.kind === 'noise') return { state, effects: [note('noise', `${piece.bytes} bytes`)] };
    if (piece.kind === 'dropped')
      return { state, effects: [note('dropped', `${piece.reason}, ${piece.bytes} bytes`)] };
    const decoded = decodeMessage(piece.bytes);
    if (!decoded.ok) {
      const { rule, message } = decoded.error;
      return { state, effects: [note('bad_message', `[${rule}] ${message}`)] };
    }
    return onMessage(state, decoded.message, now);
  }

  return {
    initial: IDLE,
    step,
    deadline: (state) => (state.phase === 'identified' ? state.deadline : null),
  };
}
