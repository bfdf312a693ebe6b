// The multi-tenant hostile test (issue 8, "Evidence expected"): accounts A and B each hold a virtual meter
// and an external meter (provisioned with `external: true` and driven by a real mqtt.js client with its
// device credentials). B tries every hostile action of issue 8 against A, and afterwards nothing of A has
// changed or leaked: A's balances, relay states, readings, ledger and API answers are what they were.
// Written to the intended behaviour of issue 8; assertions for items still open fail until they land.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { closed, expectNoMessage, subscribe } from '../../src/broker/test-helpers.ts';
import { BROKERS, REFUSAL, type ServiceOnBroker, startServiceOn } from '../helpers/brokers.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, provision } from '../helpers/service.ts';
import { ROUTES, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';
import { ExternalMeter } from './external-meter.ts';
import { type RawClient, rawConnect } from './raw-socket.ts';

const SUBACK_FAILURE = 128;
/** Issue 8 item 6: a client that has not sent its headers within 10 s is dropped (the default). */
const HEADER_TIMEOUT_MS = 10_000;

describe.each(BROKERS)('on the %s broker', (broker) => {
  const refusal = REFUSAL[broker];

  interface Side extends Tenant {
    ext: ExternalMeter;
    extId: string;
    extPassword: string;
  }

  let t: ServiceOnBroker;
  let v2: V2;
  let clients: ServiceClients;
  let a: Side;
  let b: Side;
  let baseline: unknown;
  const slow: { client: RawClient; closedAt: number | null }[] = [];
  let slowStart = 0;

  async function side(balance: number): Promise<Side> {
    // A 1 s telemetry period: the first sample arrives at once (issue 8 item 16 is not this test's business).
    const ten = await tenant(t.sim, { mode: 'prepaid', balance, load_watts: 0, telemetry_period_s: 1 });
    const extDev = await provision(t.sim, {
      account_id: ten.accountId,
      space_id: ten.spaceId,
      external: true,
    });
    const s = {
      ...ten,
      ext: null as unknown as ExternalMeter,
      extId: extDev.device_id,
      extPassword: extDev.mqtt.password,
    };
    await startExternal(s, balance + 7);
    return s;
  }

  /** (Re)starts a side's external meter: a new connection announcing itself as MC-6.3 says. */
  async function startExternal(s: Side, balance = s.ext.state.balance): Promise<void> {
    const previous = s.ext as ExternalMeter | null;
    await previous?.stop();
    s.ext = await ExternalMeter.start({
      url: t.svc.mqttUrl,
      deviceId: s.extId,
      password: s.extPassword,
      balance,
    });
    if (previous) s.ext.commands.push(...previous.commands);
    expect(await t.svc.world.twins.waitForAvailability(s.extId, true)).toBe(true);
  }

  /** B's external meter's credentials, for another connection of B's (same client id, so it replaces B's meter). */
  const asB = () => ({ username: b.extId, password: b.extPassword });

  /** What account A can see of itself through the API, and what the store holds for it. */
  async function viewOfA(): Promise<unknown> {
    const get = async (path: string) => {
      const res = await v2('GET', path, undefined, a.key);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data as Record<string, unknown>;
    };
    const devices = [];
    for (const id of [a.deviceId, a.extId]) {
      const { readings, ...device } = await get(`/devices/${id}/`);
      const m = await get(`/devices/${id}/metrics`);
      const w = await get(`/devices/${id}/wifi`);
      const pk = (await t.svc.store.getDevice(id))!.pk;
      devices.push({
        device,
        energy: (readings as { property_id: string; value: number }[]).find((r) => r.property_id === 'energy')
          ?.value,
        metrics: [
          m.balance,
          m.relay_state,
          m.mode,
          m.eb_tariff,
          m.dg_tariff,
          m.active_tariff,
          m.pg_enabled,
          m.energy,
        ],
        wifi: [w.ssid, w.password, w.type],
        ledger: await t.svc.store.ledgerSince(pk, 0),
        twin: t.svc.world.twins.get(id)?.info,
      });
    }
    return { spaces: await get('/spaces/'), devices };
  }

  beforeAll(async () => {
    t = await startServiceOn(broker, { commandTimeoutMs: 3_000 });
    v2 = v2Client(t.svc.httpUrl);
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
    // Slow HTTP clients start first, so the whole test runs under their load [issue 8 item 6].
    slowStart = Date.now();
    // rawConnect reads what the server sends: a socket nobody reads never sees the server's FIN behind
    // its 408 answer, so it never emits 'close' although the server dropped it.
    for (let i = 0; i < 40; i++) {
      const client = await rawConnect(t.svc.httpUrl);
      const entry = { client, closedAt: null as number | null };
      void client.closed.then(() => (entry.closedAt = Date.now()));
      client.socket.write(`GET /api/v2/spaces/ HTTP/1.1\r\nHost: x\r\nX-Slow-${i}: `);
      slow.push(entry);
    }
    a = await side(50_000);
    b = await side(90_000);
    // A's own recharge, before the baseline: B later replays its transaction id.
    ok(await t.sim('POST', `/devices/${a.deviceId}/recharge`, { amount: 1_000, transaction_id: 'A-tx-1' }));
    const credited = Date.now() + 5_000;
    const settledA = () => {
      const twin = t.svc.world.twins.get(a.deviceId);
      return twin?.state?.balance === 51_000 && twin.latest !== null;
    };
    while (!settledA() && Date.now() < credited) {
      await new Promise((r) => setTimeout(r, 10));
    }
    baseline = await viewOfA();
  }, 30_000);

  afterAll(async () => {
    for (const s of slow) s.client.socket.destroy();
    await clients?.endAll();
    await a?.ext.stop();
    await b?.ext.stop();
    await t?.close();
  });

  describe('multi-tenant: B attacks A (issue 8, evidence: the multi-tenant test)', () => {
    it('[spec §5.5] B’s key on every v2 route with A’s devices and space is refused and leaks nothing', async () => {
      for (const route of ROUTES) {
        for (const dev of [a.deviceId, a.extId]) {
          if (route.target === 'none') continue;
          const res = await v2(route.method, route.path({ space: a.spaceId, dev }), route.body, b.key);
          const what = `#${route.n} ${route.method} with B's key on A's ${route.target}: ${JSON.stringify(res.body)}`;
          expect(res.status, what).toBe(400);
          expect(res.body.error?.code, what).toBe(
            route.target === 'space' ? 'not_your_space' : 'device_not_found',
          );
          expect(JSON.stringify(res.body), what).not.toMatch(/51000|50007/);
        }
      }
      const list = await v2<{ space_id: number }[]>('GET', '/spaces/', undefined, b.key);
      expect(list.body.data!.map((s) => s.space_id)).toEqual([b.spaceId]);
    });

    it('[MC-2.1][MC-2.2][MC-2.5] B’s meter can neither publish on nor subscribe to A’s topics, nor take A’s client id', async () => {
      const spy = await clients.device(asB());
      for (const channel of ['cmd', 'state', 'telemetry', 'reply', 'availability', 'info'] as const) {
        expect(await subscribe(spy, topicFor(a.extId, channel)), channel).toBe(SUBACK_FAILURE);
      }
      expect(await subscribe(spy, 'meterstack/v1/+/cmd')).toBe(SUBACK_FAILURE);
      expect(await subscribe(spy, '#')).toBe(SUBACK_FAILURE);
      // A's own traffic meanwhile reaches B's spy on no topic.
      const noLeak = expectNoMessage(spy, 1_000);
      expect((await v2('PUT', `/devices/${a.extId}/relay`, { state: true }, a.key)).status).toBe(200);
      await noLeak;

      const forged = {
        cmd: { v: 1, id: 'x-1', op: 'recharge', amount: 100_000, transaction_id: 'B-steal-1' },
        state: { v: 1, ...a.ext.state, ts: Date.now(), balance: 1, relay_state: false },
        telemetry: {
          v: 1,
          samples: [{ ts: Date.now(), energy: 99_999, active_power: 1, voltage: 1, balance: 1 }],
        },
        availability: { v: 1, online: false },
      };
      for (const [channel, payload] of Object.entries(forged)) {
        const intruder = await clients.device(asB());
        if (refusal.foreignPublishCloses) {
          const gone = closed(intruder, 3_000);
          intruder.publish(topicFor(a.extId, channel as 'cmd'), JSON.stringify(payload), { qos: 1 });
          await gone;
        } else {
          // Mosquitto acks and drops it, and keeps the connection (decision 81).
          await intruder.publishAsync(topicFor(a.extId, channel as 'cmd'), JSON.stringify(payload), {
            qos: 1,
          });
          await intruder.endAsync(true);
        }
        await startExternal(b);
      }
      // Client-id takeover: B's credentials with A's client id are refused, and A's meter stays connected.
      expect(
        await clients.refused({ clientId: a.extId, username: b.extId, password: b.extPassword }),
      ).toBeGreaterThan(0);
      expect(a.ext.client.connected).toBe(true);
      expect(t.svc.world.twins.get(a.extId)?.online).toBe(true);
    });

    it('[issue 8 item 1] B’s meter forging replies with guessed ids never answers A’s commands, and is counted and logged', async () => {
      // B learns what command ids look like from a command to its own meter.
      expect((await v2('PUT', `/devices/${b.extId}/relay`, { state: true }, b.key)).status).toBe(200);
      const learned = b.ext.commands.at(-1)!.id;
      const match = /^(.*?)(\d+)$/.exec(learned);
      const [prefix, last] = match ? [match[1]!, Number(match[2])] : [learned, 0];
      a.ext.replyDelayMs = 300;
      const twins = t.svc.world.twins;
      const refusedReplies = () => twins.refused.forgedReply + twins.refused.unmatchedReply;
      const refusedBefore = refusedReplies();
      let forging = true;
      let round = 0;
      let sent = 0;
      const forger = (async () => {
        while (forging) {
          for (let n = last + 1; n <= last + 40 && forging; n++) {
            const id = `${prefix}${n}`;
            // Half the rounds claim success with B's readings, half refuse: A's reads and relays both at stake.
            await b.ext.publishReply(
              round % 2 === 0
                ? {
                    v: 1,
                    id,
                    ok: true,
                    data: {
                      readings: {
                        ts: Date.now(),
                        energy: 424_242,
                        active_power: 1,
                        voltage: 1,
                        balance: 4_242,
                      },
                      state: { ...b.ext.state, ts: Date.now(), balance: 4_242, relay_state: false },
                    },
                  }
                : { v: 1, id, ok: false, error: { code: 'busy', message: 'forged by B' } },
            );
            sent++;
          }
          round++;
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      // Every call is made and counted before anything is asserted, so a failure says how often B won.
      const forgedMetrics: string[] = [];
      const failedRelays: string[] = [];
      try {
        for (let i = 0; i < 6; i++) {
          for (const dev of [a.extId, a.deviceId]) {
            const m = await v2<{ balance: number }>('GET', `/devices/${dev}/metrics`, undefined, a.key);
            if (m.status !== 200 || m.body.data?.balance === 4_242)
              forgedMetrics.push(`${dev}: ${JSON.stringify(m.body)}`);
          }
          const relay = await v2('PUT', `/devices/${a.extId}/relay`, { state: true }, a.key);
          if (relay.status !== 200) failedRelays.push(JSON.stringify(relay.body));
        }
      } finally {
        forging = false;
        await forger;
        a.ext.replyDelayMs = 0;
      }
      expect.soft(forgedMetrics, 'A’s metrics answered by B’s forged replies (of 12)').toEqual([]);
      expect.soft(failedRelays, 'A’s relay PUTs that failed under forgery (of 6)').toEqual([]);
      // [MC-8.9][MC-9.5] Every forged reply is counted (a guessed id is unmatched; one naming a command of
      // A's would be forged), once it has crossed the broker.
      const counted = Date.now() + 10_000;
      while (refusedReplies() - refusedBefore < sent && Date.now() < counted)
        await new Promise((r) => setTimeout(r, 20));
      expect.soft(refusedReplies() - refusedBefore, 'forged replies counted').toBeGreaterThanOrEqual(sent);
      // Logged with the reason and B's device: one by one, or in the interval's summary when B floods.
      const id = b.extId;
      expect
        .soft(t.logs.join('\n'), 'forged replies are logged naming the reason and the device')
        .toMatch(
          new RegExp(
            `refused (forgedReply|unmatchedReply): reply \\S+ from ${id}\\b|` +
              `\\d+ (forgedReply|unmatchedReply) \\[MC-8\\.9\\] \\(from ([^)]*, )?${id}: \\d+`,
          ),
        );
    });

    it('[issue 8 item 2] replaying A’s recharge transaction id credits nobody: not B, not A twice', async () => {
      const bBefore = ok(await t.sim<{ balance: number }>('GET', `/devices/${b.deviceId}`)).balance;
      const onB = await t.sim('POST', `/devices/${b.deviceId}/recharge`, {
        amount: 1_000,
        transaction_id: 'A-tx-1',
      });
      expect(onB.status, JSON.stringify(onB.body)).toBe(409);
      expect(ok(await t.sim<{ balance: number }>('GET', `/devices/${b.deviceId}`)).balance).toBe(bBefore);
      const again = ok(
        await t.sim<{ applied: boolean }>('POST', `/devices/${a.deviceId}/recharge`, {
          amount: 1_000,
          transaction_id: 'A-tx-1',
        }),
      );
      expect(again.applied).toBe(false);
      const pk = (await t.svc.store.getDevice(a.deviceId))!.pk;
      const ledger = (await t.svc.store.ledgerSince(pk, 0)).reduce((s, e) => s + e.amount, 0);
      expect(
        ok(await t.sim<{ balance: number }>('GET', `/devices/${a.deviceId}`)).balance,
        'ledger = balance',
      ).toBe(ledger);
      expect(ledger).toBe(51_000);
    });

    it('[issue 8 item 5][MC-3.10][MC-5.1][MC-7.5][MC-1.4][MC-2.7] absurd timestamps, a stale state, energy going backwards or jumping [MC-7.8], a foreign info and retained telemetry on B’s own meter are refused and touch nothing of A', async () => {
      const twins = t.svc.world.twins;
      const before = { ...twins.refused };
      const now = Date.now();
      const year2999 = Date.UTC(2999, 0, 1);
      const sample = (ts: number, energy: number) => ({
        ts,
        energy,
        active_power: 5,
        voltage: 231,
        balance: 90_007,
      });
      const heldState = twins.get(b.extId)!.state!;
      // Energies near B's newest sample, rising no faster than a meter can register [MC-7.8].
      const e0 = twins.get(b.extId)?.latest?.energy ?? 0;
      await b.ext.publishSample(sample(year2999, e0 + 20)); // [MC-3.10]
      await b.ext.publish('state', { v: 1, ...b.ext.state, ts: year2999, balance: 1 }); // [MC-3.10]
      await b.ext.publish('state', { v: 1, ...b.ext.state, ts: heldState.ts - 60_000, balance: 2 }); // [MC-5.1]
      await b.ext.publishSample(sample(now + 1_000, e0 + 0.02));
      await b.ext.publishSample(sample(now + 1_500, e0 + 1e6)); // a jump no meter can make [MC-7.8]
      await b.ext.publishSample(sample(now + 2_000, e0 + 0.01)); // energy backwards across messages [MC-7.5]
      await b.ext.publish('info', { ...(twins.get(a.extId)!.info as object), device_id: a.extId }); // [MC-1.4]
      // Each refusal is counted by reason [MC-9.5]; the counts say the service has handled them all.
      const grew = (r: keyof typeof before, n: number) => twins.refused[r] - before[r] >= n;
      const handled = () =>
        grew('tsInFuture', 2) &&
        grew('staleState', 1) &&
        grew('energyBackwards', 1) &&
        grew('energyImplausible', 1) &&
        grew('infoDeviceMismatch', 1);
      const deadline = Date.now() + 10_000;
      while (!handled() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(
        Object.fromEntries(
          Object.entries(twins.refused).map(([r, n]) => [r, n - before[r as keyof typeof before]]),
        ),
        'refusals counted by reason',
      ).toMatchObject({
        tsInFuture: 2,
        staleState: 1,
        energyBackwards: 1,
        energyImplausible: 1,
        infoDeviceMismatch: 1,
      });
      expect
        .soft(twins.get(b.extId)?.state, 'neither the 2999 state nor the stale one taken')
        .toEqual(heldState);
      expect.soft(twins.get(b.extId)?.info?.device_id, 'B’s info naming A refused').toBe(b.extId);
      expect.soft(twins.get(a.extId)?.info?.device_id).toBe(a.extId);
      // [MC-2.7] Retained telemetry never reaches the service: the broker closes the connection that
      // publishes it (so its QoS 1 PUBACK never comes: not awaited), and B's meter must connect again.
      // Mosquitto cannot refuse it (decision 81); that half is the embedded broker's only.
      if (refusal.foreignPublishCloses) {
        const gone = closed(b.ext.client, 5_000);
        b.ext.client.publish(
          topicFor(b.extId, 'telemetry'),
          JSON.stringify({ v: 1, samples: [sample(now + 3_000, e0 + 0.03)] }),
          { qos: 1, retain: true },
        );
        await gone;
        await startExternal(b);
      }
      // B's twin took the plausible samples only: not pinned by 2999, not set back by 29.
      const bDev = await v2<{ readings: { property_id: string; value: number }[] }>(
        'GET',
        `/devices/${b.extId}/`,
        undefined,
        b.key,
      );
      const energy = bDev.body.data!.readings.find((r) => r.property_id === 'energy')?.value;
      expect
        .soft(
          energy,
          'B’s newest plausible sample (e0 + 0.02 kWh): not 2999’s, not the jump, not the backwards one, not the retained one',
        )
        .toBeCloseTo(e0 + 0.02, 3);
      expect.soft(twins.get(b.extId)?.state?.ts, 'state from 2999 refused').toBeLessThan(year2999);
      expect.soft(twins.get(b.extId)?.info?.device_id).toBe(b.extId);
    });

    it('[issue 8 item 7][MC-3.1] a logged-in meter publishing 10 MB is cut off', async () => {
      const big = await clients.device(asB());
      const gone = closed(big, 5_000);
      big.publish(topicFor(b.extId, 'telemetry'), Buffer.alloc(10 * 1024 * 1024, 0x20), { qos: 1 });
      try {
        await gone;
      } finally {
        big.end(true);
        await startExternal(b);
      }
    });

    it('[issue 8 item 7] an unauthenticated CONNECT declaring 250 MB is dropped before it is buffered', async () => {
      const { hostname, port } = new URL(t.svc.mqttUrl);
      const socket = net.connect(Number(port), hostname);
      const closedSocket = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => undefined);
      const remaining = 250 * 1024 * 1024; // variable-length encoding, MQTT 3.1.1 §2.2.3
      const header = [0x10];
      for (let x = remaining; x > 0; x = Math.floor(x / 128)) header.push((x % 128) | (x >= 128 ? 0x80 : 0));
      socket.write(Buffer.from(header));
      socket.write(Buffer.alloc(64 * 1024, 0x41));
      const outcome = await Promise.race([
        closedSocket.then(() => 'closed'),
        new Promise((r) => setTimeout(() => r('still open'), 3_000)),
      ]);
      socket.destroy();
      expect(outcome, 'the broker closes a client that declares an oversized packet').toBe('closed');
    });

    it('[issue 8 item 6] slow HTTP clients do not hold the service: A is answered, and they are dropped after the header timeout', async () => {
      const health = await fetch(`${t.svc.httpUrl}/healthz`);
      expect(health.status).toBe(200);
      // Generous: the server's check runs every second, and a busy machine is slower still.
      const deadline = slowStart + HEADER_TIMEOUT_MS + 15_000;
      while (slow.some((s) => s.closedAt === null) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      const open = slow.filter((s) => s.closedAt === null).length;
      expect(open, `slow connections still open ${Date.now() - slowStart} ms after they started`).toBe(0);
      // Dropped by the server's header timeout (408 in the envelope), not by anything sooner.
      for (const s of slow) {
        expect(s.client.received()).toMatch(/^HTTP\/1\.1 408 .*"code":"request_timeout"/s);
        expect(s.closedAt! - slowStart).toBeGreaterThanOrEqual(HEADER_TIMEOUT_MS - 500);
      }
    }, 30_000);

    it('after all of it, A sees exactly what it saw before: balances, relays, readings, ledger, WiFi, spaces', async () => {
      expect(await viewOfA()).toEqual(baseline);
      // A's external meter heard only what A asked: reads, WiFi reads and relay ON (its state already).
      const ops = a.ext.commands.map((c) => JSON.stringify(c.command));
      const asked = ['{"op":"read"}', '{"op":"get_wifi"}', '{"op":"set_relay","on":true}'];
      expect(ops.filter((o) => !asked.includes(o))).toEqual([]);
    });
  });
});
