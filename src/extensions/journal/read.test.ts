import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/bus.ts';
import type { EventFilter } from '../../events/filter.ts';
import { DURABLE_TYPES, type MeterEvent } from '../../events/schemas.ts';
import type { DurableSource } from '../../events/views.ts';
import { Journal } from './journal.ts';
import { readJournal } from './read.ts';

/** A bus, a journal of `capacity`, and a store that keeps every durable event (as durable.ts does). */
function setup(capacity: number) {
  const bus = new EventBus({ now: () => 0, wall: () => 0 });
  const journal = new Journal({ capacity, firstSeq: bus.nextSeq });
  const stored: MeterEvent[] = [];
  bus.subscribe((e) => journal.push(e));
  bus.subscribe((e) => DURABLE_TYPES.has(e.type) && stored.push(e));
  let duringRead = () => {};
  const durable: DurableSource = {
    async read(q) {
      const fits = (e: MeterEvent) =>
        e.seq > q.afterSeq &&
        e.seq <= q.upToSeq &&
        (q.filter.types === undefined || q.filter.types.has(e.type)) &&
        (q.filter.deviceId === undefined || e.device_id === q.filter.deviceId);
      const all = stored.filter(fits);
      const rows = q.newest ? all.slice(-q.limit) : all.slice(0, q.limit);
      // What a busy service does while the store answers: emit more.
      await Promise.resolve();
      duringRead();
      return rows;
    },
  };
  return { bus, journal, durable, setDuringRead: (f: () => void) => (duringRead = f) };
}

const cutoff = (bus: EventBus, i: number) => bus.emit('meter.cutoff', { balance: -i }, { deviceId: 'A' })!;
const noise = (bus: EventBus) => bus.emit('log', { level: 'info', msg: 'x' })!;
const all: EventFilter = {};

describe('readJournal', () => {
  it('before memory reads the store, marks where durable-only ends, and pages on without a gap', async () => {
    const { bus, journal, durable } = setup(4);
    const cuts = [1, 2, 3].map((i) => cutoff(bus, i));
    for (let i = 0; i < 6; i++) noise(bus); // the ring now holds only noise (seqs 6..9)
    const a = await readJournal(journal, durable, { since: 0, filter: all, limit: 100 });
    expect(a.events.map((e) => e.seq)).toEqual([1, 2, 3, 6, 7, 8, 9]);
    expect(a.oldest_seq).toBe(6);
    expect(a.durable_only_before).toBe(6);
    expect(a.next_since).toBe(9);
    const p1 = await readJournal(journal, durable, { since: 0, filter: all, limit: 2 });
    expect(p1.events).toEqual(cuts.slice(0, 2));
    const p2 = await readJournal(journal, durable, { since: p1.next_since, filter: all, limit: 2 });
    expect(p2.events.map((e) => e.seq)).toEqual([3, 6]);
  });

  it('when the ring moves on while the store answers, reads the store again up to it: no gap', async () => {
    const { bus, journal, durable, setDuringRead } = setup(3);
    cutoff(bus, 1);
    for (let i = 0; i < 3; i++) noise(bus); // ring: 2..4, seq 1 only in the store
    let once = true;
    setDuringRead(() => {
      if (!once) return;
      once = false;
      // While the first store read is under way: a durable event, then enough noise to push it out.
      cutoff(bus, 5);
      for (let i = 0; i < 3; i++) noise(bus);
    });
    const a = await readJournal(journal, durable, {
      since: 0,
      filter: { types: new Set(['meter.cutoff']) },
      limit: 10,
    });
    expect(a.events.map((e) => e.seq)).toEqual([1, 5]);
    expect(a.next_since).toBe(journal.lastSeq);
  });

  it('without since: the newest, the store filling in what memory lacks', async () => {
    const { bus, journal, durable } = setup(2);
    cutoff(bus, 1);
    cutoff(bus, 2);
    noise(bus);
    noise(bus);
    const a = await readJournal(journal, durable, { filter: all, limit: 3 });
    expect(a.events.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(a.durable_only_before).toBe(3);
    const mem = await readJournal(journal, durable, { filter: all, limit: 2 });
    expect(mem.events.map((e) => e.seq)).toEqual([3, 4]);
    expect(mem.durable_only_before).toBeNull();
    const noStore = await readJournal(journal, null, { since: 0, filter: all, limit: 10 });
    expect(noStore.events.map((e) => e.seq)).toEqual([3, 4]);
    expect(noStore.durable_only_before).toBeNull();
  });
});
