// [LEDGER-4] Pending credits of external meters and their receipts, on both stores: a recharge of an
// external device is pending until one receipt is written; the receipt is written once; a pending credit
// is still pending after the store is closed and opened again (a service restart).
import { describe, expect, it } from 'vitest';
import { seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';
import type { CreditReceipt, Store } from './types.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);

  const credit = (store: Store, devicePk: number, transactionId: string, amount = 500) =>
    store.appendLedger({ devicePk, kind: 'recharge', amount, transactionId, createdAt: T0 });
  const applied = (
    ledgerSeq: number,
    devicePk: number,
    over: Partial<CreditReceipt> = {},
  ): CreditReceipt => ({
    ledgerSeq,
    devicePk,
    outcome: 'applied',
    balanceBefore: 1000,
    balanceAfter: 1500,
    allowance: 1,
    reason: null,
    receivedAt: T0 + 10,
    ...over,
  });

  describe('credit receipts [LEDGER-4]', () => {
    it('an external recharge is pending until its receipt; virtual ones and openings never are', async () => {
      const store = await stores.open();
      const ext = await seedDevice(store, { deviceId: 'ext', kind: 'external' });
      const virt = await seedDevice(store, { deviceId: 'virt' });
      await store.appendLedger({
        devicePk: ext.pk,
        kind: 'opening',
        amount: 0,
        transactionId: null,
        createdAt: T0,
      });
      const a = await credit(store, ext.pk, 'tx-a');
      const b = await credit(store, ext.pk, 'tx-b', 700);
      await credit(store, virt.pk, 'tx-v');

      expect(await store.pendingCredits()).toEqual([a.entry, b.entry]);
      expect(await store.pendingCredits(virt.pk)).toEqual([]);

      const first = await store.recordCreditReceipt(applied(a.entry.seq, ext.pk));
      expect(first).toEqual({ receipt: applied(a.entry.seq, ext.pk), duplicate: false });
      await store.recordCreditReceipt(
        applied(b.entry.seq, ext.pk, { outcome: 'refused', balanceAfter: null, reason: 'busy: x' }),
      );
      expect(await store.pendingCredits(ext.pk)).toEqual([]);
      expect((await store.creditReceipts(ext.pk)).map((r) => r.outcome)).toEqual(['applied', 'refused']);
    });

    it('a second receipt for the same credit (a repeated ack) changes nothing and returns the first', async () => {
      const store = await stores.open();
      const ext = await seedDevice(store, { deviceId: 'ext', kind: 'external' });
      const a = await credit(store, ext.pk, 'tx-a');
      await store.recordCreditReceipt(applied(a.entry.seq, ext.pk));
      const again = await store.recordCreditReceipt(
        applied(a.entry.seq, ext.pk, { balanceAfter: 9_999, receivedAt: T0 + 99 }),
      );
      expect(again).toEqual({ receipt: applied(a.entry.seq, ext.pk), duplicate: true });
      expect(await store.creditReceipts(ext.pk)).toEqual([applied(a.entry.seq, ext.pk)]);
    });

    it.runIf(name === 'postgres')(
      'a world snapshot saved before credit_receipts existed still restores (its credits read as pending)',
      async () => {
        const store = await stores.open();
        const ext = await seedDevice(store, { deviceId: 'ext', kind: 'external' });
        const a = await credit(store, ext.pk, 'tx-a');
        await store.saveWorldSnapshot('old', { createdAt: T0, clock: T0, speed: 1 });
        await store.recordCreditReceipt(applied(a.entry.seq, ext.pk));
        // As a snapshot made by a build before migration 8: no such table in its schema.
        await stores.sql(`DO $$ DECLARE s text; BEGIN
          SELECT schema_name INTO s FROM world_snapshots WHERE name = 'old';
          EXECUTE format('DROP TABLE %I.credit_receipts', s); END $$`);
        expect(await store.restoreWorldSnapshot('old', [])).not.toBeNull();
        expect(await store.pendingCredits()).toEqual([a.entry]);
      },
    );

    it('a pending credit survives closing and opening the store again', async () => {
      const store = await stores.open('restart.db');
      const ext = await seedDevice(store, { deviceId: 'ext', kind: 'external' });
      const a = await credit(store, ext.pk, 'tx-a');
      await store.close();
      const again = await stores.open('restart.db');
      expect(await again.pendingCredits()).toEqual([a.entry]);
    });
  });
});
