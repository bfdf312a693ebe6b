// `meterstack serve --broker …` as a child process (issue 11 §1, "Bad input"): a broker that cannot be
// reached, never answers, refuses the service's login or lacks the dynamic-security plugin is a clear
// message naming its address and exit 1, never a hang; on a good Mosquitto the banner says so, a meter
// provisioned through /sim/v1 comes online, and after a restart it logs in again.

import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runServe, ServeProcess } from '../helpers/child.ts';
import { type RunningMosquitto, skipWithoutMosquitto, startMosquitto } from '../helpers/mosquitto.ts';
import { freePort } from '../helpers/prism.ts';
import { simClient, tempDir } from '../helpers/service.ts';

const TOKEN = 'cli-admin-token';
const base = ['--no-demo', `--admin-token=${TOKEN}`, '--http-port=0', '--mqtt-port=0'];
const dirs: (() => void)[] = [];
const db = () => {
  const t = tempDir();
  dirs.push(t.remove);
  return `--db=${t.dir}/m.db`;
};
afterAll(() => {
  for (const remove of dirs) remove();
});

describe('serve --broker with a broker it cannot use', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('nothing listening: exit 1 naming the address', async () => {
    const port = await freePort();
    const { code, stderr } = await runServe([...base, db(), `--broker=mqtt://svc:pw@127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `could not start: the MQTT broker at mqtt://127.0.0.1:${port}: nothing listens there (connection refused)`,
    );
  });

  it('a socket that never answers CONNECT: exit 1 after the connect timeout, not a hang', async () => {
    const server = createServer((s) => sockets.push(s)); // accepts and says nothing
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const started = Date.now();
    const { code, stderr } = await runServe([...base, db(), `--broker=mqtt://svc:pw@127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expect(stderr).toContain(`the MQTT broker at mqtt://127.0.0.1:${port} did not answer within 5000 ms`);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('exit 2 for a --broker-logins that is neither dynsec nor unmanaged', async () => {
    const { code, stderr } = await runServe([
      ...base,
      db(),
      '--broker=mqtt://a:b@127.0.0.1:1',
      '--broker-logins=acl',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "--broker-logins (METERSTACK_BROKER_LOGINS) must be one of dynsec, unmanaged, got 'acl'",
    );
  });
});

describe.skipIf(skipWithoutMosquitto)('serve --broker on Mosquitto', () => {
  let dynsec: RunningMosquitto;
  let plain: RunningMosquitto;
  const running: ServeProcess[] = [];
  beforeAll(async () => {
    [dynsec, plain] = await Promise.all([startMosquitto(), startMosquitto({ dynsec: false })]);
  });
  afterEach(() => Promise.all(running.splice(0).map((p) => p.stop('SIGKILL'))));
  afterAll(async () => {
    await dynsec?.stop();
    await plain?.stop();
  });

  it('refusing the service’s password: exit 1 naming the address and the login', async () => {
    const url = `mqtt://${dynsec.admin.username}:wrong@127.0.0.1:${dynsec.port}`;
    const { code, stderr } = await runServe([...base, db(), `--broker=${url}`]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `the MQTT broker at ${dynsec.url}: it refused the login of '${dynsec.admin.username}'`,
    );
  });

  it('without the dynamic-security plugin: exit 1 saying so, and how to go on without it', async () => {
    const { code, stderr } = await runServe([...base, db(), `--broker=${plain.brokerUrl}`]);
    expect(code).toBe(1);
    expect(stderr).toContain(`the MQTT broker at ${plain.url} has no dynamic-security plugin answering`);
    expect(stderr).toContain('--broker-logins unmanaged');
  });

  it('with the plugin: the banner names it, a meter comes online, and again after a restart', async () => {
    const file = db();
    const args = [...base, file, `--broker=${dynsec.brokerUrl}`];
    let p = new ServeProcess(args);
    running.push(p);
    let { httpUrl, mqttUrl } = await p.ready();
    expect(mqttUrl).toBe(dynsec.url);
    expect(p.stdout).toContain("external; meters' logins made through Mosquitto dynamic security");
    let sim = simClient(httpUrl, TOKEN);
    const account = (await sim<{ account_id: number }>('POST', '/accounts', { name: 'x' })).body.data;
    const dev = await sim<{ device_id: string }>('POST', '/devices', { account_id: account.account_id });
    expect(dev.status).toBe(201);
    const id = dev.body.data.device_id;
    const online = async () => (await sim<{ online: boolean }>('GET', `/devices/${id}`)).body.data.online;
    expect(await online()).toBe(true);

    expect((await p.stop('SIGTERM')).code).toBe(0);
    p = new ServeProcess(args);
    running.push(p);
    ({ httpUrl } = await p.ready());
    sim = simClient(httpUrl, TOKEN);
    await expect.poll(online, { timeout: 10_000 }).toBe(true);
  });
});
