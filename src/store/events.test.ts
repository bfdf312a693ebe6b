import { describe, expect, it } from 'vitest';
import { storeBackends, useStores } from './test-helpers.ts';
import type { StoredEvent } from './types.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);

  const ev = (seq: number, type = 'meter.cutoff', deviceId: string | null = 'MTR-1'): StoredEvent => ({
    seq,
    type,
    deviceId,
    vt: 1_000 + seq,
    body: JSON.stringify({ seq, type }),
  });

  describe('durable events (migration 6)', () => {
    it('appends idempotently by seq and reads by range, oldest or newest first, ascending', async () => {
      const store = await stores.open();
      await store.appendEvents([ev(1), ev(2), ev(5), ev(9)]);
      await store.appendEvents([ev(5), ev(10)]); // 5 again: kept once
      expect(await store.eventStats()).toEqual({ count: 5, maxSeq: 10 });
      const seqs = async (q: Partial<Parameters<typeof store.readEvents>[0]>) =>
        (await store.readEvents({ afterSeq: 0, upToSeq: 100, limit: 100, ...q })).map((e) => e.seq);
      expect(await seqs({})).toEqual([1, 2, 5, 9, 10]);
      expect(await seqs({ afterSeq: 2, upToSeq: 9 })).toEqual([5, 9]);
      expect(await seqs({ limit: 2 })).toEqual([1, 2]);
      expect(await seqs({ limit: 2, newest: true })).toEqual([9, 10]);
      expect((await store.readEvents({ afterSeq: 4, upToSeq: 5, limit: 1 }))[0]).toEqual(ev(5));
    });

    it('filters by type list and device', async () => {
      const store = await stores.open();
      await store.appendEvents([
        ev(1, 'meter.cutoff', 'A'),
        ev(2, 'money.recharge', 'A'),
        ev(3, 'meter.relay', 'B'),
        ev(4, 'money.recharge', 'B'),
        ev(5, 'meter.mode', null),
      ]);
      const seqs = async (q: Partial<Parameters<typeof store.readEvents>[0]>) =>
        (await store.readEvents({ afterSeq: 0, upToSeq: 100, limit: 100, ...q })).map((e) => e.seq);
      expect(await seqs({ types: ['money.recharge'] })).toEqual([2, 4]);
      expect(await seqs({ types: ['money.recharge', 'meter.relay'], deviceId: 'B' })).toEqual([3, 4]);
      expect(await seqs({ deviceId: 'A' })).toEqual([1, 2]);
      expect(await seqs({ types: [] })).toEqual([]);
    });

    it('deletes the oldest n, and survives a reopen', async () => {
      const store = await stores.open();
      await store.appendEvents([1, 2, 3, 4, 5, 6].map((s) => ev(s)));
      expect(await store.deleteOldestEvents(4)).toBe(4);
      await store.close();
      const again = await stores.open();
      expect(await again.eventStats()).toEqual({ count: 2, maxSeq: 6 });
      expect((await again.readEvents({ afterSeq: 0, upToSeq: 10, limit: 10 })).map((e) => e.seq)).toEqual([
        5, 6,
      ]);
    });
  });
});
