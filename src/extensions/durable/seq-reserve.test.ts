import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/bus.ts';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.ts';
import { useTempStores } from '../../store/test-helpers.ts';
import { SEQ_SETTING, SeqReserve } from './seq-reserve.ts';

const stores = useTempStores();

async function busOn(store: Parameters<typeof SeqReserve.open>[0], block = 1_000) {
  const seqs = await SeqReserve.open(store, { block });
  const bus = new EventBus({ now: () => 0, firstSeq: seqs.firstSeq });
  seqs.watch(bus);
  return { seqs, bus };
}

describe('SeqReserve', () => {
  it('starts a fresh store at 1 and reserves a block before anything is handed out', async () => {
    const store = stores.open();
    const { seqs, bus } = await busOn(store);
    expect(seqs.firstSeq).toBe(1);
    expect(bus.nextSeq).toBe(1);
    expect(await store.getSetting(SEQ_SETTING)).toBe('1000');
  });

  it('answered requests move the mark too: a crash after a burst of them starts past every seq [EXT-7]', async () => {
    const path = join(stores.dir(), 'requests.db');
    const first = openSqliteStore({ path });
    const { bus } = await busOn(first);
    const data = { method: 'GET', route: '/x', url: '/x', status: 200, latency_ms: 1, account_id: null };
    // Requests reach no subscriber (bus.request): the reserve must watch them itself.
    for (let i = 0; i < 5_000; i++) bus.request({ ...data });
    const last = bus.nextSeq - 1;
    const second = openSqliteStore({ path });
    const after = await SeqReserve.open(second, { block: 1_000 });
    expect(after.firstSeq).toBeGreaterThan(last);
    await second.close();
    await first.close();
  });

  it('after a crash mid-burst (no close, the store reopened by another handle) starts past every seq used', async () => {
    const path = join(stores.dir(), 'crash.db');
    const first = openSqliteStore({ path });
    const { bus } = await busOn(first);
    // One synchronous burst of 25 blocks, as a clock jump could emit: nothing else runs meanwhile.
    let last = 0;
    for (let i = 0; i < 25_000; i++) last = bus.emit('log', { level: 'info', msg: 'x' })!.seq;
    // The "crash": the first handle is never closed or flushed; a new process opens the file.
    const second = openSqliteStore({ path });
    const after = await SeqReserve.open(second, { block: 1_000 });
    expect(after.firstSeq).toBeGreaterThan(last);
    // It only skips what it must: at most a block and a half beyond the last seq used.
    expect(after.firstSeq).toBeLessThanOrEqual(last + 1_501);
    await second.close();
    await first.close();
  });

  it('writes the mark once per half block, and never below a floor it is given', async () => {
    const store = stores.open();
    let writes = 0;
    const counting = {
      getSetting: (k: string) => store.getSetting(k),
      setSetting: (k: string, v: string) => {
        writes++;
        return store.setSetting(k, v);
      },
    };
    const { bus } = await busOn(counting, 1_000);
    writes = 0;
    for (let i = 0; i < 10_000; i++) bus.emit('log', { level: 'info', msg: 'x' });
    expect(writes).toBeGreaterThanOrEqual(19);
    expect(writes).toBeLessThanOrEqual(21);
    const again = await SeqReserve.open(store, { block: 1_000, floor: 50_000 });
    expect(again.firstSeq).toBe(50_001);
  });

  it('refuses a mark that is not a sequence number, and a bad block', async () => {
    const store = stores.open();
    await store.setSetting(SEQ_SETTING, 'twelve');
    await expect(SeqReserve.open(store)).rejects.toThrow(/not a sequence number/);
    await expect(SeqReserve.open(stores.open('b.db'), { block: 1 })).rejects.toThrow(/block/);
  });
});
