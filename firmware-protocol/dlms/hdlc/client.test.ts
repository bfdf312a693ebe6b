// The client's link state machine [HD-11]: it writes the very bytes of a public Gurux client's session
// (https://pastebin.com/Vvs6PqXK), and talks to our server's state machine [HD-9] with segmentation both
// ways, losing frames on the way.
import { describe, expect, it } from 'vitest';
import {
  type ClientConfig,
  type ClientEffect,
  type ClientEvent,
  type ClientState,
  clientStep,
  INITIAL_CLIENT,
} from './client.ts';
import { decodeFrame, encodeFrame, type HdlcFrame } from './frame.ts';
import { fromHex, loadFrameVectors, toHex } from './golden/vectors.ts';
import { DEFAULT_LINK_CONFIG, INITIAL_LINK, type LinkConfig, type LinkState, step } from './link.ts';

const { frames } = loadFrameVectors();
const vector = (prefix: string) => frames.find((v) => v.name.startsWith(prefix))!;
const SERVER = { bytes: 1 as const, value: 1 };
const CONFIG: ClientConfig = { client: 16, server: SERVER, propose: {}, maxMessageBytes: 0xffff };

function client(config: ClientConfig = CONFIG) {
  let state: ClientState = INITIAL_CLIENT;
  let effects: ClientEffect[] = [];
  const run = (event: ClientEvent) => {
    ({ state, effects } = clientStep(config, state, event));
    return effects.flatMap((e) => (e.kind === 'send' ? [toHex(encodeFrame(e.frame))] : []));
  };
  return {
    run,
    frame: (hex: string) => {
      const r = decodeFrame(fromHex(hex));
      if (!r.ok) throw new Error(r.error.message);
      return run({ kind: 'frame', frame: r.frame });
    },
    get state() {
      return state;
    },
    get effects() {
      return effects;
    },
  };
}

describe('[HD-11] a public Gurux client session, written byte for byte', () => {
  it('SNRM, AARQ, a GET and the RR that polls for its second segment', () => {
    const c = client();
    expect(c.run({ kind: 'connect' })).toEqual([vector('[HD-4.1] SNRM, client 16').hex]);
    c.frame(vector('[HD-6.1] UA with 1-byte lengths').hex);
    // [HD-11.1] The meter receives 62 and sends 128: the client sends 62 and receives 128.
    expect(c.effects).toEqual([
      { kind: 'connected', params: { maxInfoTx: 62, maxInfoRx: 128, windowTx: 1, windowRx: 1 } },
    ]);
    const aarq = vector('[HD-5.1] I-frame N(S)=0 N(R)=0 with an AARQ (SN');
    expect(c.run({ kind: 'request', apdu: fromHex(aarq.decoded.info).slice(3) })).toEqual([aarq.hex]);
    const aare = vector('[HD-5.1] I-frame N(S)=0 N(R)=1 with the AARE after');
    expect(c.frame(aare.hex)).toEqual([]);
    expect(c.effects).toEqual([{ kind: 'response', apdu: fromHex(aare.decoded.info).slice(3) }]);
    expect(c.run({ kind: 'request', apdu: fromHex('05 01 02 FA 08') })).toEqual([
      '7E A0 11 03 21 32 B7 3D E6 E6 00 05 01 02 FA 08 18 9E 7E',
    ]);
    expect(c.frame(vector('[HD-7.1] first segment of a response').hex)).toEqual([
      vector('[HD-7.2] RR N(R)=2 with P asks').hex,
    ]);
  });
});

describe('[HD-11] our client against our server', () => {
  const serverConfig: LinkConfig = {
    ...DEFAULT_LINK_CONFIG,
    address: SERVER,
    limits: { maxInfoTx: 64, maxInfoRx: 40, windowTx: 1, windowRx: 1 },
  };

  /** Runs both machines over encoded bytes; the server application echoes each request reversed. */
  function wire(lose: (frame: HdlcFrame, n: number) => boolean = () => false) {
    let server: LinkState = INITIAL_LINK;
    const c = client({ ...CONFIG, propose: { maxInfoTx: 1000, maxInfoRx: 1000 } });
    let sent = 0;
    const responses: Uint8Array[] = [];
    const deliver = (clientFrames: HdlcFrame[]) => {
      let queue = clientFrames;
      while (queue.length > 0) {
        const next: HdlcFrame[] = [];
        for (const f of queue) {
          if (lose(f, sent++)) continue;
          const bytes = decodeFrame(encodeFrame(f));
          if (!bytes.ok) throw new Error('bad frame');
          let r = step(serverConfig, server, { kind: 'frame', frame: bytes.frame, atMs: 0 });
          server = r.state;
          const apdu = r.effects.find((e) => e.kind === 'deliver');
          const out = r.effects.flatMap((e) => (e.kind === 'send' ? [e.frame] : []));
          if (apdu?.kind === 'deliver') {
            r = step(serverConfig, server, { kind: 'respond', apdu: apdu.apdu.slice().reverse(), atMs: 0 });
            server = r.state;
            out.push(...r.effects.flatMap((e) => (e.kind === 'send' ? [e.frame] : [])));
          }
          for (const reply of out) {
            if (lose(reply, sent++)) continue;
            c.run({ kind: 'frame', frame: reply });
            for (const e of c.effects) {
              if (e.kind === 'send') next.push(e.frame);
              if (e.kind === 'response') responses.push(e.apdu);
            }
          }
        }
        queue = next;
      }
    };
    const run = (event: ClientEvent) => {
      c.run(event);
      deliver(c.effects.flatMap((e) => (e.kind === 'send' ? [e.frame] : [])));
    };
    return { run, responses, client: c, server: () => server };
  }

  it('[HD-6.4, HD-7] negotiates and carries a 500-byte request and its response in 40- and 64-byte segments', () => {
    const w = wire();
    w.run({ kind: 'connect' });
    expect(w.client.state.params).toEqual({ maxInfoTx: 40, maxInfoRx: 64, windowTx: 1, windowRx: 1 });
    const apdu = Uint8Array.from({ length: 500 }, (_, i) => (i * 7) & 0xff);
    w.run({ kind: 'request', apdu });
    expect(w.responses).toEqual([apdu.slice().reverse()]);
    w.run({ kind: 'request', apdu: Uint8Array.of(1, 2, 3) });
    expect(w.responses[1]).toEqual(Uint8Array.of(3, 2, 1));
    w.run({ kind: 'disconnect' });
    expect(w.server().mode).toBe('NDM');
    expect(w.client.state.mode).toBe('NDM');
  });

  it('[HD-9.4] a lost response segment is sent again when the client retries its RR', () => {
    let lost = false;
    const w = wire((f) => {
      if (
        !lost &&
        f.control.type === 'I' &&
        f.control.ns === 1 &&
        f.dest.bytes === 1 &&
        f.dest.value === 16
      ) {
        lost = true;
        return true;
      }
      return false;
    });
    w.run({ kind: 'connect' });
    const apdu = Uint8Array.from({ length: 200 }, (_, i) => i);
    w.run({ kind: 'request', apdu });
    expect(lost).toBe(true);
    expect(w.responses).toEqual([]);
    w.run({ kind: 'retry' });
    expect(w.responses).toEqual([apdu.slice().reverse()]);
  });

  it('[HD-11.2] one request at a time, and none without a link', () => {
    const c = client();
    c.run({ kind: 'request', apdu: Uint8Array.of(1) });
    expect(c.effects).toEqual([{ kind: 'refused', rule: 'HD-11.2', reason: 'no link (NDM)' }]);
    c.run({ kind: 'connect' });
    c.frame(vector('[HD-6.1] UA with 1-byte lengths').hex);
    c.run({ kind: 'request', apdu: Uint8Array.of(1) });
    c.run({ kind: 'request', apdu: Uint8Array.of(2) });
    expect(c.effects[0]).toMatchObject({ kind: 'refused', rule: 'HD-11.2' });
  });

  it('[HD-11.4] DM and FRMR end the link', () => {
    const c = client();
    c.run({ kind: 'connect' });
    c.frame(vector('[HD-9.7] DM with F').hex);
    expect(c.effects).toEqual([{ kind: 'disconnected', reason: 'dm' }]);
    expect(c.state.mode).toBe('NDM');
  });
});
