// Home Assistant discovery against a real service (issue 22 §3; rules HA-1..HA-10 in README.md): a real
// broker, virtual meters, real MQTT clients logged in as Home Assistant, and the v2 API over HTTP. Every
// retained discovery payload is checked against the schema of its HA platform (test/helpers/home-assistant.ts).

import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../../firmware-protocol/mqtt/topics.ts';
import {
  DISCOVERY_TOPIC,
  HaStatePayload,
  PLATFORM_SCHEMAS,
  templateKeys,
} from '../../../test/helpers/home-assistant.ts';
import { Inbox, ServiceClients } from '../../../test/helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../../../test/helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../../../test/helpers/v2.ts';
import { closed, subscribe } from '../../broker/test-helpers.ts';
import { ServiceExtensions } from '../index.ts';
import { HA_METRICS } from './extension.ts';
import { haLogin } from './login.ts';
import { commandTopic, nodeIdOf, stateTopic } from './topics.ts';

const PREFIX = 'homeassistant';
const login = haLogin(PREFIX, ADMIN_TOKEN);
let t: TestService;
let exts: ServiceExtensions;
let clients: ServiceClients;
let full: Tenant;
let basic: Tenant;

const ha = (clientId = `ha-${Math.random().toString(36).slice(2)}`): Promise<MqttClient> =>
  clients.connect({ clientId, username: login.username, password: login.password });
const flush = () => exts.homeAssistant!.flush();
const metric = (name: string) => t.svc.metrics.value(name) ?? 0;

/** Every retained message under `filter` a fresh HA client gets at subscribe, once they stop coming. */
async function retained(filter: string): Promise<Map<string, string>> {
  const c = await ha();
  const inbox = new Inbox(c);
  await subscribe(c, filter);
  let n = -1;
  while (n !== inbox.messages.length) {
    n = inbox.messages.length;
    await new Promise((r) => setTimeout(r, 40));
  }
  await c.endAsync();
  return new Map(inbox.messages.filter((m) => m.retain).map((m) => [m.topic, m.payload]));
}

beforeAll(async () => {
  exts = new ServiceExtensions({
    homeAssistant: { prefix: PREFIX, changeDelayMs: 20, telemetryPeriodMs: 50 },
  });
  t = await startTestService({ speed: 0, extensions: exts.list, homeAssistant: { prefix: PREFIX } });
  clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
  full = await tenant(t.sim, { model: 'full', mode: 'postpaid', load_watts: 1000, name: 'Flat 101' });
  basic = await tenant(t.sim, { model: 'basic', mode: 'prepaid', balance: 5000 });
  ok(await t.sim('POST', '/clock/advance', { seconds: 600 }));
  await flush();
});
afterAll(async () => {
  await clients.endAll();
  await t.close();
});

describe('[HA-2] [HA-3] discovery, retained, one HA device per meter', () => {
  it('every payload is valid for its HA platform, and the energy sensor fits the Energy dashboard', async () => {
    const configs = await retained(`${PREFIX}/#`);
    const byDevice = new Map<string, Record<string, unknown>[]>();
    for (const [topic, payload] of configs) {
      const m = DISCOVERY_TOPIC.exec(topic);
      expect(m, topic).not.toBeNull();
      expect(m![1]).toBe(PREFIX);
      const config = PLATFORM_SCHEMAS[m![2] as keyof typeof PLATFORM_SCHEMAS].parse(JSON.parse(payload));
      const id = (config.device as { identifiers: string[] }).identifiers[0]!;
      byDevice.set(id, [...(byDevice.get(id) ?? []), config as Record<string, unknown>]);
    }
    expect([...byDevice.keys()].sort()).toEqual([nodeIdOf(full.deviceId), nodeIdOf(basic.deviceId)].sort());
    const fullOnes = byDevice.get(nodeIdOf(full.deviceId))!;
    const basicOnes = byDevice.get(nodeIdOf(basic.deviceId))!;
    // power, energy, voltage, current, balance, mode, tariff, online, relay, mode select; basic: no current
    expect(fullOnes).toHaveLength(10);
    expect(basicOnes).toHaveLength(9);
    const uniqueIds = [...configs.values()].map((p) => JSON.parse(p).unique_id);
    expect(new Set(uniqueIds).size).toBe(uniqueIds.length);
    const energy = fullOnes.find((c) => c.device_class === 'energy')!;
    expect(energy).toMatchObject({ unit_of_measurement: 'kWh', state_class: 'total_increasing' });
    expect(fullOnes.find((c) => c.device_class === 'monetary')).toMatchObject({ unit_of_measurement: 'INR' });
    expect(fullOnes[0]!.device).toMatchObject({
      name: 'Flat 101',
      manufacturer: 'meterstack',
      suggested_area: 'Block A',
    });
  });

  it('[HA-4] [HA-5] the state topic holds what each template reads; availability is the meter’s own', async () => {
    const configs = [...(await retained(`${PREFIX}/#`)).values()].map((p) => JSON.parse(p));
    const states = await retained('meterstack/ha/+/state');
    const state = HaStatePayload.parse(JSON.parse(states.get(stateTopic(full.deviceId))!));
    expect(state).toMatchObject({ mode: 'postpaid', relay: 'ON', tariff: 'EB', online: true });
    expect(state.power).toBeGreaterThan(0);
    expect(state.current).toBeGreaterThan(0);
    const prepaid = HaStatePayload.parse(JSON.parse(states.get(stateTopic(basic.deviceId))!));
    expect(prepaid.current).toBeNull(); // a basic meter does not measure it, and has no sensor for it
    for (const c of configs)
      for (const key of templateKeys(c.value_template)) expect(Object.keys(state)).toContain(key);
    const tied = configs.filter((c) => c.availability);
    expect(tied).toHaveLength(configs.length - 2); // every entity but the two meters' online sensors
    const avail = await retained(topicFor(full.deviceId, 'availability'));
    expect(JSON.parse(avail.get(topicFor(full.deviceId, 'availability'))!)).toMatchObject({ online: true });
  });

  it('mosquitto_sub, logged in as Home Assistant, reads the retained discovery too', async () => {
    const { execFile } = await import('node:child_process');
    const port = new URL(t.svc.mqttUrl).port;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        'mosquitto_sub',
        [
          '-h',
          '127.0.0.1',
          '-p',
          port,
          '-u',
          login.username,
          '-P',
          login.password,
          '-t',
          `${PREFIX}/switch/#`,
          '-v',
          '-C',
          '2',
          '-W',
          '3',
          '--retained-only',
        ],
        (err, stdout) => (err && !stdout ? reject(err) : resolve(stdout)),
      ),
    ).catch((err: Error) =>
      // Absent here: skipped with a word; under CI=true it must be there.
      /ENOENT/.test(err.message) && process.env['CI'] !== 'true' ? null : Promise.reject(err),
    );
    if (out === null) return void console.warn('mosquitto_sub is not installed: this check is skipped');
    expect(out.trim().split('\n')).toHaveLength(2);
  });
});

describe('[HA-6] commands from Home Assistant go through the twins, as the v2 API’s do', () => {
  it('a switch command from the HA login turns the relay, and the v2 API shows it', async () => {
    const c = await ha();
    await c.publishAsync(commandTopic(full.deviceId, 'relay'), 'OFF', { qos: 1 });
    const v2 = v2Client(t.svc.httpUrl, full.key);
    await expect
      .poll(
        async () =>
          data<{ relay_state: boolean }>(await v2('GET', `/devices/${full.deviceId}/metrics`)).relay_state,
        { interval: 20, timeout: 3000 },
      )
      .toBe(false);
    await c.publishAsync(commandTopic(full.deviceId, 'mode'), 'measurement', { qos: 1 });
    await expect
      .poll(
        async () => data<{ active_mode: string }>(await v2('GET', `/devices/${full.deviceId}/`)).active_mode,
        { interval: 20, timeout: 3000 },
      )
      .toBe('measurement');
    // and the state topic follows
    const inbox = new Inbox(c);
    await subscribe(c, stateTopic(full.deviceId));
    await inbox.waitFor((m) => m.json.relay === 'OFF' && m.json.mode === 'measurement');
    expect(metric(HA_METRICS.commands)).toBe(2);
  });

  it('hostile payloads are refused with a log line and a counter, and the service carries on', async () => {
    const c = await ha();
    const before = metric(HA_METRICS.commandsRefused);
    await c.publishAsync(commandTopic(full.deviceId, 'relay'), 'MAYBE', { qos: 1 });
    await c.publishAsync(commandTopic(full.deviceId, 'relay'), Buffer.alloc(100_000, 0xff), { qos: 1 });
    await c.publishAsync(commandTopic(full.deviceId, 'mode'), 'prepaid; DROP TABLE', { qos: 1 });
    await c.publishAsync(commandTopic('MTR-NOBODY', 'relay'), 'ON', { qos: 1 });
    await expect
      .poll(() => metric(HA_METRICS.commandsRefused), { interval: 10, timeout: 2000 })
      .toBe(before + 4);
    const lines = t.logs.filter((l) => l.includes('Home Assistant: command refused'));
    expect(lines.some((l) => l.includes('(payload)') && l.includes("'MAYBE'"))).toBe(true);
    expect(lines.some((l) => l.includes('(too_long)'))).toBe(true);
    expect(lines.some((l) => l.includes('(unknown_device)'))).toBe(true);
    expect(lines.every((l) => l.length < 400)).toBe(true);
    await c.publishAsync(commandTopic(full.deviceId, 'relay'), 'ON', { qos: 1 });
    const v2 = v2Client(t.svc.httpUrl, full.key);
    await expect
      .poll(
        async () =>
          data<{ relay_state: boolean }>(await v2('GET', `/devices/${full.deviceId}/metrics`)).relay_state,
        { interval: 20, timeout: 3000 },
      )
      .toBe(true);
  });
});

describe('[HA-7] the HA login: its own topics only', () => {
  it.each([
    ['a meter’s cmd', () => topicFor(full.deviceId, 'cmd'), false],
    ['a meter’s state', () => topicFor(full.deviceId, 'state'), true],
    ['a meter’s availability', () => topicFor(full.deviceId, 'availability'), true],
    ['a discovery config', () => `${PREFIX}/switch/x/relay/config`, true],
    ['the state topic', () => stateTopic(full.deviceId), true],
  ])('cannot publish on %s (the broker closes its connection)', async (_what, topic, retain) => {
    const c = await ha();
    const gone = closed(c);
    c.publish(topic(), '{"v":1}', { qos: 1, retain });
    await gone;
  });

  it('a retained command is refused at the broker', async () => {
    const c = await ha();
    const gone = closed(c);
    c.publish(commandTopic(full.deviceId, 'relay'), 'OFF', { qos: 1, retain: true });
    await gone;
  });

  it('may not read telemetry, commands or everything', async () => {
    const c = await ha();
    expect(await subscribe(c, '#')).toBe(0x80);
    expect(await subscribe(c, topicFor(full.deviceId, 'telemetry'))).toBe(0x80);
    expect(await subscribe(c, 'meterstack/v1/+/cmd')).toBe(0x80);
    expect(await subscribe(c, 'meterstack/ha/#')).toBe(0x80); // commands of others are not its to read
    expect(await subscribe(c, `${PREFIX}/+/+/+/config`)).toBe(1);
  });

  it('HA connects with its usual will on <prefix>/status; a retained will there is refused', async () => {
    const will = { topic: `${PREFIX}/status`, payload: Buffer.from('offline'), qos: 0 as const };
    const c = await clients.connect({
      clientId: 'ha-will',
      username: login.username,
      password: login.password,
      will: { ...will, retain: false },
    });
    expect(c.connected).toBe(true);
    const code = await clients.refused({
      clientId: 'ha-will-2',
      username: login.username,
      password: login.password,
      will: { ...will, retain: true },
    });
    expect(code).toBe(5);
  });

  it('a wrong password is refused', async () => {
    expect(await clients.refused({ clientId: 'ha-x', username: login.username, password: 'nope' })).toBe(4);
  });
});

describe('[HA-2] removal', () => {
  it('a device renamed through the v2 API is told again under its new name', async () => {
    const v2 = v2Client(t.svc.httpUrl, basic.key);
    data(await v2('PUT', `/devices/${basic.deviceId}/`, { name: 'Garage' }), undefined);
    await flush();
    const configs = await retained(`${PREFIX}/sensor/${nodeIdOf(basic.deviceId)}/+/config`);
    expect(configs.size).toBe(6);
    for (const p of configs.values()) expect(JSON.parse(p).device.name).toBe('Garage');
  });

  it('a replaced meter’s discovery is cleared, then told again with the new serial', async () => {
    const c = await ha();
    const inbox = new Inbox(c);
    await subscribe(c, `${PREFIX}/sensor/+/energy/config`);
    const topic = [...(await retained(`${PREFIX}/sensor/+/energy/config`)).keys()].find((k) =>
      k.includes(full.deviceId),
    )!;
    ok(await t.sim('POST', `/devices/${full.deviceId}/replace`, { serial: 'SN-NEW-1' }));
    await flush();
    const seen = await inbox.waitFor((m) => m.topic === topic && m.payload.includes('SN-NEW-1'));
    const cleared = inbox.on(topic).findIndex((m) => m.payload === '');
    expect(cleared).toBeGreaterThanOrEqual(0);
    expect(inbox.on(topic).indexOf(seen)).toBeGreaterThan(cleared);
  });

  it('a reset world leaves no discovery topic behind', async () => {
    expect((await retained(`${PREFIX}/#`)).size).toBe(19);
    ok(await t.sim('POST', '/reset'));
    await flush();
    expect([...(await retained(`${PREFIX}/#`)).values()].filter((p) => p !== '')).toEqual([]);
    expect(metric(HA_METRICS.devices)).toBe(0);
  });
});
