// Issue 20 §3, the way it happened: another broker already held the MQTT port, `serve` moved to the next
// free one, and the bridge line from the examples pointed at the other broker. The banner now prints the
// bridge line with the port this run really has; copied as printed (placeholders filled in), it reaches
// meterstack and says so [MC-12.2].

import { createServer, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { afterEach, describe, expect, it } from 'vitest';
import { ServeProcess } from '../helpers/child.ts';
import { CliProcess, until } from './helpers.ts';

const ADMIN = 'banner-admin-token';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('npm start’s bridge line (issue 20 §3)', () => {
  it('names the broker port serve really took, and the line as printed reaches meterstack', async () => {
    // "The machine's own Mosquitto": an anonymous broker on the port serve is asked for.
    const aedes = await Aedes.createBroker();
    const sockets: Socket[] = [];
    const other = createServer((s) => {
      sockets.push(s);
      aedes.handle(s);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const address = other.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    cleanups.push(async () => {
      const closed = new Promise<void>((resolve) => other.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await closed;
    });

    const serve = new ServeProcess([
      '--db=:memory:',
      '--http-port=0',
      `--mqtt-port=${address.port}`,
      '--no-demo',
      `--admin-token=${ADMIN}`,
    ]);
    cleanups.push(() => serve.stop('SIGKILL'));
    const { httpUrl, mqttUrl } = await serve.ready();
    expect(mqttUrl).not.toBe(`mqtt://127.0.0.1:${address.port}`); // it moved on
    const line = /npx meterstack bridge (.*)$/m.exec(serve.stdout)?.[1];
    expect(line).toBe(
      `--serial /dev/ttyUSB0 --broker ${mqttUrl} --username <device_id> --password <its mqtt password>`,
    );

    const sim = async (path: string, body: object) => {
      const res = await fetch(`${httpUrl}/sim/v1${path}`, {
        method: 'POST',
        headers: { 'x-admin-token': ADMIN, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return ((await res.json()) as { data: Record<string, unknown> }).data;
    };
    const { account_id } = await sim('/accounts', { name: 'lab' });
    const device = (await sim('/devices', { account_id, external: true, device_id: 'MTR-BANNER-1' })) as {
      mqtt: { username: string; password: string };
    };
    const args = line!
      .replace('/dev/ttyUSB0', '/nonexistent/tty') // no meter needed to reach the broker
      .replace('<device_id>', device.mqtt.username)
      .replace(' <its mqtt password>', ` ${device.mqtt.password}`)
      .split(' ');
    const bridge = new CliProcess(['bridge', ...args]);
    cleanups.push(() => bridge.stop());
    await until(() => bridge.output.includes('connected to meterstack'), 15_000, 'the announcement');
    expect(bridge.output).toContain(`at ${mqttUrl} (HTTP ${httpUrl})`);
  });
});
