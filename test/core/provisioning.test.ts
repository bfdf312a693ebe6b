// A meter provisioned through /sim/v1 comes online on the real broker, and its credentials are real
// MQTT credentials: they work from a plain mqtt.js client and a wrong password is refused at CONNECT.
// On the embedded broker and on Mosquitto with dynamic security (test/helpers/brokers.ts).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { subscribe } from '../../src/broker/test-helpers.ts';
import { createMeterClient } from '../../src/mqtt/connect.ts';
import { BROKERS, REFUSAL, type ServiceOnBroker, startServiceOn } from '../helpers/brokers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, newAccount, ok, provision } from '../helpers/service.ts';

describe.each(BROKERS)('on the %s broker', (broker) => {
  // MQTT 3.1.1 CONNACK return code 4 (Mosquitto's dynamic security answers 5, not authorized).
  const BAD_USERNAME_OR_PASSWORD = REFUSAL[broker].badPassword;

  let t: ServiceOnBroker;
  let clients: ServiceClients;
  let accountId: number;

  beforeAll(async () => {
    t = await startServiceOn(broker);
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
    accountId = (await newAccount(t.sim)).account_id;
  });
  afterEach(() => clients.endAll());
  afterAll(() => t?.close());

  describe('a virtual meter provisioned through /sim/v1', () => {
    it('is online in its twin and connected as soon as POST /devices returns', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, model: 'full', load_watts: 500 });
      expect(t.svc.world.twins.get(device_id)?.online).toBe(true);
      const view = ok(await t.sim<{ online: boolean; connected: boolean }>('GET', `/devices/${device_id}`));
      expect(view).toMatchObject({ online: true, connected: true });
      if (t.svc.broker) expect(t.svc.broker.connectedClients()).toBeGreaterThanOrEqual(2); // the meter and the service
    });

    it('leaves retained info, state and availability that a fresh admin client reads [MC-4.1, MC-5.1, MC-6.3]', async () => {
      const { device_id } = await provision(t.sim, {
        account_id: accountId,
        model: 'full',
        mode: 'postpaid',
        balance: 4321,
        telemetry_period_s: 30,
      });
      const admin = await clients.admin();
      const inbox = new Inbox(admin);
      expect(await subscribe(admin, `meterstack/v1/${device_id}/+`)).toBe(1);
      const retained = (channel: 'info' | 'state' | 'availability') =>
        inbox.waitFor(
          (m) => m.topic === topicFor(device_id, channel) && m.retain,
          3_000,
          `retained ${channel}`,
        );
      const [info, state, availability] = await Promise.all([
        retained('info'),
        retained('state'),
        retained('availability'),
      ]);
      expect(info.json).toMatchObject({
        v: 1,
        device_id,
        model: 'full',
        has_relay: true,
        telemetry_period_s: 30,
      });
      expect((info.json.properties as { property_id: string }[]).map((p) => p.property_id)).toEqual([
        'energy',
        'active_power',
        'voltage',
        'current',
        'power_factor',
        'apparent_power',
        'reactive_power',
      ]);
      expect(state.json).toMatchObject({ v: 1, mode: 'postpaid', balance: 4321, relay_state: true });
      expect(availability.json).toMatchObject({ v: 1, online: true });
    });

    it('really disconnects and reconnects on POST /devices/{id}/online [MC-6.4, MC-6.6]', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, online: false });
      expect(t.svc.world.twins.get(device_id)?.online ?? false).toBe(false);
      ok(await t.sim('POST', `/devices/${device_id}/online`, { online: true }));
      expect(t.svc.world.twins.get(device_id)?.online).toBe(true);

      ok(await t.sim('POST', `/devices/${device_id}/online`, { online: false }));
      expect(t.svc.world.twins.get(device_id)?.online).toBe(false);
      const admin = await clients.admin();
      const inbox = new Inbox(admin);
      await subscribe(admin, topicFor(device_id, 'availability'));
      const last = await inbox.waitFor((m) => m.retain, 3_000, 'retained availability');
      expect(last.json).toMatchObject({ online: false });
    });
  });

  describe('the MQTT credentials POST /devices returns', () => {
    it('let a plain mqtt.js client log in as the device, subscribe to its cmd and be seen online [MC-2.1, MC-2.2]', async () => {
      const { device_id, mqtt } = await provision(t.sim, { account_id: accountId, external: true });
      expect(mqtt).toEqual({ url: t.svc.mqttUrl, username: device_id, password: expect.any(String) });
      const meter = await clients.device(mqtt);
      expect(await subscribe(meter, topicFor(device_id, 'cmd'))).toBe(1);
      await meter.publishAsync(topicFor(device_id, 'availability'), JSON.stringify({ v: 1, online: true }), {
        qos: 1,
        retain: true,
      });
      expect(await t.svc.world.twins.waitForAvailability(device_id, true, 2_000)).toBe(true);
    });

    it('are refused at CONNECT with a wrong password (return code 4) [MC-2.5]', async () => {
      const { device_id, mqtt } = await provision(t.sim, { account_id: accountId, external: true });
      const code = await clients.refused({
        clientId: device_id,
        username: device_id,
        password: `${mqtt.password}x`,
      });
      expect(code).toBe(BAD_USERNAME_OR_PASSWORD);
      expect(await clients.refused({ clientId: 'nobody', username: 'nobody', password: mqtt.password })).toBe(
        BAD_USERNAME_OR_PASSWORD,
      );
      expect(await clients.refused({ clientId: 'x', username: 'admin', password: 'not-the-token' })).toBe(
        BAD_USERNAME_OR_PASSWORD,
      );
    });

    it('of a virtual meter are refused with a wrong password too, and the meter stays online', async () => {
      const { device_id, mqtt } = await provision(t.sim, { account_id: accountId });
      expect(await clients.refused({ clientId: device_id, username: device_id, password: 'wrong' })).toBe(
        BAD_USERNAME_OR_PASSWORD,
      );
      expect(t.svc.world.twins.get(device_id)?.online).toBe(true);
      expect(mqtt.password).toMatch(/^mqs_/);
    });

    it('let a meter with a will go offline by it when its socket dies [MC-6.2]', async () => {
      const { device_id, mqtt } = await provision(t.sim, { account_id: accountId, external: true });
      const meter = createMeterClient({
        url: mqtt.url,
        deviceId: device_id,
        password: mqtt.password,
        reconnectPeriod: 0,
      });
      await new Promise<void>((resolve, reject) => {
        meter.once('connect', () => resolve());
        meter.once('error', reject);
      });
      await meter.publishAsync(topicFor(device_id, 'availability'), JSON.stringify({ v: 1, online: true }), {
        qos: 1,
        retain: true,
      });
      expect(await t.svc.world.twins.waitForAvailability(device_id, true, 2_000)).toBe(true);
      meter.stream.destroy();
      expect(await t.svc.world.twins.waitForAvailability(device_id, false, 5_000)).toBe(true);
      meter.end(true);
    });
  });
});
