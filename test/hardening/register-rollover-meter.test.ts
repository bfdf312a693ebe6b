// [M-26] [MC-7.10] A virtual meter whose register rolls over, on a real broker, into a real service: its
// info declares register_max_kwh [MC-4.6], its buffered telemetry is split into a new message at the
// rollover (the codec would reject a fall inside one), and the service stores one continuous series.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloverMaxMwms } from '../../simulator/meter/faults/register.ts';
import { createMeter, energyKwhAtWh } from '../../simulator/meter/index.ts';
import { VirtualMeter } from '../../simulator/virtual-meter.ts';
import { TWIN_METRICS } from '../../src/devices/channels/context.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { tenant } from '../helpers/v2.ts';
import { until } from './hand-meter.ts';

const MIN = 60_000;
let t: TestService;
let clients: ServiceClients;
let meter: VirtualMeter;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
});
afterAll(async () => {
  await meter?.stop();
  await clients?.endAll();
  await t?.close();
});

describe('a rolling register end to end', () => {
  it('[MC-7.10] buffered samples across a rollover go in two messages; the stored series is continuous', async () => {
    const ext = await tenant(t.sim, { external: true, model: 'basic' });
    const t0 = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    const start = Math.floor(t0 / MIN) * MIN - 10 * MIN;
    const state = {
      ...createMeter(
        {
          deviceId: ext.deviceId,
          mode: 'postpaid',
          load: { kind: 'constant', watts: 1000 },
          energyKwh: 0.95,
          serial: 'SN-ROLL',
        },
        start,
      ),
      registerMax: rolloverMaxMwms(1), // as the register_rollover fault's start leaves it
    };
    const admin = await clients.admin();
    const inbox = new Inbox(admin);
    await admin.subscribeAsync(`meterstack/v1/${ext.deviceId}/#`, { qos: 1 });
    meter = new VirtualMeter({
      state,
      now: () => t0,
      mqttUrl: t.svc.mqttUrl,
      password: ext.mqtt.password,
      online: false,
    });
    meter.tick(t0); // 10 samples held offline: 0.967 … 0.983, then 0 (1.0 rolled over) … 0.117
    await meter.setOnline(true);
    await until(
      () => (t.svc.world.twins.get(ext.deviceId)?.lastSampleTs ?? 0) >= meter.lastSampleTs,
      'stored',
    );

    const info = await inbox.waitFor((m) => m.topic.endsWith('/info'));
    expect(info.json).toMatchObject({ serial: 'SN-ROLL', register_max_kwh: 1 });
    const batches = inbox
      .on(`meterstack/v1/${ext.deviceId}/telemetry`)
      .map((m) => (m.json['samples'] as { energy: number }[]).map((s) => s.energy));
    expect(batches[0]!.at(-1)).toBe(0.983);
    expect(batches[1]![0]).toBe(0); // a new message at the rollover
    for (const b of batches) expect(b).toEqual([...b].sort((x, y) => x - y));

    const pk = (await t.svc.store.getDevice(ext.deviceId))!.pk;
    // What the meter integrated (from 0.95 kWh), not what its rolled-over register shows.
    const integrated = energyKwhAtWh(meter.state.energy);
    expect(integrated).toBeGreaterThan(1.1);
    expect((await t.svc.store.latestSample(pk))?.energy).toBe(integrated);
    expect(t.svc.world.twins.refused.energyBackwards).toBe(0);
    expect(t.svc.metrics.value(TWIN_METRICS.malformed)!).toBe(0);
  });
});
