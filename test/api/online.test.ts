// Online rules (spec §1, §4 "Further rules", §7): control and live metrics need the meter online
// (device_offline); WiFi on an offline meter is device_not_found; history and the device record work
// offline. A meter that is online but does not answer in time gets its own code: device_timeout for
// control, properties_unreadable ("properties unreadable") for metrics, device_not_found for WiFi.

import type { MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { subscribe } from '../../src/broker/test-helpers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import {
  type Device,
  data,
  failed,
  type History,
  type Tenant,
  tenant,
  type V2,
  v2Client,
} from '../helpers/v2.ts';

const TIMEOUT_MS = 300;

let t: TestService;
let clients: ServiceClients;
let v2: V2;

beforeAll(async () => {
  t = await startTestService({ speed: 0, commandTimeoutMs: TIMEOUT_MS });
  clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
  v2 = v2Client(t.svc.httpUrl);
});
afterEach(() => clients.endAll());
afterAll(() => t.close());

const CONTROL: [string, string, unknown][] = [
  ['7. relay', 'relay', { state: false }],
  ['8. mode', 'mode', { mode: 'postpaid' }],
  ['9. EB tariff', 'tariffs/eb', { tariff: 900 }],
  ['10. DG tariff', 'tariffs/dg', { tariff: 2500 }],
  ['11. active tariff', 'tariffs/active', { active_tariff: 2 }],
  ['15. gateway', 'payments/gateway', { state: true }],
];

describe('a meter that is offline', () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await tenant(t.sim, { mode: 'postpaid', load_watts: 500, backfill_days: 1, backfill_period_s: 900 });
    ok(await t.sim('POST', `/devices/${a.deviceId}/online`, { online: false }));
  });
  const dev = (path: string) => `/devices/${a.deviceId}/${path}`;

  it.each(CONTROL)('%s → 400 device_offline', async (_n, path, body) => {
    const detail = failed(await v2('PUT', dev(path), body, a.key), 400, 'device_offline');
    expect(detail).toContain(a.deviceId);
  });

  it('5. metrics → 400 device_offline', async () => {
    failed(await v2('GET', dev('metrics'), undefined, a.key), 400, 'device_offline');
  });

  it('13, 14. WiFi → 400 device_not_found, saying the network details are missing', async () => {
    const get = failed(await v2('GET', dev('wifi'), undefined, a.key), 400, 'device_not_found');
    const post = failed(
      await v2('POST', dev('wifi'), { ssid: 'x', password: 'y' }, a.key),
      400,
      'device_not_found',
    );
    for (const detail of [get, post]) expect(detail).toMatch(/offline/);
  });

  it('nothing was applied to the meter', async () => {
    const meter = ok(await t.sim<Record<string, unknown>>('GET', `/devices/${a.deviceId}`));
    expect(meter).toMatchObject({
      online: false,
      mode: 'postpaid',
      relay_commanded: true,
      pg_enabled: false,
    });
    expect(meter).toMatchObject({ eb_tariff: 800, dg_tariff: 2000, active_tariff: 1 });
  });

  it('4. the device record still works, with is_online false', async () => {
    const device = data(await v2<Device>('GET', dev(''), undefined, a.key));
    expect(device).toMatchObject({ is_online: false, active_mode: 'postpaid' });
    expect(device.readings.find((r) => r.property_id === 'active_power')?.value).toBe(500);
  });

  it('6. metadata can still be edited, and 12. history read', async () => {
    expect(data(await v2('PUT', dev(''), { name: 'offline but renamed' }, a.key), 'device updated')).toBe(
      true,
    );
    const clock = ok(await t.sim<{ now: string }>('GET', '/clock'));
    const day = clock.now.slice(0, 10);
    const qs = `property_id=energy&from_date=${day}&to_date=${day}&interval=15m`;
    const history = data(await v2<History>('GET', dev(`metrics/history?${qs}`), undefined, a.key));
    expect(history.readings.length).toBeGreaterThan(0);
  });

  it('comes back: online again, control works', async () => {
    const b = await tenant(t.sim);
    ok(await t.sim('POST', `/devices/${b.deviceId}/online`, { online: false }));
    failed(await v2('PUT', `/devices/${b.deviceId}/relay`, { state: false }, b.key), 400, 'device_offline');
    ok(await t.sim('POST', `/devices/${b.deviceId}/online`, { online: true }));
    expect(
      data(await v2('PUT', `/devices/${b.deviceId}/relay`, { state: false }, b.key), 'relay state updated'),
    ).toBe(true);
    expect(data(await v2<Device>('GET', `/devices/${b.deviceId}/`, undefined, b.key)).is_online).toBe(true);
  });
});

/** An external meter on a raw mqtt.js client: online per [MC-6.3], listening on cmd, answering as told. */
async function externalMeter(answer?: (cmd: Record<string, unknown>) => unknown) {
  const a = await tenant(t.sim, { external: true });
  const client: MqttClient = await clients.device(a.mqtt);
  const heard = new Inbox(client);
  await subscribe(client, topicFor(a.deviceId, 'cmd'));
  if (answer) {
    client.on('message', (_topic, payload) => {
      const cmd = JSON.parse(payload.toString()) as Record<string, unknown>;
      const reply = answer(cmd);
      if (reply !== undefined)
        void client.publishAsync(topicFor(a.deviceId, 'reply'), JSON.stringify(reply), { qos: 1 });
    });
  }
  await client.publishAsync(topicFor(a.deviceId, 'availability'), JSON.stringify({ v: 1, online: true }), {
    qos: 1,
    retain: true,
  });
  expect(await t.svc.world.twins.waitForAvailability(a.deviceId, true, 2_000)).toBe(true);
  return { a, client, heard };
}

describe('a meter that is online but never answers', () => {
  // All at once against one silent meter: each request waits out its own command timeout.
  it('control (7–11, 15) → 400 device_timeout; metrics → properties_unreadable; WiFi → device_not_found', async () => {
    const { a, heard } = await externalMeter();
    const dev = (path: string) => `/devices/${a.deviceId}/${path}`;
    const started = performance.now();
    const [control, metrics, wifiGet, wifiPost] = await Promise.all([
      Promise.all(CONTROL.map(([, path, body]) => v2('PUT', dev(path), body, a.key))),
      v2('GET', dev('metrics'), undefined, a.key),
      v2('GET', dev('wifi'), undefined, a.key),
      v2('POST', dev('wifi'), { ssid: 'x', password: 'y' }, a.key),
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    for (const [i, res] of control.entries()) {
      const detail = failed(res, 400, 'device_timeout');
      expect(detail, CONTROL[i]![0]).toContain(`did not answer within ${TIMEOUT_MS} ms`);
    }
    expect(failed(metrics, 400, 'properties_unreadable')).toMatch(/properties unreadable/i);
    failed(wifiGet, 400, 'device_not_found');
    failed(wifiPost, 400, 'device_not_found');
    // Every command was really sent: the meter just did not answer.
    await heard.count(CONTROL.length + 3);
    expect(heard.on(topicFor(a.deviceId, 'cmd'))).toHaveLength(CONTROL.length + 3);
  });

  it('the device record does not wait for the meter: it answers at once, is_online true', async () => {
    const { a } = await externalMeter();
    const started = performance.now();
    const device = data(await v2<Device>('GET', `/devices/${a.deviceId}/`, undefined, a.key));
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(device).toMatchObject({ is_online: true, readings: [] });
  });
});

describe('a meter that answers with something unreadable', () => {
  it('5. metrics → 400 properties_unreadable', async () => {
    const { a } = await externalMeter((cmd) => ({ v: 1, id: cmd.id, ok: true, data: { readings: {} } }));
    const detail = failed(
      await v2('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key),
      400,
      'properties_unreadable',
    );
    expect(detail).toMatch(/properties unreadable/i);
  });

  it('a refusal of a control command → 400 device_rejected with the meter’s reason', async () => {
    const { a } = await externalMeter((cmd) => ({
      v: 1,
      id: cmd.id,
      ok: false,
      error: { code: 'busy', message: 'in WiFi configuration' },
    }));
    const detail = failed(
      await v2('PUT', `/devices/${a.deviceId}/relay`, { state: true }, a.key),
      400,
      'device_rejected',
    );
    expect(detail).toMatch(/busy.*in WiFi configuration/);
  });
});
