// Meter A, logged in with its own credentials, can neither write under meter B's topics nor read them:
// the broker drops A's foreign publish (aedes also closes A's connection) and refuses a foreign
// subscription, and the service sees nothing of it on B's topics [MC-2.1, MC-2.2, MC-2.5]. On the
// embedded broker and on Mosquitto with dynamic security (STYLE.md rule 11, test/helpers/brokers.ts).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { closed, expectNoMessage, subscribe } from '../../src/broker/test-helpers.ts';
import { BROKERS, REFUSAL, type ServiceOnBroker, startServiceOn } from '../helpers/brokers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, newAccount, type Provisioned, provision } from '../helpers/service.ts';

const SUBACK_FAILURE = 128;

const telemetry = (ts: number) =>
  JSON.stringify({ v: 1, samples: [{ ts, energy: 1, active_power: 100, voltage: 230, balance: 0 }] });

describe.each(BROKERS)('on the %s broker', (broker) => {
  let t: ServiceOnBroker;
  let clients: ServiceClients;
  let a: Provisioned;
  let b: Provisioned;
  const refusal = REFUSAL[broker];

  beforeAll(async () => {
    t = await startServiceOn(broker);
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
    const { account_id } = await newAccount(t.sim);
    a = await provision(t.sim, { account_id, external: true });
    b = await provision(t.sim, { account_id }); // a running virtual meter
  });
  afterEach(() => clients.endAll());
  afterAll(() => t?.close());

  describe('meter A with its own credentials', () => {
    it('is refused (aedes: disconnected) when it publishes on B’s topics, and nothing reaches the service [MC-2.1, MC-2.5]', async () => {
      const watcher = await clients.admin();
      const inbox = new Inbox(watcher);
      await subscribe(watcher, `meterstack/v1/${b.device_id}/#`);
      await inbox.waitFor((m) => m.topic === topicFor(b.device_id, 'availability'), 2_000, 'B availability');
      const before = inbox.messages.length;
      const bPk = (await t.svc.store.getDevice(b.device_id))!.pk;
      const samplesBefore = await t.svc.store.countSamples(bPk);
      const stateBefore = t.svc.world.twins.get(b.device_id)?.state;

      const meterA = await clients.device(a.mqtt);
      const gone = refusal.foreignPublishCloses ? closed(meterA, 3_000) : null;
      const sent = [
        meterA.publishAsync(topicFor(b.device_id, 'telemetry'), telemetry(Date.now()), { qos: 1 }),
        meterA.publishAsync(topicFor(b.device_id, 'availability'), JSON.stringify({ v: 1, online: false }), {
          qos: 1,
          retain: true,
        }),
      ];
      // aedes closes the connection before it acks: those publishes end unacknowledged.
      for (const p of sent) p.catch(() => {});
      if (gone) await gone;
      else await Promise.all(sent); // Mosquitto acks and drops them; A stays connected
      if (refusal.logsRefusals)
        expect(t.logs.join('\n')).toContain(`publish to ${topicFor(b.device_id, 'telemetry')} not allowed`);

      await expectNoMessage(watcher, 300);
      expect(inbox.messages.length).toBe(before);
      await t.svc.world.settle();
      expect(await t.svc.store.countSamples(bPk)).toBe(samplesBefore);
      expect(t.svc.world.twins.get(b.device_id)?.online).toBe(true);
      expect(t.svc.world.twins.get(b.device_id)?.state).toEqual(stateBefore);
    });

    it('is refused (SUBACK 128) a subscription to B’s topics or to wildcards, but granted its own cmd [MC-2.2]', async () => {
      const meterA = await clients.device(a.mqtt);
      const inbox = new Inbox(meterA);
      expect(await subscribe(meterA, topicFor(b.device_id, 'cmd'))).toBe(SUBACK_FAILURE);
      expect(await subscribe(meterA, topicFor(b.device_id, 'telemetry'))).toBe(SUBACK_FAILURE);
      expect(await subscribe(meterA, 'meterstack/v1/+/cmd')).toBe(SUBACK_FAILURE);
      expect(await subscribe(meterA, '#')).toBe(SUBACK_FAILURE);
      expect(await subscribe(meterA, topicFor(a.device_id, 'cmd'))).toBe(1);

      // A command to B goes to B alone: B answers it, A hears nothing.
      const outcome = await t.svc.world.twins.command(b.device_id, { op: 'read' }, 2_000);
      expect(outcome.ok).toBe(true);
      await expectNoMessage(meterA, 200);
      expect(inbox.messages).toEqual([]);
    });

    it('cannot connect under B’s client id with its own credentials (CONNACK 2; Mosquitto 5)', async () => {
      const code = await clients.refused({
        clientId: b.device_id,
        username: a.mqtt.username,
        password: a.mqtt.password,
      });
      expect(code).toBe(refusal.wrongClientId);
      expect(t.svc.world.twins.get(b.device_id)?.online).toBe(true);
    });
  });
});
