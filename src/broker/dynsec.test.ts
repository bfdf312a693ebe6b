// The dynamic-security codec and client against the real plugin: a Debian Mosquitto 2 on an ephemeral
// port (test/helpers/mosquitto.ts). What a meter's role allows is the embedded broker's access.ts,
// [MC-2.1, MC-2.2]; the tenancy tests in test/core and test/hardening run over both brokers.

import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { type RunningMosquitto, skipWithoutMosquitto, startMosquitto } from '../../test/helpers/mosquitto.ts';
import { DynsecClient, DynsecError } from './dynsec-client.ts';
import {
  clientRoles,
  commands,
  decodeResponse,
  encodeRequest,
  meterAcls,
  meterRoleName,
} from './dynsec-codec.ts';
import { connectExternalBroker } from './external.ts';
import { subscribe, TestClients } from './test-helpers.ts';

describe('dynsec codec', () => {
  it('numbers each command of a request and reads back only the answers to it', () => {
    const body = JSON.parse(encodeRequest('r1', [commands.deleteClient('a'), commands.getClient('b')]));
    expect(body).toEqual({
      commands: [
        { command: 'deleteClient', username: 'a', correlationData: 'r1:0' },
        { command: 'getClient', username: 'b', correlationData: 'r1:1' },
      ],
    });
    const answer = JSON.stringify({
      responses: [
        { command: 'deleteClient', correlationData: 'r1:0', error: 'Client not found' },
        { command: 'getClient', correlationData: 'r1:1', data: { client: { roles: [{ rolename: 'x' }] } } },
        { command: 'getClient', correlationData: 'other:0' },
      ],
    });
    const results = decodeResponse(answer, 'r1')!;
    expect(results.size).toBe(2);
    expect(results.get(0)).toEqual({ ok: false, command: 'deleteClient', error: 'Client not found' });
    expect(clientRoles(results.get(1)!)).toEqual(['x']);
    expect(decodeResponse('not json', 'r1')).toBeNull();
    expect(decodeResponse('{"x":1}', 'r1')).toBeNull();
  });

  it('gives a meter publish ACLs on its own five channels and a literal subscribe on its cmd and the service announcement [MC-2.1, MC-2.2, MC-12.2]', () => {
    expect(meterAcls('M1')).toEqual([
      { acltype: 'publishClientSend', topic: 'meterstack/v1/M1/info', allow: true },
      { acltype: 'publishClientSend', topic: 'meterstack/v1/M1/state', allow: true },
      { acltype: 'publishClientSend', topic: 'meterstack/v1/M1/availability', allow: true },
      { acltype: 'publishClientSend', topic: 'meterstack/v1/M1/telemetry', allow: true },
      { acltype: 'publishClientSend', topic: 'meterstack/v1/M1/reply', allow: true },
      { acltype: 'subscribeLiteral', topic: 'meterstack/v1/M1/cmd', allow: true },
      { acltype: 'subscribeLiteral', topic: 'meterstack/v1/service', allow: true },
    ]);
  });
});

describe.skipIf(skipWithoutMosquitto)('dynsec client against Mosquitto 2', () => {
  let mosq: RunningMosquitto;
  let adminMqtt: MqttClient;
  let dynsec: DynsecClient;
  let clients: TestClients;

  beforeAll(async () => {
    mosq = await startMosquitto();
    adminMqtt = await connectAsync(mosq.url, { ...mosq.admin, reconnectPeriod: 0 });
    dynsec = await DynsecClient.open({ mqtt: adminMqtt, url: mosq.url });
    clients = new TestClients(mosq.url);
  });
  afterEach(() => clients.endAll());
  afterAll(async () => {
    dynsec?.close();
    await adminMqtt?.endAsync(true);
    await mosq?.stop();
  });

  it('makes a meter login that connects only as itself, with its own client id [MQTT-3.1.3-9]', async () => {
    await dynsec.addMeter('M1', 'secret-1');
    const ok = await clients.connect({ clientId: 'M1', username: 'M1', password: 'secret-1' });
    expect(ok.connected).toBe(true);
    expect(await clients.refused({ clientId: 'M1', username: 'M1', password: 'wrong' })).toBe(5);
    expect(await clients.refused({ clientId: 'not-M1', username: 'M1', password: 'secret-1' })).toBe(5);
  });

  it('limits a meter to its own topics [MC-2.1, MC-2.2]', async () => {
    await dynsec.addMeter('M2', 's2');
    await dynsec.addMeter('M3', 's3');
    const m2 = await clients.connect({ clientId: 'M2', username: 'M2', password: 's2' });
    expect(await subscribe(m2, topicFor('M2', 'cmd'))).toBe(1);
    expect(await subscribe(m2, topicFor('M3', 'cmd'))).toBe(128);
    expect(await subscribe(m2, 'meterstack/v1/+/cmd')).toBe(128);
    expect(await subscribe(m2, '#')).toBe(128);
  });

  it('[MC-12.2] a meter may subscribe to the service announcement, also when an earlier build made its role', async () => {
    await dynsec.addMeter('M5', 's5');
    const m5 = await clients.connect({ clientId: 'M5', username: 'M5', password: 's5' });
    expect(await subscribe(m5, 'meterstack/v1/service')).toBe(1);
    expect(await subscribe(m5, 'meterstack/v1/+')).toBe(128);
    // A role as the build before MC-12 made it: its own topics only.
    const before = meterAcls('M6').filter((a) => a.topic !== 'meterstack/v1/service');
    await dynsec.must(commands.createRole(meterRoleName('M6'), before));
    await dynsec.addMeter('M6', 's6', { restore: true });
    await dynsec.addMeter('M6', 's6', { restore: true }); // the next restart: already there
    const m6 = await clients.connect({ clientId: 'M6', username: 'M6', password: 's6' });
    expect(await subscribe(m6, 'meterstack/v1/service')).toBe(1);
  });

  it('is idempotent: adding a meter again sets its new password, restoring leaves it; removing takes the login away', async () => {
    await dynsec.addMeter('M4', 'old');
    await dynsec.addMeter('M4', 'new');
    expect(await clients.refused({ clientId: 'M4', username: 'M4', password: 'old' })).toBe(5);
    await clients.connect({ clientId: 'M4', username: 'M4', password: 'new' });
    const roles = await dynsec.run(commands.getClient('M4'));
    expect(clientRoles(roles)).toEqual([meterRoleName('M4')]);
    // A restart's restore leaves a login that is there alone (no rewrite, no kick of the meter).
    await dynsec.addMeter('M4', 'other', { restore: true });
    await clients.connect({ clientId: 'M4', username: 'M4', password: 'new' });
    await dynsec.removeMeter('M4');
    await dynsec.removeMeter('M4');
    expect(await clients.refused({ clientId: 'M4', username: 'M4', password: 'new' })).toBe(5);
  });

  it('batches the commands of one tick into one request and answers each', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `B${i}`);
    await Promise.all(ids.map((id) => dynsec.addMeter(id, `pw-${id}`)));
    await clients.connect({ clientId: 'B299', username: 'B299', password: 'pw-B299' });
  });

  it('connectExternalBroker survives its broker going away (logged, not thrown)', async () => {
    const other = await startMosquitto();
    const logs: string[] = [];
    const broker = await connectExternalBroker({ url: other.brokerUrl, log: (_l, m) => logs.push(m) });
    expect(broker).toMatchObject({ kind: 'external', logins: 'dynsec', url: other.url });
    await other.stop();
    await new Promise((r) => setTimeout(r, 1_500)); // a reconnect attempt or two
    expect(logs.some((m) => m.startsWith(`MQTT: dynamic-security connection to ${other.url}`))).toBe(true);
    await broker.close();
  });

  it('refuses to open against a broker without the plugin, naming it, within its timeout', async () => {
    const plain = await startMosquitto({ dynsec: false });
    const mqtt = await connectAsync(plain.url, { ...plain.admin, reconnectPeriod: 0 });
    try {
      const err = await DynsecClient.open({ mqtt, url: plain.url, timeoutMs: 500 }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(DynsecError);
      expect((err as Error).message).toContain(
        `the MQTT broker at ${plain.url} has no dynamic-security plugin`,
      );
    } finally {
      await mqtt.endAsync(true);
      await plain.stop();
    }
  });
});
