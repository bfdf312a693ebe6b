// Issue 8 item 16 [MC-6.7]: on every (re)connection a meter publishes its info, its state and one
// sample of its present readings, so a newly provisioned meter has readings in the v2 API at once (not
// a telemetry period later), and a meter that comes back says where it stands right away. A real
// service, real broker, real MQTT clients, real HTTP; the clock stands still except when advanced.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { replay } from '../../src/qa/replay/replay.ts';
import { loadTrace } from '../../src/qa/traces/load.ts';
import { Inbox, type Received, ServiceClients } from '../helpers/mqtt.ts';
import {
  newAccount,
  ok,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { data, v2Client } from '../helpers/v2.ts';

interface DeviceView {
  readings: { property_id: string; value: number; unit: string }[];
  is_online: boolean;
}

let t: TestService;
let accountId: number;
let spaceId: number;
let apiKey: string;
let clients: ServiceClients;

beforeAll(async () => {
  // speed 0: no periodic sample can fall due by itself, so any sample seen comes from a connection.
  t = await startTestService({ speed: 0 });
  const account = await newAccount(t.sim, 'connect-sample');
  accountId = account.account_id;
  apiKey = account.api_key;
  spaceId = ok(
    await t.sim<{ space_id: number }>('POST', '/spaces', { account_id: accountId, name: 'Flat' }),
  ).space_id;
  clients = new ServiceClients(t.svc.mqttUrl, t.svc.adminToken);
});
afterAll(async () => {
  await clients?.endAll();
  await t?.close();
});

const clockNow = async () => Date.parse(ok(await t.sim<{ now: string }>('GET', '/clock')).now);
const deviceView = async (id: string) =>
  data(await v2Client(t.svc.httpUrl, apiKey)<DeviceView>('GET', `/devices/${id}/`));
const newMeter = (body: Record<string, unknown> = {}): Promise<Provisioned> =>
  provision(t.sim, {
    account_id: accountId,
    space_id: spaceId,
    model: 'full',
    mode: 'postpaid',
    load_watts: 1234.5,
    telemetry_period_s: 3600,
    ...body,
  });

/** An admin subscriber on every channel of `id`; `since()` marks where the next reconnection starts. */
async function watch(id: string): Promise<{ inbox: Inbox; since: (mark: number) => Received[] }> {
  const admin: MqttClient = await clients.admin();
  const inbox = new Inbox(admin);
  await admin.subscribeAsync(`meterstack/v1/${id}/#`, { qos: 1 });
  // The retained info, state and availability arrive first.
  await inbox.waitFor((m) => m.topic === topicFor(id, 'availability'), 3_000, 'retained availability');
  return { inbox, since: (mark) => inbox.messages.slice(mark) };
}

const samplesIn = (messages: Received[], id: string) =>
  messages
    .filter((m) => m.topic === topicFor(id, 'telemetry'))
    .flatMap((m) => m.json['samples'] as { ts: number; active_power: number; energy: number }[]);

/** info, state, online and a sample stamped `ts` on `id`'s topics, in `messages`, in contract order. */
function expectAnnounced(messages: Received[], id: string, ts: number): void {
  const topics = messages.map((m) => m.topic);
  const infoAt = topics.indexOf(topicFor(id, 'info'));
  const stateAt = topics.indexOf(topicFor(id, 'state'));
  const onlineAt = messages.findIndex(
    (m) => m.topic === topicFor(id, 'availability') && m.json['online'] === true,
  );
  const sampleAt = messages.findIndex(
    (m) =>
      m.topic === topicFor(id, 'telemetry') &&
      (m.json['samples'] as { ts: number }[]).some((s) => s.ts === ts),
  );
  expect({ infoAt, stateAt, onlineAt, sampleAt }).toEqual({
    infoAt: expect.any(Number),
    stateAt: expect.any(Number),
    onlineAt: expect.any(Number),
    sampleAt: expect.any(Number),
  });
  expect(infoAt).toBeGreaterThanOrEqual(0);
  expect(infoAt).toBeLessThan(stateAt);
  expect(stateAt).toBeLessThan(onlineAt);
  expect(onlineAt).toBeLessThan(sampleAt); // [MC-6.3] online first, then [MC-6.7] the reading
}

describe('[MC-6.7] issue 8 item 16: a meter publishes info, state and one sample on every (re)connect', () => {
  it('a newly provisioned meter has readings in GET /devices/{id}/ as soon as provisioning returns', async () => {
    const { device_id: id } = await newMeter();
    const now = await clockNow();
    const view = await deviceView(id);
    expect(view.is_online).toBe(true);
    const byId = Object.fromEntries(view.readings.map((r) => [r.property_id, r.value]));
    expect(Object.keys(byId).sort()).toEqual(
      [
        'active_power',
        'apparent_power',
        'current',
        'energy',
        'power_factor',
        'reactive_power',
        'voltage',
      ].sort(),
    );
    expect(byId['active_power']).toBe(1234.5);
    expect(byId['energy']).toBe(0);
    // The stored sample is the connect sample, stamped with the connection's instant.
    const stored = await t.svc.store.latestSample((await t.svc.store.getDevice(id))!.pk);
    expect(stored?.ts).toBe(now);
    // And the live read agrees with it.
    const metrics = data(
      await v2Client(t.svc.httpUrl, apiKey)<{ active_power: number; energy: number }>(
        'GET',
        `/devices/${id}/metrics`,
      ),
    );
    expect(metrics).toMatchObject({ active_power: 1234.5, energy: 0 });
  });

  it('a meter unplugged and plugged back (POST /sim/v1/devices/{id}/online) republishes info, state and a sample at the new instant', async () => {
    const { device_id: id } = await newMeter();
    const { inbox, since } = await watch(id);
    ok(await t.sim('POST', `/devices/${id}/online`, { online: false }));
    ok(await t.sim('POST', '/clock/advance', { seconds: 90 }));
    const mark = inbox.messages.length;
    ok(await t.sim('POST', `/devices/${id}/online`, { online: true }));
    const now = await clockNow();
    await inbox.waitFor(
      (m) => m.topic === topicFor(id, 'telemetry') && samplesIn([m], id).some((s) => s.ts === now),
      5_000,
      'the connect sample',
    );
    expectAnnounced(since(mark), id, now);
    // 90 s of 1234.5 W were metered while offline: the connect sample shows the register as it stands.
    const sample = samplesIn(since(mark), id).find((s) => s.ts === now)!;
    expect(sample).toMatchObject({ active_power: 1234.5, energy: 0.031 }); // 30.8625 Wh
    const view = await deviceView(id);
    expect(view.readings.find((r) => r.property_id === 'energy')?.value).toBe(0.031);
  });

  it('a meter whose connection drops reconnects by itself and republishes info, state and a sample', async () => {
    const creds = await newMeter();
    const id = creds.device_id;
    const { inbox, since } = await watch(id);
    ok(await t.sim('POST', '/clock/advance', { seconds: 30 }));
    const now = await clockNow();
    const mark = inbox.messages.length;
    // A second connection with the meter's own client id takes its session over: the broker drops the
    // meter, as a lost network would. The meter reconnects on its own a second later (and takes it back).
    const intruder = await clients.device(creds.mqtt);
    await inbox.waitFor(
      (m) => m.topic === topicFor(id, 'availability') && m.json['online'] === false,
      5_000,
      'the will',
    );
    await inbox.waitFor(
      (m) => m.topic === topicFor(id, 'telemetry') && samplesIn([m], id).some((s) => s.ts === now),
      10_000,
      'the connect sample after reconnecting',
    );
    expectAnnounced(since(mark), id, now);
    await intruder.endAsync(true);
  });

  it('a reconnection within the same instant publishes no second sample at that instant [MC-7.3]', async () => {
    const { device_id: id } = await newMeter();
    const { inbox, since } = await watch(id);
    const mark = inbox.messages.length;
    ok(await t.sim('POST', `/devices/${id}/online`, { online: false }));
    ok(await t.sim('POST', `/devices/${id}/online`, { online: true }));
    await inbox.waitFor((m) => m.topic === topicFor(id, 'state') && since(mark).includes(m), 5_000, 'state');
    await inbox.waitFor(
      (m) => m.topic === topicFor(id, 'availability') && m.json['online'] === true && since(mark).includes(m),
      5_000,
      'online',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(samplesIn(since(mark), id)).toEqual([]);
  });
});

describe('[MC-6.7] [M-17] issue 8 item 16: the trace-replay firmware', () => {
  it('publishes its last readings when it comes back online, unless the trace has a sample at that instant', async () => {
    const { dir, remove } = tempDir();
    try {
      const file = join(dir, 'reconnect.jsonl');
      writeFileSync(
        file,
        [
          { trace: 1, zone: 'Asia/Kolkata', mode: 'postpaid' },
          { ts: '2026-01-05T00:00:00', energy: 10.0, active_power: 600, voltage: 231.0 },
          { ts: '2026-01-05T00:01:00', energy: 10.01, active_power: 600, voltage: 231.0 },
          { ts: '2026-01-05T00:02:00', event: 'offline' },
          { ts: '2026-01-05T00:02:30', event: 'online' },
          { ts: '2026-01-05T00:03:00', energy: 10.03, active_power: 1200, voltage: 231.0 },
          { ts: '2026-01-05T00:04:00', event: 'offline' },
          { ts: '2026-01-05T00:05:00', event: 'online' },
          { ts: '2026-01-05T00:05:00', energy: 10.05, active_power: 1200, voltage: 230.0 },
        ]
          .map((l) => JSON.stringify(l))
          .join('\n'),
      );
      const result = await replay({
        trace: await loadTrace(file),
        target: { httpUrl: t.svc.httpUrl, adminToken: t.svc.adminToken, close: async () => {} },
        device: { deviceId: 'TRACE-RECONNECT', accountId, spaceId, apiKey },
        pace: { kind: 'instant' },
        loops: 1,
        meter: {},
      });
      expect(result.verified).toBe(true);
      const pk = (await t.svc.store.getDevice('TRACE-RECONNECT'))!.pk;
      const sqlite = new Database(t.db, { readonly: true });
      const rows = sqlite
        .prepare('SELECT ts, energy, active_power, voltage FROM samples WHERE device_pk = ? ORDER BY ts')
        .all(pk) as { ts: number; energy: number; active_power: number; voltage: number }[];
      sqlite.close();
      const at = (hhmmss: string) => Date.parse(`2026-01-05T${hhmmss}+05:30`);
      expect(rows).toEqual([
        { ts: at('00:00:00'), energy: 10, active_power: 600, voltage: 231 },
        { ts: at('00:01:00'), energy: 10.01, active_power: 600, voltage: 231 },
        // Back online at 00:02:30: what it last measured, its register as it stands.
        { ts: at('00:02:30'), energy: 10.01, active_power: 600, voltage: 231 },
        { ts: at('00:03:00'), energy: 10.03, active_power: 1200, voltage: 231 },
        // Back online at 00:05:00 with a trace sample at that very instant: that sample is the reading.
        { ts: at('00:05:00'), energy: 10.05, active_power: 1200, voltage: 230 },
      ]);
    } finally {
      remove();
    }
  });
});
