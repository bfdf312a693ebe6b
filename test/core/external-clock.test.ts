// [MC-11] A meter on wall time in a virtual world: an external meter (here driven by hand over a real
// broker with its own login, stamping wall time as a bridged or real meter does) has its data mapped
// onto the world's clock at receipt, so after `advance 6h` its next samples, events and history land at
// the world's now, not 6 h back, and "last seen" is seconds ago. The advance does not wait for it and
// says it did not live through the jump. Both stores.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeterEvent } from '../../src/events/schemas.ts';
import { HandMeter, infoPayload, sample, statePayload, until } from '../hardening/hand-meter.ts';
import { type DbBackend, dbBackends, freshDb } from '../helpers/db.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../helpers/v2.ts';

const H = 3_600_000;
const istDay = (ms: number) => new Date(ms + 19_800_000).toISOString().slice(0, 10);

describe.each(await dbBackends())(
  'an external meter across a clock advance on $name [MC-11]',
  ({ name }: { name: DbBackend }) => {
    let t: TestService;
    let clients: ServiceClients;
    let db: { db: string; remove: () => Promise<void> };
    let a: Tenant;
    let meter: HandMeter;
    const events: MeterEvent[] = [];

    beforeAll(async () => {
      db = await freshDb(name);
      t = await startTestService({ db: db.db, speed: 1 }); // a hardware engineer's world: 1×
      t.svc.bus.subscribe((e) => events.push(e));
      clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
      a = await tenant(t.sim, { external: true, model: 'basic' });
      meter = await HandMeter.connect(clients, a.mqtt, statePayload(Date.now()));
      expect(await t.svc.world.twins.waitForAvailability(a.deviceId, true, 5_000)).toBe(true);
    }, 30_000);
    afterAll(async () => {
      await clients?.endAll();
      await t?.close();
      await db?.remove();
    });

    const clock = async () => ok(await t.sim<{ now_ms: number; wall_offset_ms: number }>('GET', '/clock'));
    const newest = async () => t.svc.store.latestSample((await t.svc.store.getDevice(a.deviceId))!.pk);
    const row = async () =>
      ok(
        await t.sim<{ devices: { device_id: string; last_seen: number; kind: string }[] }>('GET', '/fleet'),
      ).devices.find((d) => d.device_id === a.deviceId)!;

    it('[MC-11.2] at 1× with no jump, its wall-clock samples line up with the world', async () => {
      const ts = Date.now();
      await meter.publish('telemetry', { v: 1, samples: [sample(ts, 10)] });
      await until(() => t.svc.world.twins.get(a.deviceId)?.latest?.energy === 10, 'sample taken');
      await t.svc.world.settle();
      const c = await clock();
      expect(Math.abs(c.wall_offset_ms)).toBeLessThan(1_000);
      expect(Math.abs((await newest())!.ts - ts)).toBeLessThan(1_000);
    });

    it('[MC-11.3] an advance of 6 h does not wait for it and names it as not having lived through the jump', async () => {
      const res = await t.sim<{ wall_clock_meters: string[] }>('POST', '/clock/advance', {
        seconds: 6 * 3600,
      });
      expect(ok(res).wall_clock_meters).toEqual([a.deviceId]);
      expect(t.logs.join('\n')).toMatch(
        new RegExp(
          `did not live through it, their next data map onto the new time \\[MC-11\\.3\\]: ${a.deviceId}`,
        ),
      );
      const c = await clock();
      expect(c.wall_offset_ms).toBeGreaterThanOrEqual(6 * H - 1_000);
    });

    it('[MC-11.2] after the advance its next sample, state event and history land at the world’s now; last seen is seconds ago', async () => {
      const before = await clock();
      const wall = Date.now();
      await meter.publish('telemetry', { v: 1, samples: [sample(wall, 10.01)] });
      await meter.publish('state', statePayload(wall, { relay_commanded: false, relay_state: false }), true);
      await until(() => t.svc.world.twins.get(a.deviceId)?.latest?.energy === 10.01, 'sample taken');
      await until(() => events.some((e) => e.type === 'meter.relay'), 'relay event');
      await t.svc.world.settle();
      const stored = (await newest())!;
      const after = await clock();
      // On the world's clock: within the window the message was received in, not 6 h back.
      expect(stored.ts).toBeGreaterThanOrEqual(before.now_ms - 2_000);
      expect(stored.ts).toBeLessThanOrEqual(after.now_ms + 1_000);
      // The console's "last seen" is now − last_seen, on the world's clock.
      const seen = (await row()).last_seen;
      expect(after.now_ms - seen).toBeLessThan(10_000);
      expect(after.now_ms - seen).toBeGreaterThanOrEqual(-1_000);
      // Its events carry the world's time, as every other event does.
      const relay = events.find((e) => e.type === 'meter.relay')!;
      expect(relay.vt).toBeGreaterThanOrEqual(before.now_ms - 2_000);
      expect(relay.vt).toBeLessThanOrEqual(after.now_ms + 1_000);
      // History: the newest 15-minute bucket is the world's now, and holds the new reading.
      const from = istDay(after.now_ms - 24 * H);
      const to = istDay(after.now_ms);
      const h = data(
        await v2Client(t.svc.httpUrl, a.key)<{ readings: { value: number; timestamp: string }[] }>(
          'GET',
          `/devices/${a.deviceId}/metrics/history?property_id=energy&from_date=${from}&to_date=${to}&interval=15m`,
        ),
      ).readings;
      const last = h.at(-1)!;
      expect(last.value).toBe(10.01);
      expect(Date.parse(last.timestamp)).toBeGreaterThan(after.now_ms - 15 * 60_000 - 1);
      // Nothing was invented for the 6 h it did not live through: the bucket before is the old reading's.
      expect(h.filter((r) => r.value === 10.01)).toHaveLength(1);
    });

    it('[MC-4.7] [MC-11.1] an external meter that declares the world’s clock is taken as it is, not mapped, and says so', async () => {
      const b = await tenant(t.sim, { external: true, model: 'basic' });
      const world = await clock();
      expect(world.wall_offset_ms).toBeGreaterThanOrEqual(6 * H - 1_000);
      const other = await HandMeter.connect(clients, b.mqtt, statePayload(world.now_ms));
      await other.publish('info', { ...infoPayload(b.deviceId), clock: 'virtual' }, true);
      await until(() => t.svc.world.twins.get(b.deviceId)?.info?.clock === 'virtual', 'info taken');
      const ts = (await clock()).now_ms;
      await other.publish('telemetry', { v: 1, samples: [sample(ts, 3)] });
      await until(() => t.svc.world.twins.get(b.deviceId)?.latest?.energy === 3, 'sample taken');
      // Its own ts, not ts + 6 h (which would be refused as in the future, MC-3.10).
      expect(t.svc.world.twins.get(b.deviceId)!.latest!.ts).toBe(ts);
      const fleet = ok(
        await t.sim<{ devices: { device_id: string; clock: string }[] }>('GET', '/fleet'),
      ).devices;
      expect(fleet.find((d) => d.device_id === b.deviceId)!.clock).toBe('virtual');
      expect(fleet.find((d) => d.device_id === a.deviceId)!.clock).toBe('wall');
      // An advance names only the meters on wall time as not having lived through it.
      const res = await t.sim<{ wall_clock_meters: string[] }>('POST', '/clock/advance', { seconds: 1 });
      expect(ok(res).wall_clock_meters).not.toContain(b.deviceId);
      await other.client.endAsync();
    });

    it('[MC-11.2] a restart keeps the shift: the next sample still lands at the world’s now', async () => {
      await clients.endAll();
      await t.close();
      t = await startTestService({ db: db.db }); // no --speed: the world's own (1×)
      clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
      meter = await HandMeter.connect(clients, a.mqtt, statePayload(Date.now()));
      const c = await clock();
      expect(Math.abs(c.wall_offset_ms - 6 * H)).toBeLessThan(5_000);
      // 1 Wh more, within MC-7.8 however soon after the last sample it comes.
      await meter.publish('telemetry', { v: 1, samples: [sample(Date.now(), 10.011)] });
      await until(() => t.svc.world.twins.get(a.deviceId)?.latest?.energy === 10.011, 'sample taken');
      const ts = t.svc.world.twins.get(a.deviceId)!.latest!.ts;
      expect(Math.abs(ts - (await clock()).now_ms)).toBeLessThan(5_000);
    }, 30_000);
  },
);
