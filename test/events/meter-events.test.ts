// Meter life, state, money and command events (issue 9 §1) from a real service: real broker, virtual
// meters driven through the v2 API and /sim/v1, and hand-driven MQTT meters for the wills.

import { connect as tcpConnect } from 'node:net';
import { generate } from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { HandMeter, statePayload } from '../hardening/hand-meter.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, provision, startTestService, type TestService } from '../helpers/service.ts';
import { data, tenant, v2Client } from '../helpers/v2.ts';
import { Collected } from './collect.ts';

let t: TestService;
let seen: Collected;
let clients: ServiceClients;

beforeAll(async () => {
  // speed 0: only explicit advances move the clock, so balances are exact.
  t = await startTestService({ speed: 0 });
  seen = new Collected(t.svc.bus);
  clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
});
afterAll(async () => {
  await clients.endAll();
  await t.close();
  expect(seen.invalid).toEqual([]);
});

describe('a virtual meter driven through the v2 API', () => {
  it('relay switched → command.sent, command.acked with latency, meter.relay with what it was', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid' });
    const v2 = v2Client(t.svc.httpUrl, a.key);
    // The first state the service learns of a meter is not news.
    expect(seen.of('meter.relay', a.deviceId)).toEqual([]);
    expect(seen.of('meter.connected', a.deviceId)).toHaveLength(1);
    expect(seen.of('meter.online', a.deviceId)).toHaveLength(1);
    expect(seen.of('meter.info', a.deviceId)[0]?.data.changed).toContain('firmware');

    data(await v2('PUT', `/devices/${a.deviceId}/relay`, { state: false }));
    const sent = seen.of('command.sent', a.deviceId);
    expect(sent.map((e) => e.data.op)).toEqual(['set_relay']);
    const acked = await seen.waitFor('command.acked', (e) => e.data.id === sent[0]!.data.id);
    expect(acked.data.op).toBe('set_relay');
    expect(acked.data.latency_ms).toBeGreaterThan(0);
    expect(acked.data.latency_ms).toBeLessThan(2_000);
    expect(acked.account_id).toBe(a.accountId);
    const relay = await seen.waitFor('meter.relay', (e) => e.device_id === a.deviceId);
    expect(relay.data).toEqual({
      commanded: false,
      effective: false,
      was: { commanded: true, effective: true },
    });
    expect(relay.account_id).toBe(a.accountId);
    expect(seq(sent[0]!)).toBeLessThan(seq(acked));

    data(await v2('PUT', `/devices/${a.deviceId}/mode`, { mode: 'measurement' }));
    const mode = await seen.waitFor('meter.mode', (e) => e.device_id === a.deviceId);
    expect(mode.data).toEqual({ mode: 'measurement', was: 'postpaid' });
    data(await v2('PUT', `/devices/${a.deviceId}/tariffs/active`, { active_tariff: 2 }));
    const tariff = await seen.waitFor('meter.tariff', (e) => e.device_id === a.deviceId);
    expect(tariff.data).toMatchObject({ active_tariff: 2, was: 1 });
  });

  it('button held → meter.wifi in configuration mode (wifi_type Secondary over MQTT)', async () => {
    const a = await tenant(t.sim);
    ok(await t.sim('POST', `/devices/${a.deviceId}/button`, { hold_seconds: 6 }));
    const wifi = await seen.waitFor('meter.wifi', (e) => e.device_id === a.deviceId);
    expect(wifi.data).toEqual({ wifi_type: 'Secondary', config_mode: true });
  });
});

describe('a prepaid meter runs out and is recharged', () => {
  it('meter.cutoff with its balance, money.recharge applied + meter.restored, then duplicate and refused', async () => {
    const a = await tenant(t.sim, { mode: 'prepaid', balance: 10, eb_tariff: 800, load_watts: 1000 });
    const { now_ms: from } = ok(await t.sim<{ now_ms: number }>('GET', '/clock'));
    ok(await t.sim('POST', '/clock/advance', { seconds: 600 }));
    const cut = await seen.waitFor('meter.cutoff', (e) => e.device_id === a.deviceId);
    expect(cut.data.balance).toBeLessThan(0);
    // 10 paise at 1 kW and ₹8/kWh last 45 s: the event is stamped when the meter cut off, inside the
    // jump, not when the jump ended.
    expect(cut.vt - from).toBeGreaterThanOrEqual(45_000);
    expect(cut.vt - from).toBeLessThan(60_000);
    expect(cut.account_id).toBe(a.accountId);
    const relay = seen.of('meter.relay', a.deviceId);
    expect(relay.map((e) => e.data)).toEqual([
      { commanded: true, effective: false, was: { commanded: true, effective: true } },
    ]);

    const applied = ok(
      await t.sim<{ balance: number }>('POST', `/devices/${a.deviceId}/recharge`, {
        amount: 5_000,
        transaction_id: 'evt-recharge-1',
      }),
    );
    const money = seen.of('money.recharge', a.deviceId);
    expect(money).toHaveLength(1);
    expect(money[0]!.data).toMatchObject({
      outcome: 'applied',
      transaction_id: 'evt-recharge-1',
      amount: 5_000,
      balance: applied.balance,
    });
    expect(money[0]!.data.ledger_seq).toEqual(expect.any(Number));
    expect(money[0]!.account_id).toBe(a.accountId);
    const restored = await seen.waitFor('meter.restored', (e) => e.device_id === a.deviceId);
    expect(restored.data.balance).toBe(applied.balance);

    ok(
      await t.sim('POST', `/devices/${a.deviceId}/recharge`, {
        amount: 5_000,
        transaction_id: 'evt-recharge-1',
      }),
    );
    const dup = seen.of('money.recharge', a.deviceId)[1]!;
    expect(dup.data).toMatchObject({ outcome: 'duplicate', ledger_seq: money[0]!.data.ledger_seq });

    const conflict = await t.sim('POST', `/devices/${a.deviceId}/recharge`, {
      amount: 7_000,
      transaction_id: 'evt-recharge-1',
    });
    expect(conflict.status).toBe(409);
    const refused = seen.of('money.recharge', a.deviceId)[2]!;
    expect(refused.data).toMatchObject({ outcome: 'refused', ledger_seq: null, amount: 7_000 });
    expect(refused.data.reason).toContain('already used');
  });
});

describe('offline, and why', () => {
  it('unplugged through /sim/v1 → meter.offline unplugged; plugged back → meter.online', async () => {
    const a = await tenant(t.sim);
    ok(await t.sim('POST', `/devices/${a.deviceId}/online`, { online: false }));
    const off = await seen.waitFor('meter.offline', (e) => e.device_id === a.deviceId);
    expect(off.data).toEqual({ reason: 'unplugged' });
    ok(await t.sim('POST', `/devices/${a.deviceId}/online`, { online: true }));
    const on = seen.of('meter.online', a.deviceId);
    expect(on).toHaveLength(2);
    expect(on[1]!.data.since).toEqual(expect.any(Number));
  });

  it('a hand-driven meter that says goodbye → bye; one that drops its socket → will', async () => {
    const { account_id } = ok(await t.sim<{ account_id: number }>('POST', '/accounts', { name: 'hand' }));
    const ext = await provision(t.sim, { account_id, external: true });
    const now = t.svc.world.clock.now();
    const m = await HandMeter.connect(clients, ext.mqtt, statePayload(now));
    await seen.waitFor('meter.online', (e) => e.device_id === ext.device_id);
    await m.goOffline(now + 1);
    expect((await seen.waitFor('meter.offline', (e) => e.device_id === ext.device_id)).data.reason).toBe(
      'bye',
    );

    // Again, with a will, and the socket simply dropped.
    const will = {
      topic: topicFor(ext.device_id, 'availability'),
      payload: '{"v":1,"online":false}',
      qos: 1 as const,
      retain: true,
    };
    const c = await clients.connect({ clientId: ext.device_id, ...ext.mqtt, will });
    await c.publishAsync(
      topicFor(ext.device_id, 'availability'),
      JSON.stringify({ v: 1, online: true, ts: now + 2 }),
      { qos: 1, retain: true },
    );
    await until(() => seen.of('meter.online', ext.device_id).length === 2, 'online again');
    c.stream.destroy();
    await until(() => seen.of('meter.offline', ext.device_id).length === 2, 'offline by will');
    expect(seen.of('meter.offline', ext.device_id)[1]!.data.reason).toBe('will');
  });

  it('a meter whose keep-alive runs out → meter.offline link_timeout', async () => {
    const { account_id } = ok(await t.sim<{ account_id: number }>('POST', '/accounts', { name: 'quiet' }));
    const ext = await provision(t.sim, { account_id, external: true });
    const id = ext.device_id;
    // A raw client: CONNECT with keep-alive 1 s and a will, announce online, then say nothing more.
    const { hostname, port } = new URL(t.svc.mqttUrl);
    const socket = tcpConnect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    await new Promise((r) => socket.once('connect', r));
    const availability = topicFor(id, 'availability');
    socket.write(
      generate({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        clientId: id,
        keepalive: 1,
        username: ext.mqtt.username,
        password: Buffer.from(ext.mqtt.password),
        will: { topic: availability, payload: Buffer.from('{"v":1,"online":false}'), qos: 1, retain: true },
      }),
    );
    const online = JSON.stringify({ v: 1, online: true, ts: t.svc.world.clock.now() });
    socket.write(
      generate({
        cmd: 'publish',
        topic: availability,
        payload: Buffer.from(online),
        qos: 0,
        retain: true,
        dup: false,
      }),
    );
    await seen.waitFor('meter.online', (e) => e.device_id === id);
    // aedes allows 1.5 × the keep-alive.
    const off = await seen.waitFor('meter.offline', (e) => e.device_id === id, 5_000);
    expect(off.data.reason).toBe('link_timeout');
    socket.destroy();
  });
});

describe('refusals', () => {
  it('a reply nothing waits for → contract.refused, and a wrong password → broker.refused', async () => {
    const { account_id } = ok(await t.sim<{ account_id: number }>('POST', '/accounts', { name: 'r' }));
    const ext = await provision(t.sim, { account_id, external: true });
    const m = await HandMeter.connect(clients, ext.mqtt, statePayload(t.svc.world.clock.now()));
    await m.reply({ id: 'nobody-asked', ok: true });
    const refused = await seen.waitFor('contract.refused', (e) => e.device_id === ext.device_id);
    expect(refused.data).toMatchObject({ reason: 'unmatchedReply', count: 1 });
    expect(refused.data.detail).toContain('MC-8.9');

    const code = await clients.refused({
      clientId: ext.device_id,
      username: ext.device_id,
      password: 'wrong',
    });
    expect(code).toBe(4);
    const login = await seen.waitFor('broker.refused', (e) => e.data.username === ext.device_id);
    expect(login.data).toMatchObject({ client_id: ext.device_id, reason: 'bad username or password' });
    expect(JSON.stringify(login)).not.toContain('wrong');
  });
});

function seq(e: { seq: number }): number {
  return e.seq;
}

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
