// Issue 12 §1, link faults as pure decisions (simulator/link-faults.ts): each kind's effect on one
// reply, one command, one sample, and the same seed giving the same decisions.

import { describe, expect, it } from 'vitest';
import { decode } from '../../firmware-protocol/mqtt/codec.ts';
import type { Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import {
  commandGate,
  emptyHold,
  flappingOff,
  linkHeldDown,
  malformedReply,
  releaseHeld,
  replyDelayMs,
  replyFate,
  shapeSample,
} from '../../simulator/link-faults.ts';
import type { Fault, FaultOf } from '../../simulator/meter/faults/types.ts';
import { batchLength } from '../../src/meter-link/outbox.ts';
import { faultBody } from '../../src/world/fault-schemas.ts';

const T0 = Date.UTC(2026, 0, 1);
function fault<F extends Fault>(f: Omit<F, 'id' | 'from' | 'until' | 'seed'> & Partial<F>): F {
  return { id: 'F1', from: T0, until: null, seed: 7, ...f } as F;
}
const sample = (i: number): Sample => ({ ts: T0 + i * 60_000, energy: i / 100 }) as Sample;
const ids = Array.from({ length: 400 }, (_, i) => `cmd-${i}`);

describe('replies', () => {
  it('no fault: every reply is sent at once', () => {
    expect(replyFate([], 'a', T0)).toEqual({ kind: 'send', delayMs: 0 });
  });

  it('reply_drop p=1 drops every reply while active, none before or after', () => {
    const f = fault<FaultOf<'reply_drop'>>({
      kind: 'reply_drop',
      params: { probability: 1 },
      until: T0 + 1000,
    });
    expect(replyFate([f], 'a', T0)).toEqual({ kind: 'drop' });
    expect(replyFate([f], 'a', T0 - 1).kind).toBe('send');
    expect(replyFate([f], 'a', T0 + 1000).kind).toBe('send');
  });

  it('reply_drop p=0.3 drops about 30 %, the same commands for the same seed, others for another', () => {
    const f = fault<FaultOf<'reply_drop'>>({ kind: 'reply_drop', params: { probability: 0.3 } });
    const dropped = (seed: number) => ids.filter((id) => replyFate([{ ...f, seed }], id, T0).kind === 'drop');
    const a = dropped(7);
    expect(a.length).toBeGreaterThan(80);
    expect(a.length).toBeLessThan(160);
    expect(dropped(7)).toEqual(a);
    expect(dropped(8)).not.toEqual(a);
  });

  it('reply_delay: a fixed delay, or one drawn per command id in [min, max], the same each time', () => {
    const fixed = fault<FaultOf<'reply_delay'>>({ kind: 'reply_delay', params: { delay_ms: 250 } });
    expect(replyFate([fixed], 'x', T0)).toEqual({ kind: 'send', delayMs: 250 });
    const range = fault<FaultOf<'reply_delay'>>({
      kind: 'reply_delay',
      params: { min_ms: 100, max_ms: 500 },
    });
    const delays = ids.map((id) => replyDelayMs(range, id));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...delays)).toBeLessThanOrEqual(500);
    expect(new Set(delays).size).toBeGreaterThan(100);
    expect(ids.map((id) => replyDelayMs(range, id))).toEqual(delays);
  });

  it('malformed_reply: bytes the codec refuses [MC-9.3]', () => {
    const f = fault<FaultOf<'malformed_reply'>>({ kind: 'malformed_reply', params: { probability: 1 } });
    expect(replyFate([f], 'abc', T0)).toEqual({ kind: 'malformed' });
    expect(decode('reply', malformedReply('abc')).ok).toBe(false);
  });
});

describe('commands', () => {
  it('busy p=1 refuses with the contract code busy [MC-8.7]; silence ignores; none applies', () => {
    const busy = fault<FaultOf<'busy'>>({ kind: 'busy', params: { probability: 1 } });
    expect(commandGate([busy], 'a', T0)).toMatchObject({
      kind: 'busy',
      reply: { ok: false, error: { code: 'busy' } },
    });
    const silence = fault<FaultOf<'silence'>>({ kind: 'silence', params: {} });
    expect(commandGate([silence, busy], 'a', T0)).toEqual({ kind: 'ignore' });
    expect(commandGate([], 'a', T0)).toEqual({ kind: 'apply' });
  });
});

describe('the connection', () => {
  it('flapping: online_s up, offline_s down, over and over from its start (virtual time)', () => {
    const f = fault<FaultOf<'flapping'>>({ kind: 'flapping', params: { online_s: 60, offline_s: 30 } });
    const at = (s: number) => flappingOff(f, T0 + s * 1000);
    expect([0, 59, 60, 89, 90, 149, 150, 179, 180].map(at)).toEqual([
      false,
      false,
      true,
      true,
      false,
      false,
      true,
      true,
      false,
    ]);
    expect(linkHeldDown([f], T0 + 70_000)).toBe(true);
  });

  it('power_outage holds the link down while active', () => {
    const f = fault<FaultOf<'power_outage'>>({ kind: 'power_outage', params: {}, until: T0 + 5000 });
    expect(linkHeldDown([f], T0 + 1)).toBe(true);
    expect(linkHeldDown([f], T0 + 5000)).toBe(false);
  });
});

describe('telemetry', () => {
  it('backlog_burst holds every sample while active and lets them all go, in order, at its end', () => {
    const f = fault<FaultOf<'backlog_burst'>>({ kind: 'backlog_burst', params: {}, until: sample(100).ts });
    const hold = emptyHold();
    const sent: Sample[] = [];
    for (let i = 0; i < 100; i++) sent.push(...shapeSample(hold, [f], sample(i)));
    expect(sent).toEqual([]);
    expect(releaseHeld(hold, [f], sample(99).ts)).toEqual([]);
    const burst = releaseHeld(hold, [f], sample(100).ts);
    expect(burst.map((s) => s.ts)).toEqual(Array.from({ length: 100 }, (_, i) => sample(i).ts));
    expect(releaseHeld(hold, [f], sample(101).ts)).toEqual([]);
  });

  it('a backlog is let go when its fault is cleared', () => {
    const f = fault<FaultOf<'backlog_burst'>>({ kind: 'backlog_burst', params: {} });
    const hold = emptyHold();
    shapeSample(hold, [f], sample(1));
    expect(releaseHeld(hold, [], sample(2).ts)).toEqual([sample(1)]);
  });

  it('duplicate_samples p=1 sends each sample twice', () => {
    const f = fault<FaultOf<'duplicate_samples'>>({ kind: 'duplicate_samples', params: { probability: 1 } });
    expect(shapeSample(emptyHold(), [f], sample(1))).toEqual([sample(1), sample(1)]);
  });

  it('out_of_order p=1: each held sample goes after the next; nothing is lost', () => {
    const f = fault<FaultOf<'out_of_order'>>({ kind: 'out_of_order', params: { probability: 1 } });
    const hold = emptyHold();
    const sent = [0, 1, 2, 3, 4].flatMap((i) => shapeSample(hold, [f], sample(i)));
    expect(sent.map((s) => s.ts - T0)).toEqual([1, 0, 3, 2].map((i) => i * 60_000));
    expect(releaseHeld(hold, [], sample(5).ts)).toEqual([sample(4)]);
  });

  it('the same seed duplicates and reorders the same samples (keyed by ts, not by call order)', () => {
    const faults: Fault[] = [
      fault<FaultOf<'duplicate_samples'>>({ kind: 'duplicate_samples', params: { probability: 0.2 } }),
      fault<FaultOf<'out_of_order'>>({ id: 'F2', kind: 'out_of_order', params: { probability: 0.2 } }),
    ];
    const run = () => {
      const hold = emptyHold();
      return Array.from({ length: 300 }, (_, i) => shapeSample(hold, faults, sample(i))).flat();
    };
    const a = run();
    expect(run()).toEqual(a);
    const ts = a.map((s) => s.ts);
    expect(ts.length).toBeGreaterThan(320); // some duplicates
    expect(ts.some((t, i) => i > 0 && t < ts[i - 1]!)).toBe(true); // some out of order
    expect(new Set(ts).size).toBeGreaterThanOrEqual(299); // none lost but perhaps the one still held
  });

  it('[MC-7.3] a message is cut where ts stops ascending, and holds at most max samples', () => {
    const s = [1, 2, 3, 3, 5, 4, 6].map(sample);
    expect(batchLength(s, 1000)).toBe(3);
    expect(batchLength(s.slice(3), 1000)).toBe(2);
    expect(batchLength(s.slice(5), 1000)).toBe(2);
    expect(batchLength(s, 2)).toBe(2);
    expect(batchLength([], 1000)).toBe(0);
  });
});

describe('the POST body of reply_delay', () => {
  const issues = (b: Record<string, unknown>) => {
    const r = faultBody.safeParse({ kind: 'reply_delay', ...b });
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('takes a fixed delay_ms, or both min_ms and max_ms with min ≤ max; nothing else', () => {
    expect(issues({ delay_ms: 200 })).toEqual([]);
    expect(issues({ min_ms: 100, max_ms: 100 })).toEqual([]);
    const either = 'delay_ms: give either delay_ms, or both min_ms and max_ms';
    expect(issues({})).toEqual([either]);
    expect(issues({ min_ms: 100 })).toEqual([either]);
    expect(issues({ delay_ms: 5, min_ms: 1, max_ms: 3 })).toEqual([either]);
    expect(issues({ min_ms: 9, max_ms: 5 })).toEqual(['min_ms: min_ms must not exceed max_ms']);
  });
});
