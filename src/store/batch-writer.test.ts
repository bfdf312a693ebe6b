import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { BatchWriter } from './batch-writer.ts';
import { sample, seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';
import type { SampleRow, Store } from './types.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);
  const MIN = 60_000;

  async function setup(options: { maxRows?: number; maxDelayMs?: number } = {}) {
    const store = await stores.open();
    const { pk } = await seedDevice(store);
    const batches: number[] = [];
    // The real store, with a note of each transaction's size.
    const counting = {
      insertSamples: async (rows: readonly SampleRow[]) => {
        batches.push(rows.length);
        return store.insertSamples(rows);
      },
    };
    const onError = vi.fn();
    const writer = new BatchWriter({ store: counting, onError, ...options });
    const rows = (n: number, from = 0) =>
      Array.from({ length: n }, (_, i) => sample(pk, T0 + (from + i) * MIN));
    return { store, pk, writer, rows, batches, onError };
  }

  const count = (store: Store, pk: number) => store.countSamples(pk);

  describe('BatchWriter', () => {
    it('writes as soon as maxRows are queued, without waiting for the delay', async () => {
      const { store, pk, writer, rows, batches } = await setup({ maxRows: 3, maxDelayMs: 60_000 });
      const first = writer.add(rows(2));
      await tick();
      expect(await count(store, pk)).toBe(0);
      expect(writer.pendingRows).toBe(2);

      await Promise.all([first, writer.add(rows(1, 2))]);
      expect(await count(store, pk)).toBe(3);
      expect(batches).toEqual([3]);
      expect(writer.pendingRows).toBe(0);
    });

    it('writes maxDelayMs after the first queued row', async () => {
      const { store, pk, writer, rows, batches } = await setup({ maxRows: 1000, maxDelayMs: 40 });
      const started = performance.now();
      const done = writer.add(rows(1));
      writer.add(rows(1, 1));
      await tick();
      expect(await count(store, pk)).toBe(0);

      await done;
      expect(performance.now() - started).toBeGreaterThanOrEqual(35);
      expect(batches).toEqual([2]);
    });

    it('add() resolves only once its rows are committed', async () => {
      const { store, pk, writer, rows } = await setup({ maxDelayMs: 5 });
      for (let i = 0; i < 5; i++) {
        await writer.add(rows(10, i * 10));
        expect(await count(store, pk)).toBe((i + 1) * 10);
      }
    });

    it('groups whole add() calls into batches of at most maxRows; one larger add() goes alone', async () => {
      const { writer, rows, batches } = await setup({ maxRows: 4, maxDelayMs: 60_000 });
      const adds = [
        writer.add(rows(2)),
        writer.add(rows(2, 2)),
        writer.add(rows(3, 4)),
        writer.add(rows(9, 7)),
      ];
      await writer.flush();
      await Promise.all(adds);
      expect(batches).toEqual([4, 3, 9]);
    });

    it('flush() writes what is queued and reports the queue as empty', async () => {
      const { store, pk, writer, rows } = await setup({ maxDelayMs: 60_000 });
      writer.add(rows(7));
      expect(writer.pendingRows).toBe(7);
      await writer.flush();
      expect(writer.pendingRows).toBe(0);
      expect(await count(store, pk)).toBe(7);
      await writer.flush(); // nothing queued: a no-op
    });

    it('close() flushes everything and refuses later rows', async () => {
      const { store, pk, writer, rows } = await setup({ maxDelayMs: 60_000 });
      const added = writer.add(rows(5));
      await writer.close();
      await added;
      expect(await count(store, pk)).toBe(5);
      await expect(writer.add(rows(1, 5))).rejects.toThrow(/closed/);
    });

    it('a failed write rejects add() and calls onError; only the bad add() of a batch fails', async () => {
      const { store, pk, writer, rows, onError } = await setup({ maxDelayMs: 60_000 });
      const bad = [sample(pk + 100, T0)]; // no such device: a foreign-key failure
      const good = writer.add(rows(2));
      const failed = writer.add(bad);
      const later = writer.add(rows(2, 2));

      await expect(writer.flush()).rejects.toThrow(/foreign key/i);
      await expect(failed).rejects.toThrow(/foreign key/i);
      await Promise.all([good, later]);
      expect(await count(store, pk)).toBe(4);
      expect(onError).toHaveBeenCalledTimes(1);
      expect(onError).toHaveBeenCalledWith(
        expect.objectContaining({ message: expect.stringMatching(/foreign key/i) }),
        1,
      );

      await Promise.all([writer.add(rows(1, 4)), writer.flush()]); // the writer keeps going
      expect(await count(store, pk)).toBe(5);
    });

    it('a flush() of an empty queue does not stop later rows from being written on time', async () => {
      const { store, pk, writer, rows, batches } = await setup({ maxRows: 1000, maxDelayMs: 5 });
      await writer.flush();
      const written = writer.add(rows(1)).then(() => 'written');
      const late = new Promise((resolve) => setTimeout(() => resolve('still waiting after 2 s'), 2000));
      expect(await Promise.race([written, late])).toBe('written');
      expect(batches).toEqual([1]);
      expect(await count(store, pk)).toBe(1);
    });

    it('an add() of no rows resolves at once', async () => {
      const { writer, batches } = await setup();
      await writer.add([]);
      expect(batches).toEqual([]);
    });

    it('validates its options', () => {
      const store = { insertSamples: async () => 0 };
      const onError = () => {};
      expect(() => new BatchWriter({ store, onError, maxRows: 0 })).toThrow(TypeError);
      expect(() => new BatchWriter({ store, onError, maxDelayMs: -1 })).toThrow(TypeError);
      expect(() => new BatchWriter({ store } as never)).toThrow(/onError/);
      expect(() => new BatchWriter({ onError } as never)).toThrow(/store/);
    });
  });
});
