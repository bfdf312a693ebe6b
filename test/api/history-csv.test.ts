// GET /sim/v1/devices/{id}/history.csv (HX-1..HX-4) and /history/span (HX-5) over real HTTP against a
// real service and SQLite file: the file's every value is the one the v2 history answers for that
// property, interval and days (compared cell by cell, across the file's blocks of 31 days), stamped in
// +05:30 with a header naming the units; bad parameters answer the envelope; a year at 15 minutes
// comes whole (its speed is bench/history.ts's). An API instance's own answer (HX-4) is
// test/scale/api-instances.test.ts's.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  worldToNoonIst,
} from '../helpers/service.ts';
import { data, type History, invalid, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

const DAY = 86_400_000;
const ist = (ms: number) => new Date(ms + 19_800_000).toISOString().slice(0, 10);

let t: TestService;
let v2: V2;
/** 40 days of household history at 15 minutes: more than one block of 31 days. */
let house: Tenant;
/** A full meter (seven properties), a year of history at 15 minutes. */
let year: Tenant;
let today: string;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  v2 = v2Client(t.svc.httpUrl);
  // [HX-5] expects the first sample on the IST day of now − 366 days: from noon IST the first 900 s
  // sample after that instant is on the same day (started after 23:45 IST it was the next one).
  await worldToNoonIst(t.sim);
  const backfill = { mode: 'postpaid', backfill_period_s: 900, telemetry_period_s: 900 };
  [house, year] = await Promise.all([
    tenant(t.sim, {
      ...backfill,
      model: 'full',
      backfill_days: 40,
      load_profile: 'household',
      load_watts: 3000,
      seed: 7,
    }),
    tenant(t.sim, { ...backfill, model: 'full', backfill_days: 366, load_watts: 800 }),
  ]);
  today = ist(ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms);
}, 60_000);

afterAll(() => t?.close());

interface Got {
  status: number;
  type: string | null;
  disposition: string | null;
  text: string;
}

async function csv(deviceId: string, query: string, token?: string | null): Promise<Got> {
  const headers: Record<string, string> = {};
  if (token !== null) headers['x-admin-token'] = token ?? t.svc.adminToken;
  const res = await fetch(`${t.svc.httpUrl}/sim/v1/devices/${deviceId}/history.csv?${query}`, { headers });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    text: await res.text(),
  };
}

/** The file as a header and rows of cells (no quoted cells occur in these files). */
function parse(text: string): { header: string[]; rows: string[][] } {
  expect(text.endsWith('\r\n'), 'every line ends with CRLF').toBe(true);
  const [header, ...rows] = text
    .slice(0, -2)
    .split('\r\n')
    .map((l) => l.split(','));
  return { header: header!, rows };
}

/** What the v2 history answers for `property`, by timestamp. */
async function v2History(tn: Tenant, property: string, from: string, to: string, interval: string) {
  const q = `property_id=${property}&from_date=${from}&to_date=${to}&interval=${interval}`;
  const h = data(await v2<History>('GET', `/devices/${tn.deviceId}/metrics/history?${q}`, undefined, tn.key));
  return h.readings;
}

describe('history.csv', () => {
  it.each(['15m', '1d', '60m'])(
    '[HX-1][HX-2] at %s every cell is what the v2 history answers, stamped +05:30, units in the header',
    async (interval) => {
      const from = ist(Date.parse(`${today}T00:00:00+05:30`) - 39 * DAY);
      const got = await csv(house.deviceId, `from=${from}&to=${today}&interval=${interval}`);
      expect(got.status).toBe(200);
      expect(got.type).toBe('text/csv; charset=utf-8');
      expect(got.disposition).toBe(
        `attachment; filename="${house.deviceId}_${from}_${today}_${interval}.csv"`,
      );
      const { header, rows } = parse(got.text);
      expect(header).toEqual([
        'timestamp (IST)',
        'energy (kWh)',
        'active_power (W)',
        'voltage (V)',
        'current (A)',
        'power_factor',
        'apparent_power (VA)',
        'reactive_power (var)',
      ]);
      const properties = header.slice(1).map((h) => h.split(' ')[0]!);
      const times = rows.map((r) => r[0]!);
      expect(new Set(times).size, 'one row per interval').toBe(times.length);
      expect([...times].sort(), 'ascending').toEqual(times);
      for (const time of times) expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/);
      for (const [c, property] of properties.entries()) {
        const readings = await v2History(house, property, from, today, interval);
        const column = new Map(rows.filter((r) => r[c + 1] !== '').map((r) => [r[0]!, Number(r[c + 1])]));
        expect(column, `${property} at ${interval}`).toEqual(
          new Map(readings.map((p) => [p.timestamp, p.value])),
        );
        // Printed as JSON prints it: no float noise added on the way.
        for (const r of rows.slice(0, 50)) if (r[c + 1]) expect(r[c + 1]).toBe(String(Number(r[c + 1])));
      }
      expect(rows.length).toBeGreaterThan(interval === '1d' ? 39 : 40 * 23);
    },
  );

  it('[HX-1] a basic meter has its own columns; an empty range is the header alone', async () => {
    const basic = await tenant(t.sim, { model: 'basic', backfill_days: 1, backfill_period_s: 900 });
    const got = await csv(basic.deviceId, `from=${today}&to=${today}&interval=1d`);
    expect(parse(got.text).rows).toHaveLength(1);
    expect(parse(got.text).header).toEqual([
      'timestamp (IST)',
      'energy (kWh)',
      'active_power (W)',
      'voltage (V)',
    ]);
    const empty = await csv(basic.deviceId, 'from=2001-01-01&to=2001-01-31');
    expect(empty.text).toBe('timestamp (IST),energy (kWh),active_power (W),voltage (V)\r\n');
  });

  it('[HX-4] any device of any account, one in no space too (the v2 history could not reach it)', async () => {
    const { account_id } = await newAccount(t.sim);
    const spaceless = await provision(t.sim, {
      account_id,
      model: 'basic',
      backfill_days: 1,
      backfill_period_s: 900,
    });
    const got = await csv(spaceless.device_id, `from=${today}&to=${today}&interval=60m`);
    expect(got.status).toBe(200);
    expect(parse(got.text).rows.length).toBeGreaterThan(0);
  });

  // Its speed (≤ 1 s, HX-3) is measured by bench/history.ts against a bare route, not asserted here.
  it('[HX-3] a year at 15 minutes: every interval’s row, each energy value the v2 history’s', async () => {
    const from = ist(Date.parse(`${today}T00:00:00+05:30`) - 365 * DAY);
    const got = await csv(year.deviceId, `from=${from}&to=${today}&interval=15m`);
    expect(got.status).toBe(200);
    const { rows } = parse(got.text);
    expect(rows.length).toBeGreaterThan(365 * 96);
    const energy = await v2History(year, 'energy', from, today, '15m');
    expect(rows.map((r) => [r[0], Number(r[1])])).toEqual(energy.map((p) => [p.timestamp, p.value]));
  });

  it('[HX-2] bad parameters answer the envelope, with the v2 history’s messages', async () => {
    const bad = async (query: string, device = house.deviceId) => {
      const got = await csv(device, query);
      expect(got.type).toMatch(/^application\/json/);
      return { status: got.status, headers: new Headers(), body: JSON.parse(got.text) };
    };
    expect(invalid(await bad('to=2026-01-01'))).toContainEqual({ loc: ['from'], msg: 'Field required' });
    expect(invalid(await bad('from=2026-1-1&to=2026-01-01'))).toContainEqual({
      loc: ['from'],
      msg: 'Input should be a date in the format YYYY-MM-DD',
    });
    expect(invalid(await bad('from=2026-02-30&to=2026-03-01'))).toContainEqual({
      loc: ['from'],
      msg: 'Input should be a valid calendar date, not 2026-02-30',
    });
    expect(invalid(await bad('from=2026-03-02&to=2026-03-01'))).toContainEqual({
      loc: ['from'],
      msg: 'Input should be on or before to',
    });
    expect(invalid(await bad('from=2025-01-01&to=2026-01-02'))).toContainEqual({
      loc: ['to'],
      msg: 'Range should cover at most 366 days',
    });
    expect(invalid(await bad('from=2026-01-01&to=2026-01-01&interval=5m'))[0]!.loc).toEqual(['interval']);
    const missing = await bad('from=2026-01-01&to=2026-01-01', 'MTR-NONE');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
    const noToken = await csv(house.deviceId, `from=${today}&to=${today}`, null);
    expect([noToken.status, JSON.parse(noToken.text).error.code]).toEqual([
      401,
      'admin_authentication_error',
    ]);
  });
});

describe('history/span', () => {
  it('[HX-5] the oldest and newest stored samples, as times and as IST days; null when none', async () => {
    const span = ok(
      await t.sim<{ device_id: string; first: string; last: string; from: string; to: string }>(
        'GET',
        `/devices/${year.deviceId}/history/span`,
      ),
    );
    expect(span.device_id).toBe(year.deviceId);
    expect(span.to).toBe(today);
    expect(span.from).toBe(ist(Date.parse(`${today}T00:00:00+05:30`) - 366 * DAY));
    expect(span.first).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+05:30$/);
    expect(span.first.slice(0, 10)).toBe(span.from);
    const fresh = await tenant(t.sim, { model: 'basic', online: false });
    expect(ok(await t.sim('GET', `/devices/${fresh.deviceId}/history/span`))).toEqual({
      device_id: fresh.deviceId,
      first: null,
      last: null,
      from: null,
      to: null,
    });
    const none = await t.sim('GET', '/devices/MTR-NONE/history/span');
    expect([none.status, none.body.error?.code]).toEqual([404, 'not_found']);
  });
});
