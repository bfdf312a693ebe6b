import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/bus.ts';
import { parseTypeList } from '../../events/filter.ts';
import type { MeterEvent } from '../../events/schemas.ts';
import { approxBytes, Journal } from './journal.ts';

function busWithJournal(opts: ConstructorParameters<typeof Journal>[0] = {}, firstSeq = 1) {
  const bus = new EventBus({ now: () => 0, wall: () => 0, firstSeq });
  const journal = new Journal({ ...opts, firstSeq: bus.nextSeq });
  bus.subscribe((e) => journal.push(e));
  return { bus, journal };
}

const seqs = (events: MeterEvent[]) => events.map((e) => e.seq);

function summary(bus: EventBus, n: number) {
  bus.emit('telemetry.summary', { interval_ms: 1000, messages: n, samples: n, meters: [] });
}

describe('Journal', () => {
  it('keeps the newest `capacity` events when the ring wraps, oldest first', () => {
    const { bus, journal } = busWithJournal({ capacity: 5 });
    for (let i = 0; i < 12; i++) bus.emit('log', { level: 'info', msg: `m${i}` });
    expect(journal.size).toBe(5);
    expect(journal.oldestSeq).toBe(8);
    expect(journal.lastSeq).toBe(12);
    expect(seqs(journal.after(0, {}, 100))).toEqual([8, 9, 10, 11, 12]);
    expect(seqs(journal.after(9, {}, 100))).toEqual([10, 11, 12]);
    expect(seqs(journal.after(9, {}, 2))).toEqual([10, 11]);
    expect(seqs(journal.after(12, {}, 100))).toEqual([]);
    expect(seqs(journal.newest({}, 3))).toEqual([10, 11, 12]);
  });

  it('filters by type, family and device, and a limit counts only matches', () => {
    const { bus, journal } = busWithJournal({ capacity: 100 });
    bus.emit('meter.cutoff', { balance: -1 }, { deviceId: 'A' }); // 1
    bus.emit('log', { level: 'info', msg: 'x' }); // 2
    bus.emit('meter.restored', { balance: 5 }, { deviceId: 'B' }); // 3
    bus.emit('clock.speed', { speed: 2, was: 1 }); // 4
    bus.emit('meter.cutoff', { balance: -2 }, { deviceId: 'B' }); // 5
    const meters = parseTypeList('meter.*');
    if (!meters.ok) throw new Error('meter.* must parse');
    expect(seqs(journal.after(0, { types: meters.types }, 100))).toEqual([1, 3, 5]);
    expect(seqs(journal.after(0, { deviceId: 'B' }, 100))).toEqual([3, 5]);
    expect(seqs(journal.after(0, { types: meters.types, deviceId: 'B' }, 1))).toEqual([3]);
    expect(seqs(journal.newest({ types: meters.types }, 2))).toEqual([3, 5]);
  });

  it('keeps only the newest telemetry.summary, in its place by seq', () => {
    const { bus, journal } = busWithJournal({ capacity: 100 });
    bus.emit('log', { level: 'info', msg: 'a' }); // 1
    summary(bus, 1); // 2
    bus.emit('log', { level: 'info', msg: 'b' }); // 3
    summary(bus, 2); // 4
    bus.emit('log', { level: 'info', msg: 'c' }); // 5
    expect(journal.size).toBe(3);
    expect(seqs(journal.after(0, {}, 100))).toEqual([1, 3, 4, 5]);
    expect(seqs(journal.after(4, {}, 100))).toEqual([5]);
    expect(seqs(journal.after(0, {}, 2))).toEqual([1, 3]);
    expect(seqs(journal.after(0, {}, 3))).toEqual([1, 3, 4]);
    expect(seqs(journal.newest({}, 2))).toEqual([4, 5]);
    expect(seqs(journal.newest({}, 3))).toEqual([3, 4, 5]);
    summary(bus, 3); // 6: newest last
    expect(seqs(journal.after(3, {}, 100))).toEqual([5, 6]);
    expect(seqs(journal.newest({}, 1))).toEqual([6]);
  });

  it('is bounded in bytes too: big events push old ones out', () => {
    const { bus, journal } = busWithJournal({ capacity: 1000, maxBytes: 100_000 });
    const big = 'x'.repeat(20_000); // ~40 KB each
    for (let i = 0; i < 10; i++) bus.emit('log', { level: 'info', msg: big });
    expect(journal.bytes).toBeLessThanOrEqual(100_000);
    expect(journal.size).toBe(2);
    expect(journal.oldestSeq).toBe(9);
    // One alone bigger than the bound is not kept, and counts as gone.
    bus.emit('log', { level: 'info', msg: 'y'.repeat(60_000) });
    expect(journal.oldestSeq).toBe(12);
    expect(journal.size).toBe(0);
    expect(
      approxBytes({ seq: 1, type: 'log', vt: 0, wt: 0, data: { level: 'info', msg: big } }),
    ).toBeGreaterThan(40_000);
  });

  it('starts where the bus starts (after a restart, seq 5001): nothing before is claimed in memory', () => {
    const { bus, journal } = busWithJournal({ capacity: 10 }, 5001);
    expect(journal.oldestSeq).toBe(5001);
    expect(journal.lastSeq).toBe(5000);
    bus.emit('log', { level: 'info', msg: 'a' });
    expect(seqs(journal.after(0, {}, 10))).toEqual([5001]);
  });

  it('finds its start by binary search: 10,000 queries on a full ring of 100,000 are fast', () => {
    const { bus, journal } = busWithJournal({ capacity: 100_000 });
    for (let i = 0; i < 150_000; i++) bus.emit('clock.speed', { speed: 1, was: 1 });
    const t0 = performance.now();
    for (let i = 0; i < 10_000; i++) journal.after(149_990, {}, 10);
    const ms = performance.now() - t0;
    expect(seqs(journal.after(149_990, {}, 10))).toEqual([
      149_991, 149_992, 149_993, 149_994, 149_995, 149_996, 149_997, 149_998, 149_999, 150_000,
    ]);
    // A scan from the oldest would read 100,000 events per query: ~seconds in all.
    expect(ms).toBeLessThan(500);
  });

  it('refuses bad options with a TypeError naming them', () => {
    expect(() => new Journal({ capacity: 0 })).toThrow(/capacity/);
    expect(() => new Journal({ maxBytes: -1 })).toThrow(/maxBytes/);
    expect(() => new Journal({ firstSeq: 0 })).toThrow(/firstSeq/);
  });
});

describe('parseTypeList', () => {
  it('takes types and families, and names what it does not know', () => {
    const ok = parseTypeList('money.*,meter.relay,log');
    expect(ok.ok && [...ok.types].sort()).toEqual(['log', 'meter.relay', 'money.recharge']);
    expect(parseTypeList('meter.relay,meter.bogus')).toEqual({ ok: false, bad: 'meter.bogus' });
    expect(parseTypeList('nope.*')).toEqual({ ok: false, bad: 'nope.*' });
    expect(parseTypeList('')).toEqual({ ok: false, bad: '' });
  });
});
