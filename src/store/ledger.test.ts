import { describe, expect, it } from 'vitest';
import { StoreConflictError } from './errors.ts';
import { seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';
import type { LedgerEntry } from './types.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);

  const recharge = (devicePk: number, transactionId: string, amount = 10_000): Omit<LedgerEntry, 'seq'> => ({
    devicePk,
    kind: 'recharge',
    amount,
    transactionId,
    createdAt: T0,
  });

  describe('ledger', () => {
    it('appends entries with increasing seq; ledgerSince returns one device after a seq, in order', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      const opening = await store.appendLedger({
        devicePk: a.pk,
        kind: 'opening',
        amount: 500,
        transactionId: null,
        createdAt: T0,
      });
      await store.appendLedger({
        devicePk: b.pk,
        kind: 'opening',
        amount: 0,
        transactionId: null,
        createdAt: T0,
      });
      const r1 = await store.appendLedger(recharge(a.pk, 'tx-1'));
      const adj = await store.appendLedger({
        devicePk: a.pk,
        kind: 'adjustment',
        amount: -150,
        transactionId: null,
        createdAt: T0 + 1,
      });

      expect(opening).toEqual({
        entry: { seq: 1, devicePk: a.pk, kind: 'opening', amount: 500, transactionId: null, createdAt: T0 },
        duplicate: false,
      });
      expect(await store.ledgerSince(a.pk, 0)).toEqual([opening.entry, r1.entry, adj.entry]);
      expect(await store.ledgerSince(a.pk, r1.entry.seq)).toEqual([adj.entry]);
      expect(await store.ledgerSince(a.pk, adj.entry.seq)).toEqual([]);
    });

    it('a repeated recharge transaction id for the same device returns the first entry, once', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      const first = await store.appendLedger(recharge(pk, 'tx-1', 10_000));
      const again = await store.appendLedger({ ...recharge(pk, 'tx-1', 99_999), createdAt: T0 + 5 });
      expect(again).toEqual({ entry: first.entry, duplicate: true });
      expect(await store.ledgerSince(pk, 0)).toEqual([first.entry]);
    });

    it('the same transaction id for another device is a conflict, and nothing is written', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      await store.appendLedger(recharge(a.pk, 'tx-1'));
      const err = await store.appendLedger(recharge(b.pk, 'tx-1')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreConflictError);
      expect(err).toMatchObject({ field: 'transaction_id' });
      expect(await store.ledgerSince(b.pk, 0)).toEqual([]);
    });

    it('the first entry is still the answer after reopening', async () => {
      const first = await stores.open();
      const { pk } = await seedDevice(first);
      const { entry } = await first.appendLedger(recharge(pk, 'tx-1'));
      await first.close();
      expect(await (await stores.open()).appendLedger(recharge(pk, 'tx-1'))).toEqual({
        entry,
        duplicate: true,
      });
    });

    it('amounts are integer paise', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      await expect(store.appendLedger(recharge(pk, 'tx-1', 10.5))).rejects.toThrow(TypeError);
    });

    it('is append-only, even to SQL from outside the store', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      await store.appendLedger(recharge(pk, 'tx-1'));
      await store.close();
      await expect(stores.sql('UPDATE ledger SET amount = 1')).rejects.toThrow(/append-only/);
      await expect(stores.sql('DELETE FROM ledger')).rejects.toThrow(/append-only/);
      if (name === 'postgres') {
        // credit_receipts refers to it, so a plain TRUNCATE stops at the foreign key; CASCADE reaches the trigger.
        await expect(stores.sql('TRUNCATE ledger')).rejects.toThrow(/foreign key|append-only/);
        await expect(stores.sql('TRUNCATE ledger CASCADE')).rejects.toThrow(/append-only/);
      }
    });

    it('ledgerTotals: the sum and newest seq per device, or of one device', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      await store.appendLedger({
        devicePk: a.pk,
        kind: 'opening',
        amount: -50,
        transactionId: null,
        createdAt: T0,
      });
      await store.appendLedger(recharge(a.pk, 'tx-1', 300));
      await store.appendLedger(recharge(b.pk, 'tx-2', 7));
      const last = await store.appendLedger(recharge(a.pk, 'tx-3', 1_000));
      await store.appendLedger(recharge(a.pk, 'tx-3', 1_000)); // a repeat adds nothing
      expect(await store.ledgerTotals()).toEqual([
        { devicePk: a.pk, total: 1_250, lastSeq: last.entry.seq },
        { devicePk: b.pk, total: 7, lastSeq: last.entry.seq - 1 },
      ]);
      expect(await store.ledgerTotals(b.pk)).toEqual([
        { devicePk: b.pk, total: 7, lastSeq: last.entry.seq - 1 },
      ]);
    });
  });
});
