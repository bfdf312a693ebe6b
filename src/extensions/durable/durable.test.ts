import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/bus.ts';
import { parseTypeList } from '../../events/filter.ts';
import { Metrics } from '../../events/metrics.ts';
import { useTempStores } from '../../store/test-helpers.ts';
import { DURABLE_METRICS, DurableEvents } from './durable.ts';

const stores = useTempStores();
const relay = { commanded: false, effective: false, was: { commanded: true, effective: true } };

describe('DurableEvents', () => {
  it('writes only durable types, off the emit path, and reads them back as they were emitted', async () => {
    const store = stores.open();
    const durable = await DurableEvents.open({ store, delayMs: 10 });
    const bus = new EventBus({ now: () => 7, wall: () => 8 });
    durable.watch(bus);
    const cut = bus.emit('meter.cutoff', { balance: -3 }, { deviceId: 'A', accountId: 1 })!;
    bus.emit('log', { level: 'info', msg: 'not durable' });
    const rel = bus.emit('meter.relay', relay, { deviceId: 'B' })!;
    // Nothing written synchronously by emit.
    expect((await store.eventStats()).count).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(await store.eventStats()).toEqual({ count: 2, maxSeq: 3 });
    const all = await durable.read({ afterSeq: 0, upToSeq: 10, filter: {}, limit: 10 });
    expect(all).toEqual([cut, rel]);
    const onlyB = await durable.read({ afterSeq: 0, upToSeq: 10, filter: { deviceId: 'B' }, limit: 10 });
    expect(onlyB).toEqual([rel]);
    const t = parseTypeList('meter.cutoff,log');
    if (!t.ok) throw new Error('parse');
    expect(await durable.read({ afterSeq: 0, upToSeq: 10, filter: { types: t.types }, limit: 10 })).toEqual([
      cut,
    ]);
  });

  it('read flushes first: an event emitted just before is there', async () => {
    const store = stores.open();
    const durable = await DurableEvents.open({ store, delayMs: 60_000 });
    const bus = new EventBus({ now: () => 0 });
    durable.watch(bus);
    const e = bus.emit('money.recharge', {
      outcome: 'applied',
      transaction_id: 't1',
      amount: 100,
      ledger_seq: 4,
      balance: 100,
    })!;
    expect(await durable.read({ afterSeq: 0, upToSeq: 5, filter: {}, limit: 5 })).toEqual([e]);
  });

  it('keeps the newest `keep`, deleting the oldest in batches once past keep + a slack', async () => {
    const store = stores.open();
    const durable = await DurableEvents.open({ store, keep: 100, pruneSlack: 30, pruneBatch: 7, delayMs: 1 });
    const bus = new EventBus({ now: () => 0 });
    durable.watch(bus);
    for (let i = 0; i < 129; i++) bus.emit('meter.cutoff', { balance: -i });
    await durable.flush();
    expect((await store.eventStats()).count).toBe(129); // under keep + batch: not yet
    bus.emit('meter.cutoff', { balance: -1 });
    await durable.flush();
    expect(await store.eventStats()).toEqual({ count: 100, maxSeq: 130 });
    const rows = await store.readEvents({ afterSeq: 0, upToSeq: 1_000, limit: 1_000 });
    expect(rows[0]!.seq).toBe(31);
  });

  it('writes a burst in transactions of at most 2,000, letting the loop run between them', async () => {
    const store = stores.open();
    const sizes: number[] = [];
    let ticks = 0;
    const counting = {
      appendEvents: (rows: Parameters<typeof store.appendEvents>[0]) => {
        sizes.push(rows.length);
        return store.appendEvents(rows);
      },
      readEvents: store.readEvents.bind(store),
      eventStats: store.eventStats.bind(store),
      deleteOldestEvents: store.deleteOldestEvents.bind(store),
    };
    const durable = await DurableEvents.open({ store: counting });
    const bus = new EventBus({ now: () => 0 });
    durable.watch(bus);
    for (let i = 0; i < 9_000; i++) bus.emit('meter.relay', relay, { deviceId: 'A' });
    const ticker = setInterval(() => ticks++, 0);
    await durable.flush();
    clearInterval(ticker);
    expect(sizes).toEqual([2_000, 2_000, 2_000, 2_000, 1_000]);
    expect(ticks).toBeGreaterThan(0);
    expect((await store.eventStats()).count).toBe(9_000);
  });

  it('a failing store: the events wait in a bounded queue and are written when it recovers', async () => {
    const store = stores.open();
    let failing = true;
    const logs: string[] = [];
    const flaky = {
      appendEvents: (rows: Parameters<typeof store.appendEvents>[0]) =>
        failing ? Promise.reject(new Error('disk full')) : store.appendEvents(rows),
      readEvents: store.readEvents.bind(store),
      eventStats: store.eventStats.bind(store),
      deleteOldestEvents: store.deleteOldestEvents.bind(store),
    };
    const metrics = new Metrics();
    const durable = await DurableEvents.open({
      store: flaky,
      maxQueue: 5,
      log: (_l, m) => logs.push(m),
      metrics,
    });
    const lost = () => metrics.value(DURABLE_METRICS.lost)!;
    const bus = new EventBus({ now: () => 0 });
    durable.watch(bus);
    for (let i = 0; i < 8; i++) bus.emit('meter.cutoff', { balance: -i });
    await durable.flush();
    expect(logs[0]).toMatch(/disk full/);
    expect(lost()).toBeGreaterThanOrEqual(3);
    failing = false;
    await durable.flush();
    // The newest were kept; what went is counted.
    const rows = await store.readEvents({ afterSeq: 0, upToSeq: 100, limit: 100 });
    expect(rows.map((r) => r.seq)).toEqual([4, 5, 6, 7, 8].slice(-rows.length));
    expect(rows.length + lost()).toBe(8);
    expect(rows.length).toBeLessThanOrEqual(5);
    await durable.close();
  });
});
