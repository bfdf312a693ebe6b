// issue 8 item 1: a meter of account B answering account A's commands. A reply counts only on the
// reply topic of the device the command went to, command ids are unguessable, and forged and
// unmatched replies are counted and logged (a few lines, however many arrive) [MC-8.2] [MC-8.9].
// On the embedded broker and on Mosquitto with dynamic security (test/helpers/brokers.ts).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROKERS, type ServiceOnBroker, startServiceOn } from '../helpers/brokers.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, provision } from '../helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../helpers/v2.ts';
import { HandMeter, sample, statePayload, until } from './hand-meter.ts';

describe.each(BROKERS)('on the %s broker', (broker) => {
  let t: ServiceOnBroker;
  let clients: ServiceClients;
  let a: Tenant;
  let b: Tenant;
  let aVirtual: string;
  const v2 = () => v2Client(t.svc.httpUrl);
  const twins = () => t.svc.world.twins;
  const clock = async () => ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;

  interface Metrics {
    balance: number;
    energy: number;
    relay_state: boolean;
  }

  /** `statePayload` without `v`, as a read reply carries it [MC-8.6]. */
  const replyState = (ts: number, over: Record<string, unknown> = {}) => {
    const { v: _v, ...rest } = statePayload(ts, over);
    return rest;
  };

  beforeAll(async () => {
    t = await startServiceOn(broker, { speed: 0 });
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
    a = await tenant(t.sim, { external: true, model: 'basic' });
    aVirtual = (
      await provision(t.sim, { account_id: a.accountId, space_id: a.spaceId, balance: 4242, load_watts: 0 })
    ).device_id;
    b = await tenant(t.sim, { external: true, model: 'basic' });
  });
  afterEach(() => clients.endAll());
  afterAll(() => t?.close());

  async function online(meter: Tenant): Promise<HandMeter> {
    const m = await HandMeter.connect(clients, meter.mqtt, statePayload(await clock()));
    expect(await twins().waitForAvailability(meter.deviceId, true, 5_000)).toBe(true);
    return m;
  }

  describe("B's meter replying with the id of A's pending command (issue 8 item 1)", () => {
    it("[MC-8.9] GET metrics: B's forged reply is refused and counted; A's own answer is what A sees", async () => {
      const [meterA, meterB] = [await online(a), await online(b)];
      const now = await clock();
      const pending = v2()<Metrics>('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key);
      const cmd = await meterA.nextCommand();
      expect(cmd.op).toBe('read');
      const before = twins().refused.forgedReply;

      await meterB.reply({
        id: cmd.id,
        ok: true,
        data: { readings: sample(now, 99_999, 999_999), state: replyState(now, { balance: 999_999 }) },
      });
      await until(() => twins().refused.forgedReply > before, 'the forged reply counted');
      await meterA.reply({
        id: cmd.id,
        ok: true,
        data: { readings: sample(now, 12.5, 5000), state: replyState(now, { balance: 5000 }) },
      });

      expect(data(await pending)).toMatchObject({ balance: 5000, energy: 12.5 });
      expect(t.logs.join('\n')).toContain(
        `reply ${cmd.id} from ${b.deviceId} to a command sent to ${a.deviceId} [MC-8.9]`,
      );
    });

    it("[MC-8.9] PUT relay: B's forged refusal does not fail A's relay command", async () => {
      const [meterA, meterB] = [await online(a), await online(b)];
      const pending = v2()('PUT', `/devices/${a.deviceId}/relay`, { state: false }, a.key);
      const cmd = await meterA.nextCommand();
      expect(cmd).toMatchObject({ op: 'set_relay', on: false });
      const before = twins().refused.forgedReply;

      await meterB.reply({ id: cmd.id, ok: false, error: { code: 'busy', message: 'forged' } });
      await until(() => twins().refused.forgedReply > before, 'the forged reply counted');
      await meterA.reply({ id: cmd.id, ok: true });

      expect(data(await pending, 'relay state updated')).toBe(true);
    });
  });

  describe("B's meter guessing ids from the one it was sent (issue 8 item 1)", () => {
    it('[MC-8.2] [MC-8.9] answers none of A’s commands: A’s reads stay right, every guess is counted, the log stays short', async () => {
      const meterB = await online(b);
      const now = await clock();
      meterB.onCommand = (cmd) => ({
        id: cmd.id,
        ok: true,
        data: { readings: sample(now, 1, 0), state: replyState(now, { balance: 0 }) },
      });
      data(await v2()('GET', `/devices/${b.deviceId}/metrics`, undefined, b.key));
      const seen = meterB.commands[0]!.id;
      // What an attacker would try next: the following numbers of the id it was sent, whatever its shape.
      const [, stem, n] = /^(.*?)(\d*)$/.exec(seen)!;
      const guesses = Array.from({ length: 100 }, (_, i) => `${stem}${Number(n || 0) + 1 + i}`);
      const before = { unmatched: twins().refused.unmatchedReply, forged: twins().refused.forgedReply };
      const logLines = t.logs.length;

      for (let round = 0; round < 10; round++) {
        const read = v2()<Metrics>('GET', `/devices/${aVirtual}/metrics`, undefined, a.key);
        await Promise.all(
          guesses.map((id) =>
            meterB.reply({
              id,
              ok: true,
              data: { readings: sample(now, 7, 777), state: replyState(now, { balance: 777 }) },
            }),
          ),
        );
        expect(data(await read).balance).toBe(4242);
      }

      await until(
        () => twins().refused.unmatchedReply - before.unmatched >= 1000,
        'every guess counted as unmatched',
      );
      expect(twins().refused.forgedReply).toBe(before.forged);
      const refusedLines = t.logs.slice(logLines).filter((l) => l.includes(`from ${b.deviceId}`));
      expect(refusedLines.length).toBeLessThanOrEqual(20);
    });
  });
});
