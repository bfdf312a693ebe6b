// `meterstack serve --ha-discovery` as a process (issue 22 §3; HA-1, HA-7): the banner gives HA's login,
// and with it a real MQTT client reads the retained discovery of a meter provisioned over /sim/v1.

import mqtt from 'mqtt';
import { afterAll, expect, it } from 'vitest';
import { nodeIdOf } from '../../src/extensions/home-assistant/topics.ts';
import { ServeProcess } from '../helpers/child.ts';
import { Inbox } from '../helpers/mqtt.ts';
import { ok, provision, simClient } from '../helpers/service.ts';

const running: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
});

it('[HA-7] the banner names HA’s login, which reads a new meter’s retained discovery', async () => {
  const p = new ServeProcess([
    '--http-port=0',
    '--mqtt-port=0',
    '--no-demo',
    '--db',
    ':memory:',
    '--ha-discovery',
  ]);
  running.push(p);
  const { httpUrl, mqttUrl } = await p.ready();
  const token = /admin token {2}(\S+)/.exec(p.stdout)![1]!;
  const login = /discovery under homeassistant\/ .*\n\s+(\S+) \/ (\S+)/.exec(p.stdout);
  expect(login, p.stdout).not.toBeNull();
  const sim = simClient(httpUrl, token);
  const { account_id } = ok(await sim<{ account_id: number }>('POST', '/accounts', { name: 'home' }));
  const meter = await provision(sim, { account_id, model: 'full' });
  const ha = await mqtt.connectAsync(mqttUrl, {
    username: login![1]!,
    password: login![2]!,
    clientId: 'ha-serve-test',
    reconnectPeriod: 0,
  });
  try {
    const inbox = new Inbox(ha);
    await ha.subscribeAsync('homeassistant/#', { qos: 1 });
    await inbox.waitFor((m) => m.topic.includes(`/${nodeIdOf(meter.device_id)}/relay/config`), 5_000);
  } finally {
    await ha.endAsync();
  }
  expect((await p.stop('SIGTERM')).code).toBe(0);
  // [SEC-1] printed once, in the banner; never in a log line
  expect(p.stdout.split(login![2]!).length - 1).toBe(1);
  expect(p.stderr).not.toContain(login![2]!);
});
