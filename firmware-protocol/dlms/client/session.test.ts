// The client session against golden APDUs: what it sends is byte for byte a public reference's request
// (Gurux's and dlms-cosem's vectors in ../apdu/golden/apdu.json), and what it makes of each answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeApdu } from '../apdu/apdu.ts';
import { fromHex, toHex } from '../apdu/axdr.ts';
import { getResponses } from '../apdu/blocks.ts';
import type { Data } from '../apdu/data.ts';
import { attribute, type Call } from './calls.ts';
import {
  DEFAULT_SESSION,
  INITIAL_SESSION,
  type SessionConfig,
  type SessionEffect,
  type SessionState,
  sessionStep,
} from './session.ts';

const GOLDEN = {
  aarqLls12345678:
    '6036a1090607608574050801018a0207808b0760857405080201ac0a80083132333435363738be10040e01000000065f1f0400007e1f04b0',
  aareAccepted500: '6129a109060760857405080101a203020100a305a103020100be10040e0800065f1f040000501f01f40007',
  aareWrongPassword:
    '6136a109060760857405080101a203020101a305a10302010d88020780890760857405080201be10040e0800065f1f040000101d02000007',
  getClock: 'c001c100080000010000ff0200',
  getNext1: 'c002c100000001',
  actionDisconnect: 'c301c10046000060030aff01010f00',
  actionSuccess: 'c701c00000',
  withListValueAndUndefined: 'c403c102001208fc0104',
  exceptionServiceUnknown: 'd80202',
  rlrq: '6203800100',
  rlre: '6303800100',
};

const CONFIG: SessionConfig = { ...DEFAULT_SESSION, password: '12345678', timeoutMs: 1000, retries: 2 };
const CLOCK = attribute(8, '0.0.1.0.0.255', 2);

/** Runs events in order from a state; returns the last state and every effect, sends as hex. */
function run(state: SessionState, events: Parameters<typeof sessionStep>[2][], config = CONFIG) {
  const effects: (SessionEffect | { kind: 'send'; hex: string })[] = [];
  let s = state;
  for (const e of events) {
    const r = sessionStep(config, s, e);
    s = r.state;
    for (const f of r.effects) effects.push(f.kind === 'send' ? { kind: 'send', hex: toHex(f.apdu) } : f);
  }
  return { state: s, effects };
}

const call = (c: Call, atMs = 0) => ({ kind: 'call' as const, call: c, atMs });
const response = (hex: string, atMs = 0) => ({ kind: 'response' as const, apdu: fromHex(hex), atMs });

function associated(): SessionState {
  const r = run(INITIAL_SESSION, [call({ kind: 'associate' }), response(GOLDEN.aareAccepted500)]);
  expect(r.state.phase).toBe('ready');
  return r.state;
}

describe('[CL-1] association', () => {
  it('[CL-1.1] sends the LLS AARQ of a Gurux client as the meter reader, password 12345678', () => {
    const r = run(INITIAL_SESSION, [call({ kind: 'associate' })]);
    expect(r.effects).toEqual([{ kind: 'send', hex: GOLDEN.aarqLls12345678 }]);
    expect(r.state.phase).toBe('associating');
  });

  it('[CL-1.2][CL-1.3] an accepted AARE gives the server PDU size that bounds requests', () => {
    const r = run(INITIAL_SESSION, [call({ kind: 'associate' }), response(GOLDEN.aareAccepted500)]);
    expect(r.effects.at(-1)).toMatchObject({
      kind: 'done',
      outcome: { kind: 'associated', serverMaxPdu: 500 },
    });
    expect(r.state).toMatchObject({ phase: 'ready', serverMaxPdu: 500, pending: null });
  });

  it('[CL-1.2] a refused AARE fails the call naming the diagnostic, back to idle', () => {
    const r = run(INITIAL_SESSION, [call({ kind: 'associate' }), response(GOLDEN.aareWrongPassword)]);
    expect(r.effects.at(-1)).toMatchObject({
      kind: 'done',
      outcome: {
        kind: 'failed',
        reason: 'refused',
        message: expect.stringContaining('authentication-failure'),
      },
    });
    expect(r.state.phase).toBe('idle');
  });

  it('[CL-1.4] a GET before the association is refused without sending anything', () => {
    const r = run(INITIAL_SESSION, [call({ kind: 'get', attribute: CLOCK })]);
    expect(r.effects).toEqual([
      { kind: 'done', outcome: expect.objectContaining({ reason: 'not_associated' }) },
    ]);
  });
});

describe('[CL-2] calls', () => {
  it('[CL-2.2] GET normal of the clock is Gurux’s request, invoke id 1, confirmed, high priority', () => {
    const r = run(associated(), [call({ kind: 'get', attribute: CLOCK })]);
    expect(r.effects).toEqual([{ kind: 'send', hex: GOLDEN.getClock }]);
  });

  it('[CL-2.1] a second call while one waits is refused, the first goes on', () => {
    const r = run(associated(), [
      call({ kind: 'get', attribute: CLOCK }),
      call({ kind: 'get', attribute: CLOCK }),
    ]);
    expect(r.effects[1]).toMatchObject({ kind: 'done', outcome: { reason: 'busy' } });
    expect(r.state.pending?.call.kind).toBe('get');
  });

  it('[CL-2.2] an answer to another invoke id is dropped and the call still waits', () => {
    const other = encodeApdu({
      type: 'get-response-normal',
      invoke: { id: 7, confirmed: true, highPriority: true },
      result: { kind: 'data', data: { type: 'unsigned', value: 1 } },
    });
    const r = run(associated(), [call({ kind: 'get', attribute: CLOCK }), response(toHex(other))]);
    expect(r.effects.at(-1)).toMatchObject({ kind: 'dropped', rule: 'CL-2.2' });
    expect(r.state.pending).not.toBeNull();
  });

  it('[CL-2.3] ACTION remote_disconnect is Gurux’s request; success is result 0', () => {
    const method = { classId: 70, instance: '0.0.96.3.10.255', methodId: 1 };
    const r = run(associated(), [
      call({ kind: 'action', method, parameters: { type: 'integer', value: 0 } }),
      response('c701c10000'),
    ]);
    expect(r.effects).toEqual([
      { kind: 'send', hex: GOLDEN.actionDisconnect },
      { kind: 'done', outcome: { kind: 'result', result: 0 } },
    ]);
  });

  it('[CL-5.1] GET with-list: a value and object-undefined, each as the server gave it', () => {
    const items = [
      { attribute: attribute(3, '1.0.12.7.0.255', 2) },
      { attribute: attribute(3, '1.0.99.99.0.255', 2) },
    ];
    const r = run(associated(), [
      call({ kind: 'get-list', items }),
      response(GOLDEN.withListValueAndUndefined),
    ]);
    expect(r.effects[0]).toEqual({ kind: 'send', hex: 'c003c102000301000c0700ff020000030100636300ff0200' });
    expect(r.effects[1]).toEqual({
      kind: 'done',
      outcome: {
        kind: 'list',
        results: [
          { kind: 'data', data: { type: 'long-unsigned', value: 2300 } },
          { kind: 'error', result: 4 },
        ],
      },
    });
  });

  it('[CL-5.2] an ExceptionResponse fails the call; the association stays', () => {
    const r = run(associated(), [
      call({ kind: 'get', attribute: CLOCK }),
      response(GOLDEN.exceptionServiceUnknown),
    ]);
    expect(r.effects.at(-1)).toMatchObject({ kind: 'done', outcome: { reason: 'exception' } });
    expect(r.state.phase).toBe('ready');
  });

  it('[CL-7.1] bytes that are no APDU are dropped with their rule', () => {
    const r = run(associated(), [call({ kind: 'get', attribute: CLOCK }), response('ff0102')]);
    expect(r.effects.at(-1)).toMatchObject({ kind: 'dropped', rule: 'AP-1.2' });
  });
});

describe('[CL-4] block transfer', () => {
  const big: Data = {
    type: 'array',
    items: Array.from({ length: 40 }, (_, i) => ({ type: 'double-long-unsigned' as const, value: i * 1000 })),
  };

  it('[CL-4.1] a long GET answer is joined from blocks, asking for each with GetRequestNext', () => {
    const invoke = { id: 1, confirmed: true, highPriority: true };
    const blocks = getResponses(invoke, big, 64);
    expect(blocks.length).toBeGreaterThan(2);
    const events = [
      call({ kind: 'get', attribute: attribute(7, '1.0.99.1.0.255', 2) }),
      ...blocks.map((b) => response(toHex(encodeApdu(b)))),
    ];
    const r = run(associated(), events);
    expect(r.effects[1]).toEqual({ kind: 'send', hex: GOLDEN.getNext1 });
    expect(r.effects.at(-1)).toEqual({ kind: 'done', outcome: { kind: 'data', data: big } });
  });

  it('[CL-4.3] a joined answer over the bound fails as protocol, not memory', () => {
    const invoke = { id: 1, confirmed: true, highPriority: true };
    const blocks = getResponses(invoke, big, 64);
    const r = run(
      associated(),
      [
        call({ kind: 'get', attribute: attribute(7, '1.0.99.1.0.255', 2) }),
        ...blocks.map((b) => response(toHex(encodeApdu(b)))),
      ],
      { ...CONFIG, maxResponseBytes: 100 },
    );
    expect(r.effects.find((e) => e.kind === 'done')).toMatchObject({ outcome: { reason: 'protocol' } });
  });

  it('[CL-4.2] a value longer than the server takes goes in SET blocks, each after its ack', () => {
    const s = { ...associated(), serverMaxPdu: 40 };
    const r = run(s, [
      call({ kind: 'set', attribute: attribute(1, '0.0.96.50.1.255', 2), value: big }),
      response('c502c100000001'),
    ]);
    expect(r.effects[0]).toMatchObject({ kind: 'send', hex: expect.stringMatching(/^c102c1/) });
    expect(r.effects[1]).toMatchObject({ kind: 'send', hex: expect.stringMatching(/^c103c10000000002/) });
  });
});

describe('[CL-3] timeouts', () => {
  it('[CL-3.2][CL-3.3] no answer: the link repeats its frame twice, then the call fails and the association is gone', () => {
    const r = run(associated(), [
      call({ kind: 'get', attribute: CLOCK }, 0),
      { kind: 'tick', atMs: 999 },
      { kind: 'tick', atMs: 1000 },
      { kind: 'tick', atMs: 2000 },
      { kind: 'tick', atMs: 3000 },
    ]);
    expect(r.effects.map((e) => e.kind)).toEqual(['send', 'repeat', 'repeat', 'done']);
    expect(r.effects.at(-1)).toMatchObject({ outcome: { reason: 'timeout' } });
    expect(r.state.phase).toBe('idle');
  });

  it('[CL-3.3] the link going down fails the call in flight', () => {
    const r = run(associated(), [
      call({ kind: 'get', attribute: CLOCK }),
      { kind: 'lost', reason: 'port closed' },
    ]);
    expect(r.effects.at(-1)).toMatchObject({ outcome: { reason: 'lost' } });
    expect(r.state).toMatchObject({ phase: 'idle', pending: null });
  });
});

describe('[CL-6] release', () => {
  it('[CL-6.1] RLRQ normal, RLRE ends the association', () => {
    const r = run(associated(), [call({ kind: 'release' }), response(GOLDEN.rlre)]);
    expect(r.effects).toEqual([
      { kind: 'send', hex: GOLDEN.rlrq },
      { kind: 'done', outcome: { kind: 'released' } },
    ]);
    expect(r.state.phase).toBe('idle');
  });
});

describe('[CL-7] hostile answers', () => {
  it('[CL-7.1] any bytes as an answer, in any phase, never throw: a drop, or the call ends', () => {
    const phases = [associated(), run(associated(), [call({ kind: 'get', attribute: CLOCK })]).state];
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 1 }), (bytes, which) => {
        const r = sessionStep(CONFIG, phases[which]!, { kind: 'response', apdu: bytes, atMs: 1 });
        for (const e of r.effects) expect(['dropped', 'done', 'send']).toContain(e.kind);
      }),
      { numRuns: 2000 },
    );
  });
});
