// The server's link state machine [HD-9], first replaying a public Gurux session byte for byte, then one
// case per rule. Frames go in and out as bytes through the codec, as they would on a serial port.
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, type HdlcFrame } from './frame.ts';
import { fromHex, loadFrameVectors, toHex } from './golden/vectors.ts';
import {
  DEFAULT_LINK_CONFIG,
  FRMR_W,
  FRMR_Y,
  FRMR_Z,
  INITIAL_LINK,
  type LinkConfig,
  type LinkEffect,
  type LinkEvent,
  type LinkState,
  step,
} from './link.ts';
import { withLlc } from './llc.ts';

const { frames } = loadFrameVectors();
const vector = (prefix: string) => frames.find((v) => v.name.startsWith(prefix))!;

const SERVER = { bytes: 1 as const, value: 1 };
const CLIENT = { bytes: 1 as const, value: 16 };
// The limits the Gurux meter of https://pastebin.com/Vvs6PqXK answered with: tx 128, rx 62, window 1.
const CONFIG: LinkConfig = {
  ...DEFAULT_LINK_CONFIG,
  address: SERVER,
  limits: { maxInfoTx: 128, maxInfoRx: 62, windowTx: 1, windowRx: 1 },
};

/** Drives the machine: each call feeds one event and returns what it sent, as hex. */
function link(config: LinkConfig = CONFIG) {
  let state: LinkState = INITIAL_LINK;
  let effects: LinkEffect[] = [];
  const run = (event: LinkEvent) => {
    ({ state, effects } = step(config, state, event));
    return effects.flatMap((e) => (e.kind === 'send' ? [toHex(encodeFrame(e.frame))] : []));
  };
  return {
    frame: (hex: string, atMs = 0) => {
      const decoded = decodeFrame(fromHex(hex));
      if (!decoded.ok) throw new Error(decoded.error.message);
      return run({ kind: 'frame', frame: decoded.frame, atMs });
    },
    send: (frame: Omit<HdlcFrame, 'dest' | 'src' | 'segmented'> & { segmented?: boolean }, atMs = 0) =>
      run({ kind: 'frame', frame: { segmented: false, dest: SERVER, src: CLIENT, ...frame }, atMs }),
    respond: (apdu: Uint8Array, atMs = 0) => run({ kind: 'respond', apdu, atMs }),
    tick: (atMs: number) => run({ kind: 'tick', atMs }),
    get state() {
      return state;
    },
    get effects() {
      return effects;
    },
  };
}

const I = (ns: number, nr: number, info: Uint8Array, pf = true) => ({
  control: { type: 'I' as const, ns, nr, pf },
  info,
});
const RR = (nr: number) => ({ control: { type: 'RR' as const, nr, pf: true }, info: new Uint8Array(0) });
const decoded = (hex: string) => {
  const r = decodeFrame(fromHex(hex));
  if (!r.ok) throw new Error(r.error.message);
  return r.frame;
};
const SNRM = '7E A0 07 03 21 93 0F 01 7E';

describe('[HD-9] a public Gurux session (https://pastebin.com/Vvs6PqXK), replayed', () => {
  it('answers SNRM, AARQ and a segmented response with the same bytes as the meter did', () => {
    const l = link();
    // [HD-9.1] SNRM with no parameters: the UA states the server's limits, as the meter's UA did.
    expect(l.frame(SNRM)).toEqual([vector('[HD-6.1] UA with 1-byte lengths').hex]);
    expect(l.effects).toContainEqual({ kind: 'connected', client: 16, params: CONFIG.limits });
    // [HD-9.3] The AARQ is delivered without its LLC header; the AARE goes back in I(0,1) with F.
    const aarq = vector('[HD-5.1] I-frame N(S)=0 N(R)=0 with an AARQ (SN');
    expect(l.frame(aarq.hex)).toEqual([]);
    expect(l.effects).toEqual([{ kind: 'deliver', apdu: fromHex(aarq.decoded.info).slice(3) }]);
    const aare = vector('[HD-5.1] I-frame N(S)=0 N(R)=1 with the AARE after');
    expect(l.respond(fromHex(aare.decoded.info).slice(3))).toEqual([aare.hex]);
    // [HD-7.1] A 300-byte response goes out in 128-byte I-frames, one per RR, as I(1,2) then I(2,2).
    expect(l.frame('7E A0 11 03 21 32 B7 3D E6 E6 00 05 01 02 FA 08 18 9E 7E')).toEqual([]);
    const response = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
    const first = l.respond(response).map(decoded);
    expect(first.map((f) => [f.control, f.segmented, f.info.length])).toEqual([
      [{ type: 'I', ns: 1, nr: 2, pf: true }, true, 128],
    ]);
    const second = l.frame(vector('[HD-7.2] RR N(R)=2 with P asks').hex).map(decoded);
    expect(second.map((f) => [f.control, f.segmented])).toEqual([
      [{ type: 'I', ns: 2, nr: 2, pf: true }, true],
    ]);
    const third = l.send(RR(3)).map(decoded);
    expect(third.map((f) => [f.control, f.segmented])).toEqual([
      [{ type: 'I', ns: 3, nr: 2, pf: true }, false],
    ]);
    const joined = [...first, ...second, ...third].flatMap((f) => [...f.info]);
    expect(Uint8Array.from(joined)).toEqual(withLlc(response, 'response'));
    // Everything acknowledged and nothing left: RR is answered with RR.
    expect(
      l
        .send(RR(4))
        .map(decoded)
        .map((f) => f.control),
    ).toEqual([{ type: 'RR', nr: 2, pf: true }]);
  });
});

describe("[HD-6.4] UAs of public logs, reproduced from the same SNRM and the meter's limits", () => {
  it.each([
    ['[HD-6.1] SNRM proposing 2-byte lengths', '[HD-6.1] UA accepting 1010-byte fields', SERVER, 2030, 2030],
    [
      '[HD-3.1] four-byte server address (upper 1, lower 8821)',
      '[HD-6.1] UA from a four-byte server address',
      { bytes: 4 as const, upper: 1, lower: 8821 },
      248,
      62,
    ],
  ])('%s', (snrm, ua, address, maxInfoTx, maxInfoRx) => {
    const l = link({ ...CONFIG, address, limits: { maxInfoTx, maxInfoRx, windowTx: 1, windowRx: 1 } });
    expect(l.frame(vector(snrm).hex)).toEqual([vector(ua).hex]);
  });
});

describe('[HD-9.1] SNRM', () => {
  it('negotiates down to what the server can do', () => {
    const l = link();
    const ua = l.frame(vector('[HD-6.1] SNRM proposing 2-byte lengths').hex).map(decoded)[0]!;
    expect(ua.control.type).toBe('UA');
    expect(l.state.params).toEqual({ maxInfoTx: 128, maxInfoRx: 62, windowTx: 1, windowRx: 1 });
  });

  it('parameters it cannot take are answered with DM', () => {
    const l = link();
    const out = l.send({ control: { type: 'SNRM', pf: true }, info: fromHex('81 80 03 07 01 09') });
    expect(out.map(decoded).map((f) => f.control.type)).toEqual(['DM']);
    expect(l.state.mode).toBe('NDM');
  });

  it('a second SNRM resets the sequence numbers', () => {
    const l = link();
    l.frame(SNRM);
    l.send(I(0, 0, withLlc(Uint8Array.of(1), 'command')));
    expect(l.state.vr).toBe(1);
    l.frame(SNRM);
    expect([l.state.vs, l.state.vr]).toEqual([0, 0]);
  });
});

describe('[HD-9.2] one client at a time', () => {
  it('another client gets DM while the link is held', () => {
    const l = link();
    l.frame(SNRM);
    const other = l.frame(vector('[HD-3.2] SNRM from client 32').hex).map(decoded);
    expect(other.map((f) => [f.control.type, f.dest])).toEqual([['DM', { bytes: 1, value: 32 }]]);
    expect(l.state.client).toBe(16);
  });

  it('[HD-3.3] a frame for another server is not answered', () => {
    const l = link({ ...CONFIG, address: { bytes: 2, upper: 1, lower: 17 } });
    expect(l.frame(SNRM)).toEqual([]);
    expect(l.effects).toEqual([{ kind: 'dropped', rule: 'HD-3.3', reason: 'addressed to another server' }]);
  });
});

describe('[HD-9.3] requests and responses', () => {
  it('joins a segmented request, answering RR for each segment', () => {
    const l = link();
    l.frame(SNRM);
    const apdu = Uint8Array.from({ length: 100 }, (_, i) => i);
    const message = withLlc(apdu, 'command');
    expect(
      l
        .send({ ...I(0, 0, message.slice(0, 62)), segmented: true })
        .map(decoded)
        .map((f) => f.control),
    ).toEqual([{ type: 'RR', nr: 1, pf: true }]);
    expect(l.send(I(1, 0, message.slice(62)))).toEqual([]);
    expect(l.effects).toEqual([{ kind: 'deliver', apdu }]);
  });

  it('[HD-5.1] a message without a command LLC header is dropped and the poll answered', () => {
    const l = link();
    l.frame(SNRM);
    const out = l.send(I(0, 0, withLlc(Uint8Array.of(1), 'response'))).map(decoded);
    expect(out.map((f) => f.control)).toEqual([{ type: 'RR', nr: 1, pf: true }]);
    expect(l.effects[0]).toMatchObject({ kind: 'dropped', rule: 'HD-5.1' });
  });

  it('a response with no link is dropped', () => {
    const l = link();
    expect(l.respond(Uint8Array.of(1))).toEqual([]);
    expect(l.effects[0]).toMatchObject({ kind: 'dropped', rule: 'HD-9.3' });
  });
});

describe('[HD-9.4] lost frames', () => {
  it('a repeated request (our answer was lost) gets the answer again, not a second delivery', () => {
    const l = link();
    l.frame(SNRM);
    const request = I(0, 0, withLlc(Uint8Array.of(0xc0), 'command'));
    l.send(request);
    const answer = l.respond(Uint8Array.of(0xc4));
    expect(l.send(request)).toEqual(answer);
    expect(l.effects.map((e) => e.kind)).toEqual(['dropped', 'send']);
  });

  it('an RR that does not acknowledge the last I-frame gets it again', () => {
    const l = link();
    l.frame(SNRM);
    l.send(I(0, 0, withLlc(Uint8Array.of(0xc0), 'command')));
    const answer = l.respond(new Uint8Array(200));
    expect(l.send(RR(0))).toEqual(answer);
  });
});

describe('[HD-9.5] FRMR', () => {
  const frmr = (out: string[]) => out.map(decoded).map((f) => [f.control.type, toHex(f.info)]);

  it('an unknown control byte gets FRMR with W, repeated until SNRM', () => {
    const l = link();
    l.frame(SNRM);
    expect(frmr(l.send({ control: { type: 'unknown', byte: 0x19 }, info: new Uint8Array(0) }))).toEqual([
      ['FRMR', `19 00 0${FRMR_W}`],
    ]);
    expect(frmr(l.send(RR(0)))).toEqual([['FRMR', '19 00 01']]);
    expect(l.frame(SNRM).map(decoded)[0]!.control.type).toBe('UA');
  });

  it('an N(R) acknowledging a frame never sent gets FRMR with Z', () => {
    const l = link();
    l.frame(SNRM);
    expect(frmr(l.send(RR(5)))).toEqual([['FRMR', `B1 00 0${FRMR_Z}`]]);
  });

  it('an information field over the negotiated length gets FRMR with Y', () => {
    const l = link();
    l.frame(SNRM);
    expect(frmr(l.send(I(0, 0, new Uint8Array(63))))).toEqual([['FRMR', `10 00 0${FRMR_Y}`]]);
  });

  it('[HD-7.3] a request longer than maxMessageBytes gets FRMR with Y', () => {
    const l = link({ ...CONFIG, maxMessageBytes: 100 });
    l.frame(SNRM);
    l.send({ ...I(0, 0, new Uint8Array(62)), segmented: true });
    expect(frmr(l.send({ ...I(1, 0, new Uint8Array(62)), segmented: true }))[0]![0]).toBe('FRMR');
  });

  it('[HD-4.3] RR with an information field gets FRMR with X', () => {
    const l = link();
    l.frame(SNRM);
    expect(frmr(l.send({ control: { type: 'RR', nr: 0, pf: true }, info: Uint8Array.of(1) }))).toEqual([
      ['FRMR', '11 00 02'],
    ]);
  });
});

describe('[HD-9.6] inactivity', () => {
  it('the link drops after the timeout without a frame, and the client then gets DM', () => {
    const l = link();
    l.frame(SNRM, 1_000);
    expect(l.tick(120_999)).toEqual([]);
    expect(l.state.mode).toBe('NRM');
    l.tick(121_000);
    expect(l.effects).toEqual([{ kind: 'disconnected', reason: 'timeout' }]);
    expect(
      l
        .send(RR(0), 121_001)
        .map(decoded)
        .map((f) => f.control.type),
    ).toEqual(['DM']);
  });

  it('every frame from the client restarts the clock; 0 turns the timeout off', () => {
    const l = link();
    l.frame(SNRM, 0);
    l.send(RR(0), 100_000);
    l.tick(200_000);
    expect(l.state.mode).toBe('NRM');
    const never = link({ ...CONFIG, inactivityTimeoutMs: 0 });
    never.frame(SNRM, 0);
    never.tick(10 ** 12);
    expect(never.state.mode).toBe('NRM');
  });
});

describe('[HD-9.7] DISC and DM', () => {
  it('DISC in NRM is answered UA and ends the link', () => {
    const l = link();
    l.frame(SNRM);
    expect(l.frame(vector('[HD-9.7] DISC from client 16').hex)).toEqual([
      vector('[HD-9.7] UA answering DISC').hex,
    ]);
    expect(l.effects[0]).toEqual({ kind: 'disconnected', reason: 'disc' });
    expect(l.state.mode).toBe('NDM');
  });

  it('disconnected: DISC and polls get DM; frames without P are ignored', () => {
    const l = link();
    expect(l.frame(vector('[HD-9.7] DISC from client 16').hex)).toEqual([vector('[HD-9.7] DM with F').hex]);
    expect(
      l
        .send(RR(0))
        .map(decoded)
        .map((f) => f.control.type),
    ).toEqual(['DM']);
    expect(l.send(I(0, 0, Uint8Array.of(1), false))).toEqual([]);
    expect(l.effects[0]).toMatchObject({ kind: 'dropped', rule: 'HD-9.7' });
  });
});
