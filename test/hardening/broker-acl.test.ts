// issue 8 item 3 (broker part) and item 5 (retain flag): only the service publishes commands, and
// nobody publishes telemetry, a command or a reply with the retain flag. Real service, real broker,
// real mqtt.js clients with the admin token and with a meter's own credentials. On the embedded broker
// and on Mosquitto with dynamic security (test/helpers/brokers.ts); where Mosquitto cannot do what
// aedes does (close the connection, refuse a retained event) the test says what holds instead.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { closed, expectNoMessage, subscribe } from '../../src/broker/test-helpers.ts';
import { BROKERS, REFUSAL, type ServiceOnBroker, startServiceOn } from '../helpers/brokers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, newAccount, ok, type Provisioned, provision } from '../helpers/service.ts';

/** Defines no test: for the cases of the other broker. */
const NEVER = { each: () => () => {} } as unknown as typeof it;

describe.each(BROKERS)('on the %s broker', (broker) => {
  const refusal = REFUSAL[broker];
  let t: ServiceOnBroker;
  let clients: ServiceClients;
  let accountId: number;

  interface MeterView {
    balance: number;
  }
  const balanceOf = async (id: string) => ok(await t.sim<MeterView>('GET', `/devices/${id}`)).balance;

  beforeAll(async () => {
    t = await startServiceOn(broker, { speed: 0 });
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
    accountId = (await newAccount(t.sim)).account_id;
  });
  afterEach(() => clients.endAll());
  afterAll(() => t?.close());

  describe('the admin login is a read-only watcher [MC-2.6] (issue 8 item 3)', () => {
    it('[MC-2.6] a recharge command published with the admin token is refused (aedes: connection closed): no reply, no credit', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, balance: 1000, load_watts: 0 });
      const watcher = await clients.admin();
      const inbox = new Inbox(watcher);
      expect(await subscribe(watcher, topicFor(device_id, 'reply'))).toBe(1);

      const attacker = await clients.admin();
      const gone = refusal.foreignPublishCloses ? closed(attacker, 3_000) : null;
      const cmd = { v: 1, id: 'free-money-1', op: 'recharge', amount: 50_000, transaction_id: 'no-ledger' };
      const sent = attacker.publishAsync(topicFor(device_id, 'cmd'), JSON.stringify(cmd), { qos: 1 });
      sent.catch(() => {}); // aedes closes before it acks
      await (gone ?? sent); // Mosquitto acks and drops it
      if (refusal.logsRefusals)
        expect(t.logs.join('\n')).toContain(`publish to ${topicFor(device_id, 'cmd')} not allowed [MC-2.6]`);

      await expectNoMessage(watcher, 300);
      expect(inbox.messages).toEqual([]);
      expect(await balanceOf(device_id)).toBe(1000);
    });

    it('[MC-2.6] the admin watcher still subscribes to everything (what mosquitto_sub does)', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId, mode: 'postpaid' });
      const watcher = await clients.admin();
      const inbox = new Inbox(watcher);
      expect(await subscribe(watcher, 'meterstack/v1/#')).toBe(1);
      const state = await inbox.waitFor((m) => m.topic === topicFor(device_id, 'state'), 3_000, 'state');
      expect(state.json).toMatchObject({ mode: 'postpaid' });
    });

    it('[MC-2.6] the service itself still commands meters', async () => {
      const { device_id } = await provision(t.sim, { account_id: accountId });
      expect(await t.svc.world.twins.command(device_id, { op: 'set_gateway', enabled: true })).toEqual({
        ok: true,
        data: undefined,
      });
    });
  });

  describe('the retain flag on events [MC-2.7] (issue 8 item 5)', () => {
    let ext: Provisioned;
    beforeAll(async () => {
      ext = await provision(t.sim, { account_id: accountId, external: true });
    });

    const payloadOf = (channel: 'telemetry' | 'reply') =>
      channel === 'telemetry'
        ? { v: 1, samples: [{ ts: Date.now(), energy: 1, active_power: 1, voltage: 230, balance: 0 }] }
        : { v: 1, id: 'x-1', ok: true };

    // Each broker gets its own cases (not the other's marked skipped).
    (refusal.foreignPublishCloses ? it : NEVER).each(['telemetry', 'reply'] as const)(
      '[MC-2.7] a meter publishing retained %s is disconnected and nothing is retained',
      async (channel) => {
        const meter = await clients.device(ext.mqtt);
        const gone = closed(meter, 3_000);
        meter.publish(topicFor(ext.device_id, channel), JSON.stringify(payloadOf(channel)), {
          qos: 1,
          retain: true,
        });
        await gone;
        expect(t.logs.join('\n')).toContain(
          `retained publish to ${topicFor(ext.device_id, channel)} not allowed [MC-2.7]`,
        );
        // A late subscriber gets nothing retained on that topic.
        const watcher = await clients.admin();
        await subscribe(watcher, topicFor(ext.device_id, channel));
        await expectNoMessage(watcher, 300);
      },
    );

    // Mosquitto's ACLs have no retain flag: the broker keeps a retained event and hands it to every later
    // subscriber with the retain flag, and only the service's half of [MC-2.7] holds: it ignores and
    // counts an event delivered retained (src/devices/twins.test.ts). docs/brokers.md, decision 81.
    (refusal.foreignPublishCloses ? NEVER : it).each(['telemetry', 'reply'] as const)(
      '[MC-2.7] Mosquitto keeps a retained %s (the gap the service covers)',
      async (channel) => {
        const meter = await clients.device(ext.mqtt);
        const topic = topicFor(ext.device_id, channel);
        await meter.publishAsync(topic, JSON.stringify(payloadOf(channel)), { qos: 1, retain: true });
        const watcher = await clients.admin();
        const inbox = new Inbox(watcher);
        await subscribe(watcher, topic);
        expect((await inbox.waitFor((m) => m.topic === topic, 2_000, 'the retained event')).retain).toBe(
          true,
        );
        await meter.publishAsync(topic, '', { qos: 1, retain: true }); // clears it
      },
    );
  });
});
