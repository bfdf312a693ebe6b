// Home Assistant discovery on an external Mosquitto with dynamic security (issue 22 §3, HA-7, HA-9):
// the service makes HA's role and login there itself; HA reads the retained discovery, switches a relay
// through the service, and is refused a meter's topics by Mosquitto; a broker that stops taking the
// discovery publications is told once in the log, not once per meter.

import { execFileSync } from 'node:child_process';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../../firmware-protocol/mqtt/topics.ts';
import { DISCOVERY_TOPIC, PLATFORM_SCHEMAS } from '../../../test/helpers/home-assistant.ts';
import {
  type RunningMosquitto,
  skipWithoutMosquitto,
  startMosquitto,
} from '../../../test/helpers/mosquitto.ts';
import { Inbox } from '../../../test/helpers/mqtt.ts';
import { startTestService, type TestService } from '../../../test/helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../../../test/helpers/v2.ts';
import { ServiceExtensions } from '../index.ts';
import { HA_METRICS } from './extension.ts';
import { haLogin } from './login.ts';
import { commandTopic, statusTopic } from './topics.ts';

const PREFIX = 'homeassistant';
let m: RunningMosquitto;
let t: TestService;
let exts: ServiceExtensions;
let meter: Tenant;
const clients: MqttClient[] = [];

if (skipWithoutMosquitto)
  console.warn('Mosquitto with dynamic security is not installed: these tests are skipped');

/** HA's login on Mosquitto, in MQTT 5 so a refused publish or subscription says so. */
async function ha(): Promise<MqttClient> {
  const login = haLogin(PREFIX, t.svc.adminToken);
  const c = await mqtt.connectAsync(m.url, {
    username: login.username,
    password: login.password,
    clientId: `ha-${Math.random().toString(36).slice(2)}`,
    protocolVersion: 5,
    reconnectPeriod: 0,
  });
  clients.push(c);
  return c;
}

describe.skipIf(skipWithoutMosquitto)('[HA-7] on Mosquitto (dynsec), with the role the service made', () => {
  beforeAll(async () => {
    m = await startMosquitto();
    exts = new ServiceExtensions({
      homeAssistant: { prefix: PREFIX, changeDelayMs: 20, telemetryPeriodMs: 50 },
    });
    t = await startTestService({
      speed: 0,
      broker: m.brokerUrl,
      extensions: exts.list,
      homeAssistant: { prefix: PREFIX },
    });
    meter = await tenant(t.sim, { model: 'full', mode: 'postpaid', load_watts: 500 });
    await exts.homeAssistant!.flush();
  }, 30_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    await t?.close();
    await m?.stop();
  });

  it('HA reads every retained discovery config, each valid for its platform', async () => {
    const c = await ha();
    const inbox = new Inbox(c);
    await c.subscribeAsync(`${PREFIX}/#`, { qos: 1 });
    const got = await inbox.count(10);
    for (const msg of got) {
      const match = DISCOVERY_TOPIC.exec(msg.topic)!;
      PLATFORM_SCHEMAS[match[2] as keyof typeof PLATFORM_SCHEMAS].parse(JSON.parse(msg.payload));
    }
    expect(got.every((x) => x.retain)).toBe(true);
  });

  it('a relay switched from HA shows in the v2 API', async () => {
    const c = await ha();
    await c.publishAsync(commandTopic(meter.deviceId, 'relay'), 'OFF', { qos: 1 });
    const v2 = v2Client(t.svc.httpUrl, meter.key);
    await expect
      .poll(
        async () =>
          data<{ relay_state: boolean }>(await v2('GET', `/devices/${meter.deviceId}/metrics`)).relay_state,
        { interval: 25, timeout: 5_000 },
      )
      .toBe(false);
  });

  it('Mosquitto refuses HA a meter’s cmd and state, and its telemetry', async () => {
    const c = await ha();
    await expect(c.publishAsync(topicFor(meter.deviceId, 'cmd'), '{"v":1}', { qos: 1 })).rejects.toThrow(
      /not authori/i,
    );
    await expect(c.publishAsync(topicFor(meter.deviceId, 'state'), '{"v":1}', { qos: 1 })).rejects.toThrow(
      /not authori/i,
    );
    await expect(c.subscribeAsync(topicFor(meter.deviceId, 'telemetry'), { qos: 1 })).rejects.toThrow(
      /not authori/i,
    );
    const ok = await c.subscribeAsync(topicFor(meter.deviceId, 'availability'), { qos: 1 });
    expect(ok[0]!.qos).toBe(1);
  });

  it('[HA-9] a broker that refuses the discovery publications is told once, not per meter', async () => {
    const second = await tenant(t.sim, { model: 'basic' });
    await exts.homeAssistant!.flush();
    // Take the prefix away from the service's role, then have HA ask for everything again (its birth).
    execFileSync('/usr/bin/mosquitto_ctrl', [
      ...['-h', '127.0.0.1', '-p', String(m.port), '-u', m.admin.username, '-P', m.admin.password],
      ...['dynsec', 'removeRoleACL', 'meterstack-service', 'publishClientSend', `${PREFIX}/#`],
    ]);
    const before = t.svc.metrics.value(HA_METRICS.publishRefused) ?? 0;
    const c = await ha();
    await c.publishAsync(statusTopic(PREFIX), 'online', { qos: 1 });
    await expect
      .poll(() => (t.svc.metrics.value(HA_METRICS.publishRefused) ?? 0) - before, {
        interval: 25,
        timeout: 5_000,
      })
      .toBeGreaterThanOrEqual(19); // two meters' configs: 10 + 9
    const told = t.logs.filter((l) => l.includes("refuses the extension's publications"));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^warn /);
    expect(second.deviceId).toBeTruthy();
  });

  it('[HA-7] a restart without --ha-discovery deletes the HA login, its role and the service role’s HA ACLs', async () => {
    const login = haLogin(PREFIX, t.svc.adminToken);
    await t.close();
    t = await startTestService({ speed: 0, broker: m.brokerUrl });
    await expect(
      mqtt.connectAsync(m.url, {
        username: login.username,
        password: login.password,
        clientId: `ha-${Math.random().toString(36).slice(2)}`,
        reconnectPeriod: 0,
        connectTimeout: 3_000,
      }),
    ).rejects.toThrow(/not authori|bad user/i);
    const ctl = (...args: string[]) =>
      execFileSync('/usr/bin/mosquitto_ctrl', [
        ...['-h', '127.0.0.1', '-p', String(m.port), '-u', m.admin.username, '-P', m.admin.password],
        ...['dynsec', ...args],
      ]).toString();
    expect(ctl('listRoles')).not.toMatch(/meterstack-ha/);
    const role = ctl('getRole', 'meterstack-service');
    expect(role).not.toContain(`${PREFIX}/#`);
    expect(role).not.toContain('meterstack/ha/#');
    expect(role).toContain('meterstack/v1/#');
  });
});
