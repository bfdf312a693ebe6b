// [HD-9] The server side of an HDLC link as a pure reducer: step(state, event) -> { state, effects }, time
// passed in. It answers SNRM with UA and the negotiated parameters, numbers I-frames, answers RR, joins
// segmented requests, sends a response one I-frame per poll, refuses what it cannot take with FRMR, is
// disconnected by DISC or by inactivity, and answers DM while disconnected. Rule numbers: ../HDLC.md.

import { type Control, encodeControl, type HdlcAddress, type HdlcFrame } from './frame.ts';
import { type Direction, stripLlc, withLlc } from './llc.ts';
import { DEFAULT_PARAMS, decodeParams, encodeParams, type Negotiated, negotiate } from './params.ts';
import { addSegment, EMPTY_REASSEMBLY, type Reassembly, segment } from './segment.ts';

export interface LinkConfig {
  /** [HD-3.3] This server's address; frames to any other are not for it. */
  address: HdlcAddress;
  /** [HD-6.4] The most this server can do; a client's proposal is lowered to it. */
  limits: Negotiated;
  /** [HD-9.6] Milliseconds without a frame from the client before the link drops; 0: never. */
  inactivityTimeoutMs: number;
  /** [HD-7.3] The longest request (LLC header + APDU) joined from segments. */
  maxMessageBytes: number;
}

/** IEC 62056-46's defaults (HDLC setup, class 23): 128-byte fields, window 1, 120 s of inactivity. */
export const DEFAULT_LINK_CONFIG: Omit<LinkConfig, 'address'> = {
  limits: DEFAULT_PARAMS,
  inactivityTimeoutMs: 120_000,
  maxMessageBytes: 0xffff,
};

export type LinkMode = 'NDM' | 'NRM' | 'FRMR';

export interface LinkState {
  readonly mode: LinkMode;
  /** The client that set the link up (its one-byte address), or null in NDM. */
  readonly client: number | null;
  readonly params: Negotiated;
  /** [HD-4.2] Send and receive state variables, modulo 8. */
  readonly vs: number;
  readonly vr: number;
  readonly lastHeardMs: number;
  readonly rx: Reassembly;
  /** Segments of the response not yet sent. */
  readonly tx: readonly { info: Uint8Array; more: boolean }[];
  /** The last I-frame sent, until the client acknowledges it; resent when it asks again [HD-9.4]. */
  readonly unacked: HdlcFrame | null;
  /** The FRMR information field, repeated until SNRM or DISC [HD-9.5]. */
  readonly frmr: Uint8Array | null;
}

export const INITIAL_LINK: LinkState = {
  mode: 'NDM',
  client: null,
  params: DEFAULT_PARAMS,
  vs: 0,
  vr: 0,
  lastHeardMs: 0,
  rx: EMPTY_REASSEMBLY,
  tx: [],
  unacked: null,
  frmr: null,
};

export type LinkEvent =
  | { kind: 'frame'; frame: HdlcFrame; atMs: number }
  /** The application's answer to the last APDU delivered. */
  | { kind: 'respond'; apdu: Uint8Array; atMs: number }
  | { kind: 'tick'; atMs: number };

export type DisconnectReason = 'disc' | 'timeout';

export type LinkEffect =
  | { kind: 'send'; frame: HdlcFrame }
  /** A whole request APDU from the client, LLC header removed. */
  | { kind: 'deliver'; apdu: Uint8Array }
  | { kind: 'connected'; client: number; params: Negotiated }
  | { kind: 'disconnected'; reason: DisconnectReason }
  /** A frame or message ignored, for a counter and a log line. */
  | { kind: 'dropped'; rule: string; reason: string };

export interface LinkStep {
  state: LinkState;
  effects: LinkEffect[];
}

/** [HD-9.5] FRMR's reason bits (ISO/IEC 13239): W bad control, X info not allowed, Y too long, Z bad N(R). */
export const FRMR_W = 0x01;
export const FRMR_X = 0x02;
export const FRMR_Y = 0x04;
export const FRMR_Z = 0x08;

const RESPONSE: Direction = 'response';

export function step(config: LinkConfig, state: LinkState, event: LinkEvent): LinkStep {
  const effects: LinkEffect[] = [];
  let s = state;
  // [HD-9.6] Inactivity is measured from the last frame heard from the client, whatever the event.
  if (
    s.mode !== 'NDM' &&
    config.inactivityTimeoutMs > 0 &&
    event.atMs - s.lastHeardMs >= config.inactivityTimeoutMs
  ) {
    s = INITIAL_LINK;
    effects.push({ kind: 'disconnected', reason: 'timeout' });
  }
  if (event.kind === 'tick') return { state: s, effects };
  if (event.kind === 'respond') {
    if (s.mode !== 'NRM') {
      effects.push({ kind: 'dropped', rule: 'HD-9.3', reason: 'a response with no link to send it on' });
      return { state: s, effects };
    }
    s = { ...s, tx: segment(withLlc(event.apdu, RESPONSE), s.params.maxInfoTx) };
    return sendNext(config, s, effects);
  }
  return onFrame(config, s, event.frame, event.atMs, effects);
}

function onFrame(
  config: LinkConfig,
  s: LinkState,
  frame: HdlcFrame,
  atMs: number,
  effects: LinkEffect[],
): LinkStep {
  const drop = (rule: string, reason: string): LinkStep => {
    effects.push({ kind: 'dropped', rule, reason });
    return { state: s, effects };
  };
  if (!sameAddress(frame.dest, config.address)) return drop('HD-3.3', 'addressed to another server');
  if (frame.src.bytes !== 1) return drop('HD-3.2', 'a client address is one byte');
  const client = frame.src.value;
  const c = frame.control;
  const reply = (control: Control, info: Uint8Array = new Uint8Array(0), segmented = false): HdlcFrame => ({
    segmented,
    dest: frame.src,
    src: frame.dest,
    control,
    info,
  });
  const send = (state: LinkState, control: Control, info?: Uint8Array): LinkStep => {
    effects.push({ kind: 'send', frame: reply(control, info) });
    return { state, effects };
  };
  const polled = c.type === 'unknown' || c.pf;

  if (s.mode !== 'NDM' && client !== s.client) {
    // [HD-9.2] One client at a time: another is told the server is not connected to it.
    return polled
      ? send(s, { type: 'DM', pf: true })
      : drop('HD-9.2', `client ${client} while ${s.client} holds the link`);
  }
  if (s.mode !== 'NDM') s = { ...s, lastHeardMs: atMs };

  if (c.type === 'SNRM') {
    // [HD-9.1] SNRM sets the link up (again), whatever the mode; parameters it cannot take get DM.
    const proposal = decodeParams(frame.info);
    if (!proposal.ok) return send(s, { type: 'DM', pf: true });
    const params = negotiate(proposal.params, config.limits);
    effects.push({ kind: 'connected', client, params });
    const next: LinkState = { ...INITIAL_LINK, mode: 'NRM', client, params, lastHeardMs: atMs };
    return send(next, { type: 'UA', pf: true }, encodeParams(params));
  }
  if (c.type === 'DISC') {
    // [HD-9.7] DISC ends the link (UA); without one it was already ended (DM).
    if (s.mode === 'NDM') return send(s, { type: 'DM', pf: true });
    effects.push({ kind: 'disconnected', reason: 'disc' });
    return send(INITIAL_LINK, { type: 'UA', pf: true });
  }
  if (s.mode === 'NDM') {
    // [HD-9.7] Disconnected: a poll gets DM, anything else is ignored.
    return polled ? send(s, { type: 'DM', pf: true }) : drop('HD-9.7', `${c.type} while disconnected`);
  }
  if (s.mode === 'FRMR') return send(s, { type: 'FRMR', pf: true }, s.frmr ?? new Uint8Array(0));

  // NRM from here on.
  const reject = (flags: number, rule: string, reason: string): LinkStep => {
    const byte = encodeControl(c);
    const info = Uint8Array.of(byte, (s.vr << 5) | (s.vs << 1), flags);
    effects.push({ kind: 'dropped', rule, reason });
    return send({ ...s, mode: 'FRMR', frmr: info }, { type: 'FRMR', pf: true }, info);
  };
  if (c.type === 'unknown') return reject(FRMR_W, 'HD-4.1', `control byte 0x${c.byte.toString(16)}`);
  if (c.type === 'UI') return drop('HD-9.3', 'UI frames are not served');
  if (c.type !== 'I' && c.type !== 'RR' && c.type !== 'RNR')
    return drop('HD-9.3', `${c.type} is a response, not a command`);
  if ((c.type === 'RR' || c.type === 'RNR') && frame.info.length > 0) {
    return reject(FRMR_X, 'HD-4.3', `${c.type} with an information field`);
  }
  if (c.type === 'I' && frame.info.length > s.params.maxInfoRx) {
    return reject(
      FRMR_Y,
      'HD-6.4',
      `information field of ${frame.info.length} bytes; negotiated ${s.params.maxInfoRx}`,
    );
  }

  // [HD-4.2] N(R) acknowledges our I-frames: it is V(S), or the N(S) of the one still unacknowledged.
  const resend = s.unacked !== null && c.nr === (s.unacked.control as { ns: number }).ns;
  if (c.nr !== s.vs && !resend) return reject(FRMR_Z, 'HD-4.2', `N(R) ${c.nr}, V(S) ${s.vs}`);
  if (!resend) s = { ...s, unacked: null };

  if (c.type === 'I') {
    if (c.ns !== s.vr) {
      // [HD-9.4] Out of sequence (a repeat after a lost answer): not taken again; the answer is repeated.
      effects.push({ kind: 'dropped', rule: 'HD-9.4', reason: `N(S) ${c.ns}, V(R) ${s.vr}` });
      return answerPoll(s, c.pf, resend, send, effects);
    }
    s = { ...s, vr: (s.vr + 1) & 7 };
    const joined = addSegment(s.rx, frame.info, frame.segmented, config.maxMessageBytes);
    if (joined.kind === 'too_long') return reject(FRMR_Y, 'HD-7.3', `message of ${joined.bytes}+ bytes`);
    if (joined.kind === 'more') {
      s = { ...s, rx: joined.reassembly };
      return c.pf ? send(s, { type: 'RR', nr: s.vr, pf: true }) : { state: s, effects };
    }
    s = { ...s, rx: EMPTY_REASSEMBLY, tx: [] };
    const llc = stripLlc(joined.message);
    if (!llc.ok || llc.direction !== 'command') {
      effects.push({
        kind: 'dropped',
        rule: 'HD-5.1',
        reason: llc.ok ? 'a response LLC header from a client' : llc.error.message,
      });
      return c.pf ? send(s, { type: 'RR', nr: s.vr, pf: true }) : { state: s, effects };
    }
    // [HD-9.3] The answer is the application's response (event `respond`), sent with F.
    effects.push({ kind: 'deliver', apdu: llc.apdu });
    return { state: s, effects };
  }
  // RR and RNR.
  if (resend || c.type === 'RNR') return answerPoll(s, c.pf, resend, send, effects);
  if (s.tx.length > 0) return sendNext(config, s, effects);
  return c.pf ? send(s, { type: 'RR', nr: s.vr, pf: true }) : { state: s, effects };
}

function answerPoll(
  s: LinkState,
  pf: boolean,
  resend: boolean,
  send: (state: LinkState, control: Control) => LinkStep,
  effects: LinkEffect[],
): LinkStep {
  if (resend && s.unacked !== null) {
    effects.push({ kind: 'send', frame: s.unacked });
    return { state: s, effects };
  }
  return pf ? send(s, { type: 'RR', nr: s.vr, pf: true }) : { state: s, effects };
}

/** [HD-7.1, HD-9.3] Sends the next segment of the response as an I-frame with F set. */
function sendNext(config: LinkConfig, s: LinkState, effects: LinkEffect[]): LinkStep {
  const [next, ...rest] = s.tx;
  if (next === undefined || s.client === null) return { state: s, effects };
  const frame: HdlcFrame = {
    segmented: next.more,
    dest: { bytes: 1, value: s.client },
    src: config.address,
    control: { type: 'I', ns: s.vs, nr: s.vr, pf: true },
    info: next.info,
  };
  effects.push({ kind: 'send', frame });
  return { state: { ...s, tx: rest, vs: (s.vs + 1) & 7, unacked: frame }, effects };
}

/** [HD-3.3] The same address written the same way (a server answers only as it is configured). */
export function sameAddress(a: HdlcAddress, b: HdlcAddress): boolean {
  if (a.bytes === 1) return b.bytes === 1 && a.value === b.value;
  return b.bytes !== 1 && a.bytes === b.bytes && a.upper === b.upper && a.lower === b.lower;
}
