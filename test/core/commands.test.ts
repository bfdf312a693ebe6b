// Commands through the device twin, over the real broker to a real virtual meter and back: a round
// trip, the typed failures (offline, timeout), and a duplicate delivery applied once [MC-8.8].
// On the embedded broker and on Mosquitto with dynamic security (test/helpers/brokers.ts).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { subscribe } from '../../src/broker/test-helpers.ts';
import { BROKERS, type ServiceOnBroker, startServiceOn } from '../helpers/brokers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, newAccount, ok, provision } from '../helpers/service.ts';

describe.each(BROKERS)('on the %s broker', (broker) => {
  let t: ServiceOnBroker;
  let clients: ServiceClients;
  let accountId: number;

  interface MeterView {
    relay_commanded: boolean;
    relay_state: boolean;
    balance: number;
    pg_enabled: boolean;
    balance_exact: { units: string };
  }
  const view = async (id: string) => ok(await t.sim<MeterView>('GET', `/devices/${id}`));

  beforeAll(async () => {
    // speed 0: the meters' clocks stand still, so balances change only by what a test does.
    t = await startServiceOn(broker, { speed: 0 });
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
    accountId = (await newAccount(t.sim)).account_id;
  });
  afterEach(() => clients.endAll());
  afterAll(() => t?.close());

  /** A second client with the service's own login: since [MC-2.6] only the service may publish commands. */
  function asService() {
    const { username, password } = t.svc.service;
    return clients.connect({
      clientId: `test-service-${Math.random().toString(36).slice(2)}`,
      username,
      password,
    });
  }

  describe('a command through the twin', () => {
    it('reads the meter’s present readings and state [MC-8.6]', async () => {
      const { device_id } = await provision(t.sim, {
        account_id: accountId,
        model: 'full',
        load_watts: 1200,
      });
      const outcome = await t.svc.world.twins.command(device_id, { op: 'read' });
      expect(outcome).toMatchObject({
        ok: true,
        data: {
          readings: { active_power: 1200, current: expect.any(Number), power_factor: expect.any(Number) },
          state: { mode: 'prepaid', relay_state: true },
        },
      });
    });

    it('set_relay off opens the relay, as GET /sim/v1/devices/{id} and the twin’s state show [MC-5.3]', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, balance: 1000 });
      expect(await view(device_id)).toMatchObject({ relay_commanded: true, relay_state: true });

      expect(await t.svc.world.twins.command(device_id, { op: 'set_relay', on: false })).toEqual({
        ok: true,
        data: undefined,
      });
      expect(await view(device_id)).toMatchObject({ relay_commanded: false, relay_state: false });
      // The meter publishes its new state before its reply, so the twin already holds it.
      expect(t.svc.world.twins.get(device_id)?.state).toMatchObject({
        relay_commanded: false,
        relay_state: false,
      });

      await t.svc.world.twins.command(device_id, { op: 'set_relay', on: true });
      expect(await view(device_id)).toMatchObject({ relay_commanded: true, relay_state: true });
    });

    it('is rejected with the meter’s own error code for a bad argument [MC-8.7]', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId });
      const outcome = await t.svc.world.twins.command(device_id, {
        op: 'set_tariff',
        slot: 'eb',
        paise: 10_000_000,
      });
      expect(outcome).toMatchObject({ ok: false, reason: 'rejected', code: 'invalid_argument' });
    });

    it('to an offline meter fails at once with `offline` [MC-6.6]', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId });
      ok(await t.sim('POST', `/devices/${device_id}/online`, { online: false }));
      const started = performance.now();
      const outcome = await t.svc.world.twins.command(device_id, { op: 'read' }, 5_000);
      expect(outcome).toEqual({ ok: false, reason: 'offline' });
      expect(performance.now() - started).toBeLessThan(100);
    });

    it('to a connected meter that never answers fails with `timeout` after the given time', async () => {
      const { device_id, mqtt } = await provision(t.sim, { account_id: accountId, external: true });
      const silent = await clients.device(mqtt);
      const heard = new Inbox(silent);
      await subscribe(silent, topicFor(device_id, 'cmd'));
      await silent.publishAsync(topicFor(device_id, 'availability'), JSON.stringify({ v: 1, online: true }), {
        qos: 1,
        retain: true,
      });
      await t.svc.world.twins.waitForAvailability(device_id, true, 2_000);

      const started = performance.now();
      const outcome = await t.svc.world.twins.command(device_id, { op: 'read' }, 150);
      const took = performance.now() - started;
      expect(outcome).toEqual({ ok: false, reason: 'timeout', afterMs: 150 });
      expect(took).toBeGreaterThanOrEqual(145);
      expect(took).toBeLessThan(1_000);
      // It was delivered: the meter just did not answer.
      const cmd = await heard.waitFor((m) => m.topic === topicFor(device_id, 'cmd'));
      expect(cmd.json).toMatchObject({ v: 1, op: 'read' });
    });

    it('pending when the meter drops fails with `offline` without waiting for the timeout [MC-6.2]', async () => {
      const { device_id, mqtt } = await provision(t.sim, { account_id: accountId, external: true });
      const meter = await clients.connect({
        clientId: device_id,
        username: device_id,
        password: mqtt.password,
        will: {
          topic: topicFor(device_id, 'availability'),
          payload: Buffer.from(JSON.stringify({ v: 1, online: false })),
          qos: 1,
          retain: true,
        },
      });
      await subscribe(meter, topicFor(device_id, 'cmd'));
      await meter.publishAsync(topicFor(device_id, 'availability'), JSON.stringify({ v: 1, online: true }), {
        qos: 1,
        retain: true,
      });
      await t.svc.world.twins.waitForAvailability(device_id, true, 2_000);
      meter.once('message', () => meter.stream.destroy()); // dies on hearing the command: the will fires
      const started = performance.now();
      const outcome = await t.svc.world.twins.command(device_id, { op: 'read' }, 5_000);
      expect(outcome).toEqual({ ok: false, reason: 'offline' });
      expect(performance.now() - started).toBeLessThan(2_000);
    });
  });

  describe('a command delivered twice with the same id [MC-8.8]', () => {
    it('is applied once: two recharges with one command id and different transaction ids credit once, with identical replies', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, balance: 1000 });
      const admin = await asService();
      const inbox = new Inbox(admin);
      await subscribe(admin, topicFor(device_id, 'reply'));
      const cmd = (transactionId: string) =>
        JSON.stringify({ v: 1, id: 'dup-cmd-1', op: 'recharge', amount: 500, transaction_id: transactionId });
      await admin.publishAsync(topicFor(device_id, 'cmd'), cmd('tx-first'), { qos: 1 });
      await admin.publishAsync(topicFor(device_id, 'cmd'), cmd('tx-second'), { qos: 1 });

      await inbox.count(2);
      const replies = inbox.on(topicFor(device_id, 'reply'));
      expect(replies).toHaveLength(2);
      expect(replies[0]!.payload).toBe(replies[1]!.payload);
      expect(replies[0]!.json).toEqual({
        v: 1,
        id: 'dup-cmd-1',
        ok: true,
        data: { applied: true, balance: 1500 },
      });
      expect((await view(device_id)).balance).toBe(1500);
    });

    it('is answered again but not applied again, whatever it now says (set_gateway)', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId });
      const admin = await asService();
      const inbox = new Inbox(admin);
      await subscribe(admin, topicFor(device_id, 'reply'));
      const send = (enabled: boolean) =>
        admin.publishAsync(
          topicFor(device_id, 'cmd'),
          JSON.stringify({ v: 1, id: 'gw-1', op: 'set_gateway', enabled }),
          { qos: 1 },
        );
      await send(true);
      await inbox.count(1);
      await send(false); // the same id again
      const [first, second] = await inbox.count(2);
      expect(second!.payload).toBe(first!.payload);
      expect((await view(device_id)).pg_enabled).toBe(true);
    });
  });

  describe('a recharge acknowledged over MQTT [MC-8.5]', () => {
    it('is on disk the moment the meter replies: the snapshot already holds the credit', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, balance: 100, load_watts: 0 });
      const pk = (await t.svc.store.getDevice(device_id))!.pk;
      const service = await asService();
      await subscribe(service, topicFor(device_id, 'reply'));
      const onDisk = new Promise<string>((resolve) =>
        service.on('message', () => {
          // Read synchronously on hearing the reply: a save that is merely scheduled would not be there yet.
          void t.svc.store
            .loadMeterSnapshots()
            .then((all) => resolve(all.find((x) => x.devicePk === pk)!.state));
        }),
      );
      const cmd = { v: 1, id: 'card-topup-1', op: 'recharge', amount: 250, transaction_id: 'card-1' };
      await service.publishAsync(topicFor(device_id, 'cmd'), JSON.stringify(cmd), { qos: 1 });
      const snapshot = JSON.parse(await onDisk) as { meter: string };
      expect((JSON.parse(snapshot.meter) as { balance: string }).balance).toBe(
        (350n * 3_600_000_000_000n).toString(),
      );
    });
  });

  describe('a recharge through /sim/v1 replayed with the same transaction_id [MC-8.8]', () => {
    it('credits once: the replay answers applied:false and leaves the balance as it was', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, balance: 200 });
      const first = ok(
        await t.sim('POST', `/devices/${device_id}/recharge`, { amount: 1000, transaction_id: 'pay-001' }),
      );
      expect(first).toEqual({ balance: 1200, applied: true });
      const exact = (await view(device_id)).balance_exact.units;

      const again = await t.sim('POST', `/devices/${device_id}/recharge`, {
        amount: 1000,
        transaction_id: 'pay-001',
      });
      expect(ok(again)).toEqual({ balance: 1200, applied: false });
      expect(again.body.message).toBe('recharge already applied');
      expect((await view(device_id)).balance_exact.units).toBe(exact);

      const ledger = await t.svc.store.ledgerSince((await t.svc.store.getDevice(device_id))!.pk, 0);
      expect(ledger.filter((e) => e.kind === 'recharge')).toHaveLength(1);
    });

    it('with another amount is a 409 conflict and credits nothing', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, balance: 0 });
      ok(await t.sim('POST', `/devices/${device_id}/recharge`, { amount: 300, transaction_id: 'pay-002' }));
      const res = await t.sim('POST', `/devices/${device_id}/recharge`, {
        amount: 301,
        transaction_id: 'pay-002',
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, error: { code: 'conflict' } });
      expect((await view(device_id)).balance).toBe(300);
    });

    it('on another device is a 409 conflict: a transaction id is unique across the store', async () => {
      const one = await provision(t.sim, { account_id: accountId });
      const two = await provision(t.sim, { account_id: accountId });
      ok(
        await t.sim('POST', `/devices/${one.device_id}/recharge`, { amount: 50, transaction_id: 'pay-003' }),
      );
      const res = await t.sim('POST', `/devices/${two.device_id}/recharge`, {
        amount: 50,
        transaction_id: 'pay-003',
      });
      expect(res.status).toBe(409);
      expect((await view(two.device_id)).balance).toBe(0);
    });
  });
});
