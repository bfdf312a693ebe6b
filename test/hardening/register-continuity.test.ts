// Issue 12 §1 register faults, seen from the service: a meter's register reset (a higher register_epoch)
// and rollover (at the register_max_kwh its info declared) are joined into one continuous energy series
// [MC-7.9] [MC-7.10] [MC-7.11]: what is stored and shown never goes backwards, a backwards epoch is
// refused, the events say what happened, and a restart keeps the join (SQLite and PostgreSQL).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeterEvent } from '../../src/events/schemas.ts';
import { type DbBackend, dbBackends, freshDb } from '../helpers/db.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../helpers/v2.ts';
import { HandMeter, infoPayload, sample, statePayload, until } from './hand-meter.ts';

interface Device {
  readings: { property_id: string; value: number }[];
}
interface History {
  readings: { value: number; timestamp: string }[];
}
const at = (ts: number, energy: number, epoch?: number) => ({
  ...sample(ts, energy, 1000),
  ...(epoch === undefined ? {} : { register_epoch: epoch }),
});

describe.each(await dbBackends())('register continuity on $name', ({ name }: { name: DbBackend }) => {
  let t: TestService;
  let clients: ServiceClients;
  let a: Tenant;
  let meter: HandMeter;
  let t0: number;
  let db: { db: string; remove: () => Promise<void> };
  const events: MeterEvent[] = [];

  const start = async () => {
    t = await startTestService({ db: db.db, speed: 0 });
    t.svc.bus.subscribe((e) => events.push(e));
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
  };
  const connect = async (info: Record<string, unknown>) => {
    meter = await HandMeter.connect(clients, a.mqtt, statePayload(t0 - 900_000, { balance: 1000 }));
    await meter.publish('info', info, true);
    expect(await t.svc.world.twins.waitForAvailability(a.deviceId, true, 5_000)).toBe(true);
  };
  const pk = async () => (await t.svc.store.getDevice(a.deviceId))!.pk;
  const newest = async () => (await t.svc.store.latestSample(await pk()))?.energy;
  const storedAt = async (ts: number) => {
    for (let i = 0; (await t.svc.store.latestSample(await pk()))?.ts !== ts; i++) {
      if (i > 500) throw new Error(`sample ${ts} never stored`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const shownEnergy = async () =>
    data(await v2Client(t.svc.httpUrl, a.key)<Device>('GET', `/devices/${a.deviceId}/`)).readings.find(
      (r) => r.property_id === 'energy',
    )?.value;
  const ofType = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);

  beforeAll(async () => {
    db = await freshDb(name);
    await start();
    a = await tenant(t.sim, { external: true, model: 'basic' });
    t0 = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    await connect({ ...infoPayload(a.deviceId), serial: 'SN-A' });
  });
  afterAll(async () => {
    await clients?.endAll();
    await t?.close();
    await db?.remove();
  });

  it('[MC-7.9] a reset: later register values continue from the old register’s last one', async () => {
    await meter.publish('telemetry', { v: 1, samples: [at(t0 - 600_000, 10), at(t0 - 540_000, 10.5)] });
    // Within one message, energy may fall where the epoch rises.
    await meter.publish('telemetry', {
      v: 1,
      samples: [at(t0 - 510_000, 10.6), at(t0 - 480_000, 0.2, 1), at(t0 - 420_000, 0.4, 1)],
    });
    await storedAt(t0 - 420_000);
    expect(await newest()).toBe(11); // 10.6 + 0.4
    expect(await shownEnergy()).toBe(11);
    expect(ofType('meter.register_reset')).toEqual([{ epoch: 1, offset_kwh: 10.6, last_kwh: 10.6 }]);
  });

  it('[MC-7.9] an epoch going backwards is refused: nothing stored', async () => {
    const before = t.svc.world.twins.refused.registerEpoch;
    await meter.publish('telemetry', { v: 1, samples: [at(t0 - 400_000, 10.9)] }); // epoch 0 again
    await until(() => t.svc.world.twins.refused.registerEpoch > before, 'the backwards epoch refused');
    expect(await newest()).toBe(11);
  });

  it('[MC-7.10] a rollover at the declared register_max_kwh adds it; another fall is still refused', async () => {
    await meter.publish('info', { ...infoPayload(a.deviceId), serial: 'SN-A', register_max_kwh: 1 }, true);
    await meter.publish('telemetry', { v: 1, samples: [at(t0 - 360_000, 0.95, 1)] });
    await meter.publish('telemetry', { v: 1, samples: [at(t0 - 300_000, 0.05, 1)] }); // rolled over
    await storedAt(t0 - 300_000);
    expect(await newest()).toBe(11.65); // 10.6 + 1 + 0.05
    expect(ofType('meter.register_rollover')).toEqual([
      { epoch: 1, offset_kwh: 11.6, max_kwh: 1, last_kwh: 0.95 },
    ]);
    const before = t.svc.world.twins.refused.energyBackwards;
    await meter.publish('telemetry', { v: 1, samples: [at(t0 - 240_000, 0.01, 1)] }); // not near the max
    await until(() => t.svc.world.twins.refused.energyBackwards > before, 'the fall refused');
    expect(await newest()).toBe(11.65);
  });

  it('[MC-7.11] a restart keeps the join; history is monotonic and last − first is the consumption', async () => {
    await clients.endAll();
    await t.close();
    await start();
    await connect({ ...infoPayload(a.deviceId), serial: 'SN-A', register_max_kwh: 1 });
    await meter.publish('telemetry', { v: 1, samples: [at(t0 - 180_000, 0.15, 1)] });
    await storedAt(t0 - 180_000);
    expect(await newest()).toBe(11.75); // not 11.8: the offset came back, the old register is not counted twice
    const day = new Date(t0 + 19_800_000).toISOString().slice(0, 10);
    const prev = new Date(t0 - 86_400_000 + 19_800_000).toISOString().slice(0, 10);
    const h = data(
      await v2Client(t.svc.httpUrl, a.key)<History>(
        'GET',
        `/devices/${a.deviceId}/metrics/history?property_id=energy&from_date=${prev}&to_date=${day}&interval=15m`,
      ),
    ).readings.map((r) => r.value);
    expect(h).toEqual([...h].sort((x, y) => x - y));
    expect(h.at(-1)).toBe(11.75);
    // 0.5 + 0.1 on the first register, 0.4 + 0.55 + 0.1 on the second, plus its rollover: 1.75 kWh.
    expect(Math.round((h.at(-1)! - 10) * 1e6) / 1e6).toBe(1.75);
  });

  it('[MC-4.5] a new serial is a replaced meter: meter.replaced', async () => {
    await meter.publish('info', { ...infoPayload(a.deviceId), serial: 'SN-B' }, true);
    await until(() => ofType('meter.replaced').length > 0, 'meter.replaced');
    expect(ofType('meter.replaced')).toEqual([{ old_serial: 'SN-A', new_serial: 'SN-B' }]);
  });
});
