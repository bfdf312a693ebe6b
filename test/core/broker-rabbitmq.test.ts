// issue 11 §1: a broker where logins and topic permissions are the broker's own business, RabbitMQ's
// MQTT plugin (`serve --broker mqtt://… --broker-logins unmanaged`), on a node of the test's own
// (test/helpers/rabbitmq.ts). meterstack creates no login there: the test, as the operator, makes the
// meter's with rabbitmqctl. Telemetry, a command round trip and availability (the will on a dropped
// socket) go through it. What meterstack does and does not manage there: docs/brokers.md.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalMeter } from '../hardening/external-meter.ts';
import { type RunningRabbitMq, skipWithoutRabbitMq, startRabbitMq } from '../helpers/rabbitmq.ts';
import {
  newAccount,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';

describe.skipIf(skipWithoutRabbitMq)('the service on RabbitMQ’s MQTT plugin (logins unmanaged)', () => {
  let rabbit: RunningRabbitMq;
  let t: TestService;
  let dev: Provisioned;
  let meter: ExternalMeter;

  beforeAll(async () => {
    rabbit = await startRabbitMq();
    t = await startTestService({ broker: rabbit.brokerUrl, brokerLogins: 'unmanaged' });
    const { account_id } = await newAccount(t.sim);
    dev = await provision(t.sim, { account_id, external: true });
    // The operator's part: the meter's login on the broker, limited to meterstack's exchange.
    await rabbit.ctl('add_user', dev.device_id, dev.mqtt.password);
    await rabbit.ctl('set_permissions', '-p', '/', dev.device_id, '^mqtt-subscription-.*', '.*', '.*');
    meter = await ExternalMeter.start({
      url: t.svc.mqttUrl,
      deviceId: dev.device_id,
      password: dev.mqtt.password,
      balance: 500,
    });
  }, 90_000);
  afterAll(async () => {
    await meter?.stop().catch(() => {});
    await t?.close();
    await rabbit?.stop();
  }, 30_000);

  it('is started as external with unmanaged logins, at the broker’s address', () => {
    expect(t.svc.meterBroker).toMatchObject({ kind: 'external', logins: 'unmanaged', url: rabbit.url });
    expect(t.svc.broker).toBeNull();
  });

  it('hears the meter come online and stores its telemetry [MC-6.3, MC-7.1]', async () => {
    expect(await t.svc.world.twins.waitForAvailability(dev.device_id, true, 5_000)).toBe(true);
    const pk = (await t.svc.store.getDevice(dev.device_id))!.pk;
    await meter.publishSample({ ...meter.sample, ts: Date.now() });
    await expect
      .poll(() => t.svc.store.countSamples(pk), { timeout: 5_000 })
      .toBeGreaterThanOrEqual(2)
      .catch((err) => {
        throw new Error(`${(err as Error).message}\n${t.logs.join('\n')}`);
      });
  });

  it('commands the meter and gets its reply [MC-8.1, MC-8.5]', async () => {
    const outcome = await t.svc.world.twins.command(dev.device_id, { op: 'set_relay', on: false }, 3_000);
    expect(outcome.ok).toBe(true);
    expect(meter.commands.at(-1)?.command).toEqual({ op: 'set_relay', on: false });
  });

  it('sees the meter offline by its will when its socket dies [MC-6.2]', async () => {
    // Let the state the meter sends after its reply be acknowledged first: its publish would reject.
    await new Promise((r) => setTimeout(r, 300));
    meter.client.stream.destroy();
    expect(await t.svc.world.twins.waitForAvailability(dev.device_id, false, 10_000)).toBe(true);
  });
});
