// The real UCI household trace replayed through MQTT into a running meterstack: its 15-minute and
// daily history, read through the v2 API, against values computed here straight from the CSV
// (wall times read as Asia/Kolkata; energy = running sum of kW × 1/60 h), and the balance against
// energy × tariff to the paise.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayResult, replay } from '../../src/qa/replay/replay.ts';
import { loadTrace } from '../../src/qa/traces/load.ts';
import { newAccount, ok, startTestService, type TestService } from '../helpers/service.ts';
import { type Device, data, type History, v2Client } from '../helpers/v2.ts';

const CSV = 'fixtures/traces/uci-household-2007-02-01.csv';
const TARIFF = 800;
const OPENING = 100_000;

interface Row {
  ts: number;
  kwh: number;
}

/**
 * The CSV read independently of src/qa: cumulative kWh per row as the meter reports it (to the Wh,
 * half up [MC-7.7]: W·min / 60 is Wh, exactly), and the exact total in W·min.
 */
function fromCsv(): { rows: Row[]; wattMinutes: bigint } {
  const lines = readFileSync(CSV, 'utf8').trim().split('\n').slice(1);
  let wattMinutes = 0n;
  const rows = lines.map((line) => {
    const [datetime, kw] = line.split(',');
    wattMinutes += BigInt(Math.round(Number(kw) * 1000));
    return { ts: Date.parse(`${datetime}+05:30`), kwh: Number((wattMinutes + 30n) / 60n) / 1000 };
  });
  return { rows, wattMinutes };
}

/** The last row's value in each IST-aligned bucket, stamped with the bucket's last second. */
function lastPerBucket(rows: Row[], minutes: number): { timestamp: string; value: number }[] {
  const ms = minutes * 60_000;
  const ist = 19_800_000;
  const buckets = new Map<number, number>();
  for (const r of rows) buckets.set(Math.floor((r.ts + ist) / ms), r.kwh);
  return [...buckets].map(([b, value]) => ({
    timestamp: `${new Date(b * ms + ms - 1000).toISOString().slice(0, 19)}+05:30`,
    value,
  }));
}

describe('replay of the UCI household trace', () => {
  let t: TestService;
  let result: ReplayResult;
  let key: string;

  beforeAll(async () => {
    t = await startTestService();
    const account = await newAccount(t.sim, 'qa');
    const space = ok(
      await t.sim<{ space_id: number }>('POST', '/spaces', { account_id: account.account_id, name: 'Home' }),
    );
    key = account.api_key;
    result = await replay({
      trace: await loadTrace(CSV),
      target: { httpUrl: t.svc.httpUrl, adminToken: t.svc.adminToken, close: async () => {} },
      device: {
        deviceId: 'UCI-HOUSE-1',
        accountId: account.account_id,
        spaceId: space.space_id,
        apiKey: key,
      },
      pace: { kind: 'instant' },
      loops: 1,
      meter: { mode: 'prepaid', balance: OPENING, ebTariff: TARIFF },
    });
  });
  afterAll(() => t?.close());

  it('publishes every sample and reads the last one back through the v2 API', () => {
    expect(result.samples).toBe(2880);
    expect(result.verified).toBe(true);
  });

  it.each([
    ['15m', 15, 192],
    ['1d', 1440, 2],
  ])(
    '%s history equals the CSV’s cumulative energy at each interval’s last sample',
    async (interval, minutes, count) => {
      const v2 = v2Client(t.svc.httpUrl, key);
      const h = data(
        await v2<History>(
          'GET',
          `/devices/UCI-HOUSE-1/metrics/history?property_id=energy&from_date=2007-02-01&to_date=2007-02-02&interval=${interval}`,
        ),
      );
      const expected = lastPerBucket(fromCsv().rows, minutes);
      expect(h.readings).toHaveLength(count);
      expect(h.readings.map((r) => r.timestamp)).toEqual(expected.map((e) => e.timestamp));
      expect(h.readings.map((r) => r.value)).toEqual(expected.map((e) => e.value));
    },
  );

  it('bills energy × tariff exactly: the balance is right to the paise', async () => {
    const { wattMinutes } = fromCsv();
    // kWh = W·min / 60000; charge in paise = tariff × kWh, rounded against the customer (toward −∞).
    const charge = (BigInt(TARIFF) * wattMinutes + 59_999n) / 60_000n;
    const expected = OPENING - Number(charge);
    expect(result.balance).toBe(expected);
    const device = data(await v2Client(t.svc.httpUrl, key)<Device>('GET', '/devices/UCI-HOUSE-1/'));
    expect(device.balance).toBe(expected);
    expect(device.active_mode).toBe('prepaid');
    expect(result.energyKwh).toBeCloseTo(Number(wattMinutes) / 60_000, 12);
  });
});
