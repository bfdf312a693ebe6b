// Issue 18 item 14: a wild first sample must not pin a meter's series. Through a real service and broker,
// with an external meter driven by hand, on SQLite and PostgreSQL: a register value above the declared
// maximum is refused, the first sample too [MC-7.12]; an unchecked wild first sample is outvoted by a
// run of honest ones [MC-7.13], also when an older build stored it and the service restarts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TWIN_METRICS } from '../../src/devices/channels/context.ts';
import { sampleRow } from '../../src/store/sample-row.ts';
import { type DbBackend, dbBackends, freshDb } from '../helpers/db.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../helpers/v2.ts';
import { HandMeter, infoPayload, sample, statePayload, until } from './hand-meter.ts';

const MIN = 60_000;
interface Device {
  readings: { property_id: string; value: number }[];
}

describe.each(await dbBackends())('a wild first sample on $name', ({ name }: { name: DbBackend }) => {
  let t: TestService;
  let clients: ServiceClients;
  let db: { db: string; remove: () => Promise<void> };
  let t0: number;

  const start = async () => {
    t = await startTestService({ db: db.db, speed: 0 });
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
  };
  beforeAll(async () => {
    db = await freshDb(name);
    await start();
    t0 = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
  }, 30_000);
  afterAll(async () => {
    await clients?.endAll();
    await t?.close();
    await db?.remove();
  });

  const connect = async (a: Tenant, info: Record<string, unknown>) => {
    const meter = await HandMeter.connect(clients, a.mqtt, statePayload(t0 - 60 * MIN));
    await meter.publish('info', info, true);
    expect(await t.svc.world.twins.waitForAvailability(a.deviceId, true, 5_000)).toBe(true);
    return meter;
  };
  const newestStored = async (a: Tenant) =>
    t.svc.store.latestSample((await t.svc.store.getDevice(a.deviceId))!.pk);
  const storedAt = async (a: Tenant, ts: number) => {
    for (let i = 0; (await newestStored(a))?.ts !== ts; i++) {
      if (i > 500) throw new Error(`sample ${ts} never stored`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const shownEnergy = async (a: Tenant) =>
    data(await v2Client(t.svc.httpUrl, a.key)<Device>('GET', `/devices/${a.deviceId}/`)).readings.find(
      (r) => r.property_id === 'energy',
    )?.value;

  it('[MC-7.12] a first energy above register_max_kwh is refused and counted; the next honest one is the first', async () => {
    const a = await tenant(t.sim, { external: true, model: 'basic' });
    const meter = await connect(a, { ...infoPayload(a.deviceId), register_max_kwh: 99_999.999 });
    const before = t.svc.world.twins.refused.energyImplausible;
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 30 * MIN, 424_242)] });
    await until(() => t.svc.world.twins.refused.energyImplausible > before, 'the wild sample refused');
    expect(t.logs.join('\n')).toMatch(/refused energyImplausible: .*424242.* \[MC-7\.8\]/);
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 29 * MIN, 10.02)] });
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 28 * MIN, 10.04)] });
    await storedAt(a, t0 - 28 * MIN);
    expect(await shownEnergy(a)).toBe(10.04);
  });

  it('[MC-7.13] an unchecked wild first sample is outvoted by three honest ones, which are stored', async () => {
    const a = await tenant(t.sim, { external: true, model: 'basic' });
    const meter = await connect(a, infoPayload(a.deviceId)); // no register_max_kwh: nothing bounds it
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 30 * MIN, 424_242)] });
    await storedAt(a, t0 - 30 * MIN);
    const before = t.svc.world.twins.refused.energyBackwards;
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 29 * MIN, 10.02)] });
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 28 * MIN, 10.04)] });
    await until(() => t.svc.world.twins.refused.energyBackwards === before + 2, 'two refused');
    expect(await shownEnergy(a)).toBe(424_242); // two are not enough
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 27 * MIN, 10.06)] });
    await storedAt(a, t0 - 27 * MIN);
    expect(await shownEnergy(a)).toBe(10.06);
    expect(t.logs.join('\n')).toContain(`re-anchored ${a.deviceId}'s energy series [MC-7.13]`);
    // From now on the series is checked: the next honest sample is taken as any other.
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 26 * MIN, 10.08)] });
    await storedAt(a, t0 - 26 * MIN);
    expect(await shownEnergy(a)).toBe(10.08);
  });

  it('[MC-7.13] a series an older build pinned (its newest stored is the wild one) recovers after a restart', async () => {
    const a = await tenant(t.sim, { external: true, model: 'basic' });
    let meter = await connect(a, infoPayload(a.deviceId));
    // Checked in this process (two agreeing samples), then pinned as an older build would have let it be:
    // the wild one stored as the newest.
    await meter.publish('telemetry', {
      v: 1,
      samples: [sample(t0 - 30 * MIN, 5), sample(t0 - 29 * MIN, 5.01)],
    });
    await storedAt(a, t0 - 29 * MIN);
    const pk = (await t.svc.store.getDevice(a.deviceId))!.pk;
    await t.svc.store.insertSamples([sampleRow(pk, sample(t0 - 28 * MIN, 424_242))]);
    await clients.endAll();
    await t.close();
    await start();
    meter = await connect(a, infoPayload(a.deviceId));
    for (const [m, e] of [
      [27, 5.03],
      [26, 5.05],
      [25, 5.07],
    ] as const)
      await meter.publish('telemetry', { v: 1, samples: [sample(t0 - m * MIN, e)] });
    await storedAt(a, t0 - 25 * MIN);
    expect(await shownEnergy(a)).toBe(5.07);
  }, 30_000);

  it('[MC-7.13] a checked series stays checked across a restart: three lower samples after it are refused, not taken over', async () => {
    const a = await tenant(t.sim, { external: true, model: 'basic' });
    let meter = await connect(a, infoPayload(a.deviceId));
    await meter.publish('telemetry', {
      v: 1,
      samples: [sample(t0 - 20 * MIN, 50), sample(t0 - 19 * MIN, 50.01)],
    });
    await storedAt(a, t0 - 19 * MIN);
    await clients.endAll();
    await t.close();
    await start();
    meter = await connect(a, infoPayload(a.deviceId));
    const before = t.svc.world.twins.refused.energyBackwards;
    for (const [m, e] of [
      [18, 1],
      [17, 1.01],
      [16, 1.02],
    ] as const)
      await meter.publish('telemetry', { v: 1, samples: [sample(t0 - m * MIN, e)] });
    await until(() => t.svc.world.twins.refused.energyBackwards === before + 3, 'three refused');
    expect(t.svc.metrics.value(TWIN_METRICS.reanchored)).toBe(0);
    expect(await shownEnergy(a)).toBe(50.01);
  }, 30_000);
});
