// Issue 12 §1, link faults on the connection, through the real service (aedes on an ephemeral port, the
// twins, SQLite, real HTTP against the v2 API): flapping, the power outage's abrupt disconnection, and a
// reconnect storm.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../simulator/meter/faults/types.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type Device, data, failed, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

let t: TestService;
let v2: V2;
/** Availability changes the twins saw, per device, as `online` / `offline:<reason>`. */
const seen = new Map<string, string[]>();

beforeAll(async () => {
  t = await startTestService({ speed: 0, commandTimeoutMs: 300 });
  v2 = v2Client(t.svc.httpUrl);
  t.svc.bus.subscribe((e) => {
    if (e.device_id === undefined || (e.type !== 'meter.online' && e.type !== 'meter.offline')) return;
    const reason = (e.data as { reason?: string }).reason;
    const list = seen.get(e.device_id) ?? [];
    list.push(e.type === 'meter.online' ? 'online' : `offline:${reason}`);
    seen.set(e.device_id, list);
  });
});
afterAll(() => t.close());

function addFault(a: Tenant, kind: Fault['kind'], params: Record<string, unknown>, ms: number | null = null) {
  const now = t.svc.world.clock.now();
  const until = ms === null ? null : now + ms;
  t.svc.world.meter(a.deviceId)!.addFault({ id: 'F1', kind, params, from: now, until, seed: 7 } as Fault);
}
const isOnline = async (a: Tenant) =>
  data(await v2<Device>('GET', `/devices/${a.deviceId}/`, undefined, a.key)).is_online;
const stored = async (a: Tenant) => t.svc.store.countSamples((await t.svc.store.getDevice(a.deviceId))!.pk);
const availability = (a: Tenant, online: boolean) =>
  t.svc.world.twins.waitForAvailability(a.deviceId, online, 3_000);

describe('flapping', () => {
  it('is_online toggles with the windows (the will fires: an abrupt drop), and history keeps every sample', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 1000 });
    const control = await tenant(t.sim, { mode: 'postpaid', load_watts: 1000 }); // the same samples, no fault
    addFault(a, 'flapping', { online_s: 120, offline_s: 120 });
    expect(await isOnline(a)).toBe(true);

    await t.svc.world.advance(130_000); // into the first off window
    expect(await availability(a, false)).toBe(true);
    expect(await isOnline(a)).toBe(false);
    expect(t.svc.world.twins.get(a.deviceId)?.onlineSince).toBeNull(); // the will: no ts [MC-6.2]
    failed(await v2('PUT', `/devices/${a.deviceId}/relay`, { state: false }, a.key), 400, 'device_offline');

    await t.svc.world.advance(120_000); // on again
    expect(await availability(a, true)).toBe(true);
    expect(await isOnline(a)).toBe(true);
    expect(data(await v2('PUT', `/devices/${a.deviceId}/relay`, { state: false }, a.key))).toBe(true);

    await t.svc.world.advance(120_000); // off again
    expect(await availability(a, false)).toBe(true);
    await t.svc.world.advance(120_000); // and on
    expect(await availability(a, true)).toBe(true);
    expect(seen.get(a.deviceId)).toEqual(['online', 'offline:will', 'online', 'offline:will', 'online']);

    // Samples of the off windows were kept by the meter and uploaded on reconnection [MC-7.6]: the faulty
    // meter has every periodic sample of the control meter, plus one connection sample per reconnection
    // [MC-6.7] (relay off after the first reconnection changes no count).
    await t.svc.world.meter(a.deviceId)!.drained();
    await t.svc.world.settle();
    const want = (await stored(control)) + 2;
    await expect.poll(() => stored(a), { timeout: 3_000 }).toBe(want);
    expect(t.svc.world.twins.refused.energyBackwards ?? 0).toBe(0);
  });
});

describe('power_outage (its link part)', () => {
  it('the link drops abruptly (the will fires, is_online false) and comes back when power does', async () => {
    const a = await tenant(t.sim);
    addFault(a, 'power_outage', {}, 60_000);
    await t.svc.world.advance(1_000); // a tick inside the outage
    expect(await availability(a, false)).toBe(true);
    expect(seen.get(a.deviceId)?.at(-1)).toBe('offline:will');
    expect(await isOnline(a)).toBe(false);
    failed(await v2('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key), 400, 'device_offline');
    await t.svc.world.advance(60_000);
    expect(await availability(a, true)).toBe(true);
    expect(data(await v2('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key))).toBeTruthy();
  });

  it('cleared early: the meter reconnects at once', async () => {
    const a = await tenant(t.sim);
    addFault(a, 'power_outage', {});
    t.svc.world.meter(a.deviceId)!.tick();
    expect(await availability(a, false)).toBe(true);
    t.svc.world.meter(a.deviceId)!.clearFaults(['F1']);
    expect(await availability(a, true)).toBe(true);
  });

  it('a meter set offline by the operator stays offline when the outage ends', async () => {
    const a = await tenant(t.sim);
    addFault(a, 'power_outage', {}, 10_000);
    t.svc.world.meter(a.deviceId)!.tick();
    expect(await availability(a, false)).toBe(true);
    await t.svc.world.setOnline(a.deviceId, false);
    await t.svc.world.advance(20_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(await isOnline(a)).toBe(false);
    await t.svc.world.setOnline(a.deviceId, true);
    expect(await availability(a, true)).toBe(true);
  });
});

describe('a drop with telemetry in flight', () => {
  it('unacknowledged samples are sent again after the reconnection [MC-7.6]: none lost', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 1000 });
    const control = await tenant(t.sim, { mode: 'postpaid', load_watts: 1000 });
    addFault(a, 'backlog_burst', {});
    await t.svc.world.advance(1_500 * 60_000);
    const meter = t.svc.world.meter(a.deviceId)!;
    const now = t.svc.world.clock.now();
    meter.clearFaults('all', now); // the burst goes out: two messages of 1,000 and 500 in flight...
    expect(meter.pendingSamples).toBeGreaterThan(1_000);
    meter.addFault({ id: 'F2', kind: 'power_outage', params: {}, from: now, until: null, seed: 1 }, now); // ...cut
    expect(await availability(a, false)).toBe(true);
    meter.clearFaults('all', now);
    expect(await availability(a, true)).toBe(true);
    await meter.drained();
    await t.svc.world.settle();
    await expect.poll(() => stored(a), { timeout: 3_000 }).toBe((await stored(control)) + 1); // + the reconnection's
  });
});

describe('reconnect_storm', () => {
  it('20 abrupt reconnections 30 ms apart: broker and twins survive, the meter ends online, nothing lost', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 800, telemetry_period_s: 1 });
    const control = await tenant(t.sim, { mode: 'postpaid', load_watts: 800, telemetry_period_s: 1 });
    const before = seen.get(a.deviceId)?.length ?? 0;
    addFault(a, 'reconnect_storm', { reconnects: 20, interval_ms: 30 });
    t.svc.world.meter(a.deviceId)!.tick();
    for (let i = 0; i < 10; i++) await t.svc.world.advance(1_000); // telemetry flows during the storm
    // The storm is over (20 × 30 ms, plus the reconnections): polled, not a fixed 3 s.
    await expect
      .poll(() => t.svc.world.meter(a.deviceId)!.storming, { timeout: 15_000, interval: 20 })
      .toBe(false);
    expect(await availability(a, true)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(await isOnline(a)).toBe(true); // no late will overwrote the last online
    const changes = (seen.get(a.deviceId) ?? []).slice(before);
    expect(changes.filter((c) => c === 'offline:will').length).toBeGreaterThanOrEqual(5);
    expect(changes.at(-1)).toBe('online');
    expect(data(await v2('PUT', `/devices/${a.deviceId}/relay`, { state: false }, a.key))).toBe(true);
    // Every periodic sample got through (unacknowledged ones were sent again), plus connection samples.
    await t.svc.world.settle();
    expect(await stored(a)).toBeGreaterThanOrEqual(await stored(control));
  });
});

describe('reconnect_storm against the broker’s connection rate [MC-10.3]', () => {
  it('connections over the rate are refused, yet the meter gets back in (mqtt.js retries each second)', async () => {
    const s = await startTestService({ speed: 0, mqttLimits: { connectRate: 4 } });
    try {
      const a = await tenant(s.sim);
      await new Promise((r) => setTimeout(r, 1_100)); // the bucket refills
      const now = s.svc.world.clock.now();
      const params = { reconnects: 12, interval_ms: 10 };
      s.svc.world
        .meter(a.deviceId)!
        .addFault({ id: 'F1', kind: 'reconnect_storm', params, from: now, until: null, seed: 1 });
      await expect
        .poll(() => s.svc.broker!.refusals().connections['over the connection rate'] ?? 0, { timeout: 3_000 })
        .toBeGreaterThan(0);
      // The storm itself is over (12 × 10 ms, plus the attempts): polled, not a fixed 2 s.
      await expect
        .poll(() => s.svc.world.meter(a.deviceId)!.storming, { timeout: 15_000, interval: 20 })
        .toBe(false);
      const back = () =>
        s.svc.world.meter(a.deviceId)!.connected && s.svc.world.twins.get(a.deviceId)?.online;
      await expect.poll(back, { timeout: 6_000 }).toBe(true);
      const v = v2Client(s.svc.httpUrl);
      expect(data(await v('PUT', `/devices/${a.deviceId}/relay`, { state: false }, a.key))).toBe(true);
    } finally {
      await s.close();
    }
  });
});
