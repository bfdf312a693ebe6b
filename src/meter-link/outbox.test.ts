// [MC-7.6] [SP-7.4] [MC-7.3] The one telemetry outbox: failed messages are retried whole and before newer
// samples, so every message the broker gets is ascending and every sample arrives once; bounded.
import { describe, expect, it } from 'vitest';
import { MAX_SAMPLES } from '../../firmware-protocol/mqtt/schemas.ts';
import type { Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { batchLength, MAX_MESSAGES_IN_FLIGHT, OUTBOX_LIMIT, Outbox } from './outbox.ts';

const sample = (ts: number, energy = ts): Sample => ({
  ts,
  energy,
  active_power: 0,
  voltage: 230,
  balance: 0,
});

describe('[MC-7.6] Outbox', () => {
  it('[MC-7.3] retries failed messages whole, oldest first: each message ascends, each sample once', () => {
    const outbox = new Outbox();
    const delivered: number[][] = [];
    let calls = 0;
    const pending: (() => void)[] = [];
    const flush = (): void => {
      for (let batch = outbox.take(); batch !== null; batch = outbox.take()) {
        const sent = batch;
        const n = calls++;
        // The broker acks out of order; the first two messages fail.
        pending.push(() => {
          const err = n < 2 ? new Error('broker away') : undefined;
          if (!err) delivered.push(sent.map((s) => s.ts));
          outbox.settle(sent, err);
          flush();
        });
      }
    };
    for (let ts = 1; ts <= 2500; ts++) outbox.push(sample(ts));
    flush();
    while (pending.length > 0) pending.splice(pending.length - 1, 1)[0]!();
    for (const m of delivered) expect(m).toEqual([...m].sort((a, b) => a - b));
    expect(delivered.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    expect(outbox.pending).toBe(0);
  });

  it(`[MC-7.2] messages of at most ${MAX_SAMPLES} samples; a backlog one at a time, single samples ${MAX_MESSAGES_IN_FLIGHT} at a time`, () => {
    const outbox = new Outbox();
    for (let ts = 1; ts <= MAX_SAMPLES * 3; ts++) outbox.push(sample(ts));
    const first = outbox.take();
    expect(first).toHaveLength(MAX_SAMPLES);
    expect(outbox.take()).toBeNull();
    outbox.settle(first!, undefined);
    expect(outbox.take()?.[0]?.ts).toBe(MAX_SAMPLES + 1);

    const single = new Outbox();
    const taken: Sample[][] = [];
    for (let ts = 1; ts <= 20; ts++) {
      single.push(sample(ts, 20 - ts)); // each a rollover: one sample per message [MC-7.10]
      for (let b = single.take(); b !== null; b = single.take()) taken.push(b);
    }
    expect(taken).toHaveLength(MAX_MESSAGES_IN_FLIGHT);
  });

  it(`[MC-7.6] keeps the newest ${OUTBOX_LIMIT} samples and says how many it dropped`, () => {
    const told: [number, number][] = [];
    const outbox = new Outbox({ limit: 3, onOverflow: (n, all) => told.push([n, all]) });
    for (let ts = 1; ts <= 5; ts++) outbox.push(sample(ts));
    expect(outbox.take()?.map((s) => s.ts)).toEqual([3, 4, 5]);
    expect(told).toEqual([
      [1, 1],
      [1, 2],
    ]);
    expect(() => new Outbox({ limit: 0 })).toThrow(TypeError);
  });

  it('a link that dies puts what was in flight back first, in the order it went out; a partial message can wait', () => {
    const outbox = new Outbox();
    for (let ts = 1; ts <= 3; ts++) outbox.push(sample(ts));
    expect(outbox.take()).toHaveLength(3);
    outbox.push(sample(4));
    outbox.requeueInFlight();
    expect(outbox.take(false)).toBeNull(); // less than a full message: held for a batch
    expect(outbox.take(true)?.map((s) => s.ts)).toEqual([1, 2, 3, 4]);
    outbox.clear();
    expect([outbox.pending, outbox.lastTs]).toEqual([0, 0]);
  });

  it('[MC-7.3] [MC-7.10] a message is cut where ts stops ascending and where the register rolled over', () => {
    expect(batchLength([sample(1), sample(2), sample(2), sample(3)], 10)).toBe(2);
    expect(batchLength([sample(1, 99), sample(2, 1)], 10)).toBe(1);
    expect(batchLength([sample(1, 99), { ...sample(2, 1), register_epoch: 1 }], 10)).toBe(2);
    expect(batchLength([sample(1), sample(2), sample(3)], 2)).toBe(2);
  });
});
