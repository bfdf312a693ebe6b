// [issue 11 §3] What SQLite got from its single writer lock, PostgreSQL must get across processes: two
// stores (two pools, as two processes) on one schema, racing.

import { describe, expect, it } from 'vitest';
import { bucketStart, QUARTER_HOUR_MS } from '../buckets.ts';
import { StoreConflictError } from '../errors.ts';
import { ist, sample, seedDevice, storeBackends, T0, useStores } from '../test-helpers.ts';

const backends = (await storeBackends()).filter((b) => b.name === 'postgres');

describe.each(backends)('two PostgreSQL stores on one schema ($name)', ({ name }) => {
  const stores = useStores(name);

  it('[LEDGER-1] the same transaction id raced from both: one entry, the other gets it as a duplicate', async () => {
    const a = await stores.open();
    const b = await stores.open();
    const { pk } = await seedDevice(a);
    const other = await a.createDevice(
      { ...(await a.getDeviceByPk(pk))!, deviceId: 'MTR-0002', mqttSecretHash: 'h' },
      T0,
    );
    for (let round = 0; round < 20; round++) {
      const entry = {
        devicePk: pk,
        kind: 'recharge' as const,
        amount: 100,
        transactionId: `tx-${round}`,
        createdAt: T0,
      };
      const results = await Promise.all([
        a.appendLedger(entry),
        b.appendLedger(entry),
        a.appendLedger(entry),
      ]);
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect(new Set(results.map((r) => r.entry.seq)).size).toBe(1);
      await expect(b.appendLedger({ ...entry, devicePk: other.pk })).rejects.toBeInstanceOf(
        StoreConflictError,
      );
    }
    expect(await b.ledgerTotals(pk)).toEqual([{ devicePk: pk, total: 2_000, lastSeq: expect.any(Number) }]);
  });

  it('ledger seqs are handed out in commit order: a reader after seq n never misses a later-committed smaller one', async () => {
    const a = await stores.open();
    const b = await stores.open();
    const { pk } = await seedDevice(a);
    const writes = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? a : b).appendLedger({
        devicePk: pk,
        kind: 'adjustment',
        amount: 1,
        transactionId: null,
        createdAt: T0,
      }),
    );
    const seen: number[] = [];
    let after = 0;
    const reader = (async () => {
      for (let i = 0; i < 200 && seen.length < 40; i++) {
        const batch = await a.ledgerSince(pk, after);
        for (const e of batch) seen.push(e.seq);
        after = batch.at(-1)?.seq ?? after;
      }
    })();
    await Promise.all(writes);
    await reader;
    const all = (await b.ledgerSince(pk, 0)).map((e) => e.seq);
    const rest = (await b.ledgerSince(pk, after)).map((e) => e.seq);
    expect([...seen, ...rest]).toEqual(all);
  });

  it('rollups stay the newest sample per bucket when two writers race out-of-order samples into the same buckets', async () => {
    const a = await stores.open();
    const b = await stores.open();
    const { pk } = await seedDevice(a);
    const base = ist('2025-01-01T06:00');
    const times = Array.from({ length: 300 }, (_, i) => base + i * 7_000);
    const shuffled = [...times].sort(() => Math.random() - 0.5);
    const chunks = Array.from({ length: 30 }, (_, i) => shuffled.slice(i * 10, i * 10 + 10));
    await Promise.all(chunks.map((c, i) => (i % 2 ? a : b).insertSamples(c.map((ts) => sample(pk, ts)))));
    expect(await a.countSamples(pk)).toBe(300);
    // Whole 15-minute buckets are read from samples_15m: each must hold its newest sample.
    const history = await b.history(pk, 'energy', base, base + 3_600_000, 15);
    const newest = new Map<number, number>();
    for (const ts of times)
      newest.set(
        bucketStart(ts, QUARTER_HOUR_MS),
        Math.max(newest.get(bucketStart(ts, QUARTER_HOUR_MS)) ?? 0, ts),
      );
    expect(history).toEqual([...newest].map(([start, ts]) => ({ bucketStart: start, ts, value: ts / 1000 })));
  });

  it('[spec-decisions 78] a key revoked through one store is refused by the other within 1 s; a rename is seen at once', async () => {
    const a = await stores.open();
    const b = await stores.open();
    const device = await seedDevice(a);
    await a.addApiKey(device.accountId, 'msk_shared', null, T0);
    expect(await b.accountForApiKey('msk_shared', T0)).toMatchObject({ id: device.accountId }); // cached in b
    expect(await a.revokeApiKey('msk_shared', T0)).toBe(true);
    const revokedAt = Date.now();
    while ((await b.accountForApiKey('msk_shared', T0)) !== null) {
      expect(Date.now() - revokedAt).toBeLessThan(1_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await b.getDevice(device.deviceId)).toMatchObject({ name: 'Meter 1' });
    await a.updateDevice(device.deviceId, { name: 'Renamed' });
    expect(await b.getDevice(device.deviceId)).toMatchObject({ name: 'Renamed' });
  });
});
