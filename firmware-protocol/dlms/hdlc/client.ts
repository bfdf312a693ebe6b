// [HD-11] The client side of an HDLC link as a pure reducer, for a bridge reading a meter: SNRM and its
// UA, one request at a time sent in I-frames (segmented, each segment waiting for its RR), the response
// joined from the server's I-frames (polling with RR for each further segment), DISC. Timeouts are the
// adapter's: on one it sends `retry`, which repeats the last frame. Rule numbers refer to ../HDLC.md.

import type { Control, HdlcAddress, HdlcFrame } from './frame.ts';
import { stripLlc, withLlc } from './llc.ts';
import { DEFAULT_PARAMS, decodeParams, encodeParams, type LinkParams, type Negotiated } from './params.ts';
import { addSegment, EMPTY_REASSEMBLY, type Reassembly, segment } from './segment.ts';

export interface ClientConfig {
  /** [HD-3.2] This client's one-byte address (16 public, 32 meter reader). */
  client: number;
  server: HdlcAddress;
  /** What the SNRM proposes, from the client's side [HD-6.1]; empty proposes nothing (the defaults). */
  propose: LinkParams;
  /** [HD-7.3] The longest response joined from segments. */
  maxMessageBytes: number;
}

export type ClientMode = 'NDM' | 'connecting' | 'NRM' | 'disconnecting';

export interface ClientState {
  readonly mode: ClientMode;
  /** From the client's side: its tx is what it sends [HD-6.4]. */
  readonly params: Negotiated;
  readonly vs: number;
  readonly vr: number;
  /** Request segments still to send, and whether a request is waiting for its response. */
  readonly tx: readonly { info: Uint8Array; more: boolean }[];
  readonly busy: boolean;
  readonly rx: Reassembly;
  /** The last frame sent, repeated on `retry`. */
  readonly last: HdlcFrame | null;
}

export const INITIAL_CLIENT: ClientState = {
  mode: 'NDM',
  params: DEFAULT_PARAMS,
  vs: 0,
  vr: 0,
  tx: [],
  busy: false,
  rx: EMPTY_REASSEMBLY,
  last: null,
};

export type ClientEvent =
  | { kind: 'connect' }
  | { kind: 'request'; apdu: Uint8Array }
  | { kind: 'disconnect' }
  | { kind: 'retry' }
  | { kind: 'frame'; frame: HdlcFrame };

export type ClientEffect =
  | { kind: 'send'; frame: HdlcFrame }
  | { kind: 'connected'; params: Negotiated }
  | { kind: 'response'; apdu: Uint8Array }
  | { kind: 'disconnected'; reason: 'ua' | 'dm' | 'frmr' }
  /** A request refused before it was sent (no link, or one already waiting), or a frame ignored. */
  | { kind: 'refused'; rule: string; reason: string };

export function clientStep(
  config: ClientConfig,
  state: ClientState,
  event: ClientEvent,
): { state: ClientState; effects: ClientEffect[] } {
  const effects: ClientEffect[] = [];
  const send = (
    s: ClientState,
    control: Control,
    info: Uint8Array = new Uint8Array(0),
    segmented = false,
  ) => {
    const frame: HdlcFrame = {
      segmented,
      dest: config.server,
      src: { bytes: 1, value: config.client },
      control,
      info,
    };
    effects.push({ kind: 'send', frame });
    return { state: { ...s, last: frame }, effects };
  };
  const refuse = (rule: string, reason: string) => {
    effects.push({ kind: 'refused', rule, reason });
    return { state, effects };
  };
  const s = state;
  switch (event.kind) {
    case 'connect':
      return send(
        { ...INITIAL_CLIENT, mode: 'connecting' },
        { type: 'SNRM', pf: true },
        encodeParams(config.propose),
      );
    case 'disconnect':
      return send({ ...s, mode: 'disconnecting' }, { type: 'DISC', pf: true });
    case 'retry':
      if (s.last === null) return { state: s, effects };
      effects.push({ kind: 'send', frame: s.last });
      return { state: s, effects };
    case 'request': {
      if (s.mode !== 'NRM') return refuse('HD-11.2', `no link (${s.mode})`);
      if (s.busy) return refuse('HD-11.2', 'a request is already waiting for its response');
      const tx = segment(withLlc(event.apdu, 'command'), s.params.maxInfoTx);
      return sendNext({ ...s, tx, busy: true, rx: EMPTY_REASSEMBLY });
    }
    case 'frame':
      return onFrame(event.frame);
  }

  function sendNext(next: ClientState) {
    const [first, ...rest] = next.tx;
    if (first === undefined) return { state: next, effects };
    const control: Control = { type: 'I', ns: next.vs, nr: next.vr, pf: true };
    return send({ ...next, tx: rest, vs: (next.vs + 1) & 7 }, control, first.info, first.more);
  }

  function onFrame(frame: HdlcFrame) {
    const c = frame.control;
    if (
      frame.src.bytes !== config.server.bytes ||
      frame.dest.bytes !== 1 ||
      frame.dest.value !== config.client
    ) {
      return refuse('HD-3.4', 'a frame for another client or from another server');
    }
    if (c.type === 'DM' || c.type === 'FRMR') {
      // [HD-11.4] The server has no link with us (or refused a frame): it is down either way.
      effects.push({ kind: 'disconnected', reason: c.type === 'DM' ? 'dm' : 'frmr' });
      return { state: INITIAL_CLIENT, effects };
    }
    if (c.type === 'UA' && s.mode === 'connecting') {
      const stated = decodeParams(frame.info);
      if (!stated.ok) return refuse(stated.error.rule, stated.error.message);
      // [HD-11.1] The UA is the server's side: its receive length is our transmit length.
      const p = stated.params;
      const params: Negotiated = {
        maxInfoTx: p.maxInfoRx ?? DEFAULT_PARAMS.maxInfoRx,
        maxInfoRx: p.maxInfoTx ?? DEFAULT_PARAMS.maxInfoTx,
        windowTx: p.windowRx ?? DEFAULT_PARAMS.windowRx,
        windowRx: p.windowTx ?? DEFAULT_PARAMS.windowTx,
      };
      effects.push({ kind: 'connected', params });
      return { state: { ...INITIAL_CLIENT, mode: 'NRM' as const, params }, effects };
    }
    if (c.type === 'UA' && s.mode === 'disconnecting') {
      effects.push({ kind: 'disconnected', reason: 'ua' });
      return { state: INITIAL_CLIENT, effects };
    }
    if (s.mode !== 'NRM') return refuse('HD-11.1', `${c.type} while ${s.mode}`);
    if (c.type === 'RR' && s.tx.length > 0 && c.nr === s.vs) return sendNext(s); // [HD-7.1] next segment
    if (c.type !== 'I') return refuse('HD-11.3', `${c.type} with no segment to send`);
    if (c.ns !== s.vr) {
      // [HD-9.4] A repeat of a response we have: ask again for what comes next.
      return send(s, { type: 'RR', nr: s.vr, pf: true });
    }
    const vr = (s.vr + 1) & 7;
    const joined = addSegment(s.rx, frame.info, frame.segmented, config.maxMessageBytes);
    if (joined.kind === 'too_long') {
      effects.push({ kind: 'refused', rule: joined.rule, reason: `response of ${joined.bytes}+ bytes` });
      return send({ ...s, vr, rx: EMPTY_REASSEMBLY, busy: false }, { type: 'DISC', pf: true });
    }
    // [HD-7.2] More to come: poll for it with RR.
    if (joined.kind === 'more')
      return send({ ...s, vr, rx: joined.reassembly }, { type: 'RR', nr: vr, pf: true });
    const llc = stripLlc(joined.message);
    const next: ClientState = { ...s, vr, rx: EMPTY_REASSEMBLY, busy: false, tx: [] };
    if (!llc.ok || llc.direction !== 'response')
      return {
        state: next,
        effects: [...effects, { kind: 'refused' as const, rule: 'HD-5.1', reason: 'no response LLC header' }],
      };
    effects.push({ kind: 'response', apdu: llc.apdu });
    return { state: next, effects };
  }
}
