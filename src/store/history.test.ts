import { describe, expect, it } from 'vitest';
import { bucketStart } from './buckets.ts';
import { ist, sample, seedDevice, storeBackends, useStores } from './test-helpers.ts';
import type { BucketMinutes, HistoryPoint, SampleProperty, SampleRow } from './types.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);
  const MIN = 60_000;
  const DAY = 1440 * MIN;

  /** What history means, computed the slow obvious way from the samples. */
  function reference(
    rows: readonly SampleRow[],
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): HistoryPoint[] {
    const stored = new Map<number, SampleRow>(); // first delivery of a ts wins
    for (const r of rows) if (!stored.has(r.ts)) stored.set(r.ts, r);
    const last = new Map<number, HistoryPoint>();
    for (const r of [...stored.values()].sort((a, b) => a.ts - b.ts)) {
      const value = r[property];
      if (r.ts < fromTs || r.ts >= toTs || value === null) continue;
      const start = bucketStart(r.ts, bucket * MIN);
      last.set(start, { bucketStart: start, ts: r.ts, value });
    }
    return [...last.values()].sort((a, b) => a.bucketStart - b.bucketStart);
  }

  async function storeWith(rows: SampleRow[][]) {
    const store = await stores.open();
    const { pk } = await seedDevice(store);
    for (const batch of rows) await store.insertSamples(batch.map((r) => ({ ...r, devicePk: pk })));
    return { store, pk };
  }

  describe('history: the value of a bucket is the last sample in it', () => {
    it('15m: last sample wins; a sample exactly at a bucket start opens that bucket', async () => {
      const ts = ['06:00', '06:05', '06:14:59.999', '06:15', '06:29'].map((t) => ist(`2025-03-10T${t}`));
      const { store, pk } = await storeWith([ts.map((t) => sample(0, t))]);
      expect(await store.history(pk, 'energy', ist('2025-03-10T00:00'), ist('2025-03-11T00:00'), 15)).toEqual(
        [
          { bucketStart: ist('2025-03-10T06:00'), ts: ts[2], value: ts[2]! / 1000 },
          { bucketStart: ist('2025-03-10T06:15'), ts: ts[4], value: ts[4]! / 1000 },
        ],
      );
    });

    it('empty buckets are omitted', async () => {
      const ts = [ist('2025-03-10T06:00'), ist('2025-03-10T07:40')];
      const { store, pk } = await storeWith([ts.map((t) => sample(0, t))]);
      const points = await store.history(pk, 'voltage', ist('2025-03-10T06:00'), ist('2025-03-10T08:00'), 15);
      expect(points.map((p) => p.bucketStart)).toEqual([ist('2025-03-10T06:00'), ist('2025-03-10T07:30')]);
    });

    it('30m, 60m and 1d are the last of the 15m buckets inside them', async () => {
      const rows = Array.from({ length: 2 * 288 }, (_, i) =>
        sample(0, ist('2025-03-10T00:00') + i * 5 * MIN),
      );
      const { store, pk } = await storeWith([rows]);
      const from = ist('2025-03-10T00:00');
      for (const bucket of [30, 60, 1440] as const) {
        const got = await store.history(pk, 'energy', from, from + 2 * DAY, bucket);
        expect(got).toEqual(reference(rows, 'energy', from, from + 2 * DAY, bucket));
      }
      const hours = await store.history(pk, 'energy', from, from + DAY, 60);
      expect(hours).toHaveLength(24);
      expect(hours[6]).toEqual({
        bucketStart: ist('2025-03-10T06:00'),
        ts: ist('2025-03-10T06:55'),
        value: ist('2025-03-10T06:55') / 1000,
      });
    });

    it('an IST hour runs from :30 to :30 UTC', async () => {
      const utc = ['2025-03-10T00:29:59.999Z', '2025-03-10T00:50Z', '2025-03-10T01:10Z', '2025-03-10T01:30Z'];
      const ts = utc.map((t) => Date.parse(t));
      const { store, pk } = await storeWith([ts.map((t) => sample(0, t))]);
      const points = await store.history(pk, 'energy', ts[0]! - DAY, ts[0]! + DAY, 60);
      expect(
        points.map((p) => [new Date(p.bucketStart).toISOString(), new Date(p.ts).toISOString()]),
      ).toEqual([
        ['2025-03-09T23:30:00.000Z', '2025-03-10T00:29:59.999Z'],
        ['2025-03-10T00:30:00.000Z', '2025-03-10T01:10:00.000Z'],
        ['2025-03-10T01:30:00.000Z', '2025-03-10T01:30:00.000Z'],
      ]);
    });

    it('an IST day runs from 18:30 UTC the day before', async () => {
      const ts = [Date.parse('2025-03-10T18:29:59.999Z'), Date.parse('2025-03-10T18:30Z')];
      const { store, pk } = await storeWith([ts.map((t) => sample(0, t))]);
      const points = await store.history(
        pk,
        'energy',
        ist('2025-03-01T00:00'),
        ist('2025-04-01T00:00'),
        1440,
      );
      expect(points).toEqual([
        { bucketStart: ist('2025-03-10T00:00'), ts: ts[0], value: ts[0]! / 1000 },
        { bucketStart: ist('2025-03-11T00:00'), ts: ts[1], value: ts[1]! / 1000 },
      ]);
    });

    it('a sample arriving late does not displace a later one already stored', async () => {
      const t = (s: string) => ist(`2025-03-10T${s}`);
      const { store, pk } = await storeWith([
        [sample(0, t('06:10'))],
        [sample(0, t('06:05'))], // older, arrives later: a buffered upload
        [sample(0, t('06:12')), sample(0, t('06:01'))], // newer and older in one batch
      ]);
      for (const bucket of [15, 30, 60, 1440] as const) {
        const [point] = await store.history(pk, 'energy', t('00:00'), t('23:59'), bucket);
        expect(point).toMatchObject({ ts: t('06:12'), value: t('06:12') / 1000 });
      }
    });

    it('only samples with fromTs <= ts < toTs count, also inside a partly covered bucket', async () => {
      const from = ist('2025-03-10T06:00');
      const rows = Array.from({ length: 120 }, (_, i) => sample(0, from + i * MIN));
      const { store, pk } = await storeWith([rows]);
      const points = await store.history(pk, 'energy', from + 7 * MIN, from + 52 * MIN, 15);
      expect(points.map((p) => (p.ts - from) / MIN)).toEqual([14, 29, 44, 51]);
      expect(points.map((p) => (p.bucketStart - from) / MIN)).toEqual([0, 15, 30, 45]);
    });

    it('matches the reference for random ranges, bucket sizes and out-of-order batches', async () => {
      let seed = 42;
      const rand = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      const base = ist('2025-03-10T00:00');
      // Irregular samples over three days (gaps included), inserted in shuffled batches, with repeats.
      const rows: SampleRow[] = [];
      for (let t = base - 2 * DAY; t < base + DAY; t += (1 + rand(40)) * MIN + rand(1000))
        rows.push(sample(0, t));
      const shuffled = [...rows, ...rows.slice(0, 30)].sort(() => rand(3) - 1);
      const batches = Array.from({ length: 7 }, (_, i) => shuffled.filter((_, j) => j % 7 === i));
      const { store, pk } = await storeWith(batches);
      const inserted = batches.flat();

      for (let i = 0; i < 200; i++) {
        const bucket = ([15, 30, 60, 1440] as const)[rand(4)]!;
        const from = base - 2 * DAY + rand(3 * DAY);
        const to = from + rand(i % 2 === 0 ? 3 * 60 * MIN : 2 * DAY);
        expect(await store.history(pk, 'energy', from, to, bucket), `${from}..${to} @${bucket}`).toEqual(
          reference(inserted, 'energy', from, to, bucket),
        );
      }
    });

    it('returns values exactly as stored', async () => {
      const t = ist('2025-03-10T06:00');
      const { store, pk } = await storeWith([[{ ...sample(0, t), active_power: 0.1 + 0.2 }]]);
      const [point] = await store.history(pk, 'active_power', t - DAY, t + DAY, 1440);
      expect(point?.value).toBe(0.1 + 0.2);
    });

    it("a property the device does not report has no history; other devices' samples do not leak in", async () => {
      const t = ist('2025-03-10T06:00');
      const { store, pk } = await storeWith([[sample(0, t)]]);
      const other = await seedDevice(store, { deviceId: 'other' });
      await store.insertSamples([{ ...sample(other.pk, t + MIN), current: 5 }]);
      expect(await store.history(pk, 'current', t - DAY, t + DAY, 15)).toEqual([]);
      expect(await store.history(pk, 'energy', t - DAY, t + DAY, 15)).toHaveLength(1);
    });

    it('an empty or inverted range is empty; a bad property or bucket is a TypeError', async () => {
      const t = ist('2025-03-10T06:00');
      const { store, pk } = await storeWith([[sample(0, t)]]);
      expect(await store.history(pk, 'energy', t, t, 15)).toEqual([]);
      expect(await store.history(pk, 'energy', t + 1, t, 15)).toEqual([]);
      await expect(store.history(pk, 'balance' as SampleProperty, t, t + 1, 15)).rejects.toThrow(TypeError);
      await expect(store.history(pk, 'energy', t, t + 1, 45 as BucketMinutes)).rejects.toThrow(TypeError);
    });
  });
});
