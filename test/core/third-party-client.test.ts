// A real third-party MQTT client, Mosquitto's `mosquitto_sub`, logged in as `admin` with the admin token,
// reads a meter's telemetry and retained state from the embedded broker: the contract is plain MQTT
// 3.1.1 and JSON, not something only mqtt.js understands.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import {
  ADMIN_TOKEN,
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';

const MOSQUITTO_SUB = '/usr/bin/mosquitto_sub';
const available = existsSync(MOSQUITTO_SUB);
if (!available && process.env.CI === 'true') {
  throw new Error(
    `${MOSQUITTO_SUB} is missing; .ci/run installs mosquitto-clients, so this must not be skipped in CI`,
  );
}
if (!available) {
  console.warn(
    `SKIPPED: ${MOSQUITTO_SUB} not found (apt-get install mosquitto-clients); third-party client tests skipped`,
  );
}

let t: TestService;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (available) t = await startTestService({ speed: 0 });
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
afterAll(() => t?.close());

let subscribers = 0;

/**
 * Runs mosquitto_sub. `subscribed` resolves when the broker has its subscription (mosquitto_sub
 * block-buffers stdout on a pipe, so its own output only shows up when it exits); `done` when it exits.
 */
function mosquittoSub(args: string[]) {
  const { hostname, port } = new URL(t.svc.mqttUrl);
  const clientId = `mosquitto-sub-test-${process.pid}-${++subscribers}`;
  const aedes = t.svc.broker!.aedes;
  const subscribed = new Promise<void>((resolve) => {
    const onSubscribe = (_subs: unknown, client: { id: string } | null) => {
      if (client?.id !== clientId) return;
      aedes.off('subscribe', onSubscribe);
      resolve();
    };
    aedes.on('subscribe', onSubscribe);
  });
  const child = spawn(
    MOSQUITTO_SUB,
    [
      '-h',
      hostname,
      '-p',
      port,
      '-i',
      clientId,
      '-u',
      'admin',
      '-P',
      ADMIN_TOKEN,
      '-q',
      '1',
      '-W',
      '10',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out, err })),
  );
  return { subscribed, done };
}

/** The `topic payload` lines -v prints, without mosquitto_sub's debug lines. */
function messageLines(out: string): { topic: string; json: Record<string, unknown> }[] {
  return out
    .split('\n')
    .filter((l) => l.startsWith('meterstack/'))
    .map((l) => {
      const space = l.indexOf(' ');
      return { topic: l.slice(0, space), json: JSON.parse(l.slice(space + 1)) as Record<string, unknown> };
    });
}

describe.skipIf(!available)('mosquitto_sub with user admin and the admin token', () => {
  it('reads a meter’s telemetry as the clock advances [MC-7.1, MC-7.2]', async () => {
    const { account_id } = await newAccount(t.sim);
    const { device_id } = await provision(t.sim, {
      account_id,
      model: 'full',
      mode: 'postpaid',
      load_watts: 1500,
      telemetry_period_s: 60,
    });
    const sub = mosquittoSub(['-v', '-C', '1', '-t', topicFor(device_id, 'telemetry')]);
    await sub.subscribed;
    const { from } = ok(await t.sim<{ from: string }>('POST', '/clock/advance', { seconds: 180 }));
    const { code, out, err } = await sub.done;
    expect(code, err).toBe(0);
    const [message] = messageLines(out);
    expect(message?.topic).toBe(topicFor(device_id, 'telemetry'));
    const samples = message!.json.samples as Record<string, number>[];
    expect(samples[0]).toMatchObject({
      ts: (Math.floor(Date.parse(from) / 60_000) + 1) * 60_000,
      active_power: 1500,
      voltage: expect.any(Number),
      current: expect.any(Number),
      power_factor: expect.any(Number),
    });
    const ts = samples.map((x) => x.ts!);
    expect(ts.slice(1).map((x, i) => x - ts[i]!)).toEqual(Array(ts.length - 1).fill(60_000));
  });

  it('reads a meter’s retained state and availability as soon as it subscribes [MC-5.1, MC-6.1]', async () => {
    const { account_id } = await newAccount(t.sim);
    const { device_id } = await provision(t.sim, { account_id, mode: 'postpaid', balance: 777 });
    const sub = mosquittoSub([
      '-v',
      '-C',
      '2',
      '-t',
      topicFor(device_id, 'state'),
      '-t',
      topicFor(device_id, 'availability'),
    ]);
    const { code, out, err } = await sub.done;
    expect(code, err).toBe(0);
    const byTopic = Object.fromEntries(messageLines(out).map((m) => [m.topic, m.json]));
    expect(byTopic[topicFor(device_id, 'state')]).toMatchObject({ v: 1, mode: 'postpaid', balance: 777 });
    expect(byTopic[topicFor(device_id, 'availability')]).toMatchObject({ v: 1, online: true });
  });

  it('is refused with a wrong token', async () => {
    const { hostname, port } = new URL(t.svc.mqttUrl);
    const child = spawn(MOSQUITTO_SUB, [
      '-h',
      hostname,
      '-p',
      port,
      '-u',
      'admin',
      '-P',
      'wrong',
      '-t',
      '#',
      '-W',
      '5',
    ]);
    children.push(child);
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(err.toLowerCase()).toMatch(/not authori[sz]ed|bad user name or password|connection refused/);
  });
});
