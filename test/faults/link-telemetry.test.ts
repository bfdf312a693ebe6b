// Issue 12 §1, link faults on telemetry, through the real service (aedes on an ephemeral port, real
// mqtt.js watchers, the twins, SQLite, the v2 API): a backlog burst, duplicated and out-of-order samples.
// Each faulty meter runs beside a control meter made at the same virtual instant with the same load, so
// both measure the same samples: the service must store exactly the control's.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { Fault } from '../../simulator/meter/faults/types.ts';
import { subscribe } from '../../src/broker/test-helpers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { data, type History, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

let t: TestService;
let v2: V2;
let clients: ServiceClients;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  v2 = v2Client(t.svc.httpUrl);
  clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
});
afterEach(() => clients.endAll());
afterAll(() => t.close());

const METER = { mode: 'postpaid', load_watts: 1200, telemetry_period_s: 60 };
const MIN = 60_000;

function addFault(
  a: Tenant,
  kind: Fault['kind'],
  params: Record<string, unknown>,
  opts: Partial<Fault> = {},
) {
  const now = t.svc.world.clock.now();
  const f = { id: 'F1', kind, params, from: now, until: null, seed: 7, ...opts } as Fault;
  t.svc.world.meter(a.deviceId)!.addFault(f);
}
const stored = async (a: Tenant) => t.svc.store.countSamples((await t.svc.store.getDevice(a.deviceId))!.pk);
const refusedAny = () => Object.values(t.svc.world.twins.refused).reduce((n, v) => n + (v ?? 0), 0);

/** Every sample ts a device publishes from now on, in the order they reach a watcher. */
async function watch(...devices: Tenant[]): Promise<(a: Tenant) => number[]> {
  const client = await clients.admin();
  const inbox = new Inbox(client);
  for (const d of devices) await subscribe(client, topicFor(d.deviceId, 'telemetry'));
  return (a) =>
    inbox
      .on(topicFor(a.deviceId, 'telemetry'))
      .flatMap((m) => (m.json.samples as { ts: number }[]).map((s) => s.ts));
}

/** Advances the clock one telemetry period at a time, so each sample goes out on its own tick. */
async function minutes(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await t.svc.world.advance(MIN);
}

async function history(a: Tenant, days: number) {
  const from = new Date(t.svc.world.clock.now() - days * 86_400_000 + 5.5 * 3_600_000)
    .toISOString()
    .slice(0, 10);
  const to = new Date(t.svc.world.clock.now() + 5.5 * 3_600_000).toISOString().slice(0, 10);
  const qs = `property_id=energy&from_date=${from}&to_date=${to}&interval=15m`;
  return data(await v2<History>('GET', `/devices/${a.deviceId}/metrics/history?${qs}`, undefined, a.key))
    .readings;
}

describe('backlog_burst', () => {
  it('2,000 samples held while active, all sent at its end: every one stored, history complete', async () => {
    const a = await tenant(t.sim, METER);
    const control = await tenant(t.sim, METER);
    const seen = await watch(a);
    addFault(a, 'backlog_burst', {}, { until: t.svc.world.clock.now() + 2_000 * MIN });
    const before = await stored(a);
    for (let i = 0; i < 4; i++) {
      await t.svc.world.advance(499 * MIN);
      expect(await stored(a)).toBe(before); // held: nothing published
    }
    expect(seen(a)).toEqual([]);
    await t.svc.world.advance(10 * MIN); // past its end: the burst
    await t.svc.world.meter(a.deviceId)!.drained();
    await t.svc.world.settle();
    expect(await stored(a)).toBe(await stored(control));
    expect((await stored(a)) - before).toBeGreaterThanOrEqual(2_000);
    expect(seen(a).length).toBe((await stored(a)) - before);
    const got = await history(a, 2);
    expect(got.length).toBeGreaterThan(4 * 24); // 15-minute readings over more than a day
    expect(got).toEqual(await history(control, 2));
    expect(got.at(-1)!.value).toBeGreaterThan(30); // 1.2 kW for 33 h: the load really flowed
    expect(t.svc.world.twins.refused.energyBackwards ?? 0).toBe(0);
  });
});

describe('duplicate_samples', () => {
  it('p=1: every sample is published twice, stored once (keyed by device and ts [MC-7.6])', async () => {
    const a = await tenant(t.sim, METER);
    const control = await tenant(t.sim, METER);
    const seen = await watch(a);
    addFault(a, 'duplicate_samples', { probability: 1 });
    const refused = refusedAny();
    await minutes(6);
    await t.svc.world.settle();
    const ts = seen(a);
    expect(ts.length).toBe(12);
    expect(new Set(ts).size).toBe(6);
    expect(await stored(a)).toBe(await stored(control));
    expect(refusedAny()).toBe(refused);
  });
});

describe('out_of_order', () => {
  it('p=1: each sample arrives after the next one; all are stored, none refused, the newest wins', async () => {
    const a = await tenant(t.sim, METER);
    const control = await tenant(t.sim, METER);
    const seen = await watch(a, control);
    addFault(a, 'out_of_order', { probability: 1 });
    const refused = refusedAny();
    await minutes(8);
    t.svc.world.meter(a.deviceId)!.clearFaults('all'); // lets the last held one go
    await t.svc.world.settle();
    await expect.poll(() => stored(a), { timeout: 2_000 }).toBe(await stored(control));
    const ts = seen(a);
    expect(ts.some((x, i) => i > 0 && x < ts[i - 1]!)).toBe(true);
    expect([...ts].sort()).toEqual([...seen(control)].sort());
    // [MC-7.5] an earlier sample with less energy arriving after a later one is not "energy going backwards".
    expect(refusedAny()).toBe(refused);
    const latest = (d: Tenant) => {
      const l = t.svc.world.twins.get(d.deviceId)?.latest;
      return { ts: l?.ts, energy: l?.energy };
    };
    expect(latest(a).energy).toBeGreaterThan(0);
    expect(latest(a)).toEqual(latest(control));
  });
});

describe('determinism', () => {
  it('the same seed duplicates and reorders the same samples; another seed, others', async () => {
    const faults = (a: Tenant, seed: number) => {
      addFault(a, 'duplicate_samples', { probability: 0.4 }, { seed });
      addFault(a, 'out_of_order', { probability: 0.4 }, { id: 'F2', seed });
    };
    const [a, b, c] = [await tenant(t.sim, METER), await tenant(t.sim, METER), await tenant(t.sim, METER)];
    const seen = await watch(a, b, c);
    faults(a, 11);
    faults(b, 11);
    faults(c, 12);
    await minutes(20);
    await t.svc.world.settle();
    expect(seen(a).length).toBeGreaterThan(20);
    expect(seen(b)).toEqual(seen(a));
    expect(seen(c)).not.toEqual(seen(a));
  });
});
