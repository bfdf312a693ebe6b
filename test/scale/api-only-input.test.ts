// Issue 11 §4, bad input: what an API instance cannot start without, and a Redis that is down or goes
// away. Each is a clear message naming the part and the address, and an exit code, never a hang.

import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe, ServeProcess } from '../helpers/child.ts';
import { startMosquitto } from '../helpers/mosquitto.ts';
import { mosquittoMissing, type PlainMosquitto, startPlainMosquitto } from '../helpers/plain-mosquitto.ts';
import { newAccount, ok, simClient, tempDir } from '../helpers/service.ts';
import { v2Client } from '../helpers/v2.ts';

const REDIS_SERVER = '/usr/bin/redis-server';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * Resolves once `child` (a redis-server just spawned) accepts TCP connections on `port`; throws when it
 * exits first or after 10 s.
 */
async function listening(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `redis-server exited (${child.exitCode ?? child.signalCode}) before listening on ${port}`,
      );
    }
    const up = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.setTimeout(1_000, () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const missing = mosquittoMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);

describe('serve --api-only: what it needs', () => {
  const tmp = tempDir('ms-apionly-');
  afterAll(() => tmp.remove());

  it('without --broker: exit 2 naming --broker', async () => {
    const r = await runServe(['--api-only', '--db', join(tmp.dir, 'x.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--api-only needs --broker mqtt:\/\/user:password@host:port/);
  });

  it('on :memory:: exit 2', async () => {
    const r = await runServe(['--api-only', '--broker', 'mqtt://u:p@127.0.0.1:9', '--db', ':memory:']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--api-only needs the world process's database/);
  });

  it('with --speed: exit 2, the clock is the world process', async () => {
    const r = await runServe(['--api-only', '--broker', 'mqtt://u:p@127.0.0.1:9', '--speed', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--speed is the world process's to set/);
  });

  it('a broker that is not there: exit 1 naming its address, at once', async () => {
    const port = await freePort();
    const started = Date.now();
    const r = await runServe([
      '--api-only',
      '--broker',
      `mqtt://u:p@127.0.0.1:${port}`,
      '--db',
      join(tmp.dir, 'b.db'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the MQTT broker at mqtt://127.0.0.1:${port}: nothing listens there`);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a bad --redis URL: exit 2', async () => {
    const r = await runServe(['--redis', 'http://127.0.0.1:6379', '--db', ':memory:']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--redis \(METERSTACK_REDIS\): only redis:\/\/ URLs/);
  });
});

describe.skipIf(missing !== null)('--redis down at start, and lost while running', () => {
  let mosq: PlainMosquitto;
  const tmp = tempDir('ms-redis-');
  beforeAll(async () => {
    mosq = await startPlainMosquitto();
  });
  afterAll(async () => {
    await mosq?.stop();
    tmp.remove();
  });
  const broker = () => `mqtt://svc:pw@127.0.0.1:${mosq.port}`;

  it('Redis down at start: exit 1 naming Redis and its address, no hang', async () => {
    const port = await freePort();
    for (const role of [['--no-demo'], ['--api-only']]) {
      const started = Date.now();
      const r = await runServe([
        ...role,
        ...[
          '--broker',
          broker(),
          '--broker-logins',
          'unmanaged',
          '--db',
          join(tmp.dir, 'r.db'),
          '--http-port',
          '0',
        ],
        ...['--redis', `redis://127.0.0.1:${port}`],
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `Redis at redis://127\\.0\\.0\\.1:${port} \\(the shared rate limit, --redis\\): ECONNREFUSED`,
        ),
      );
      expect(Date.now() - started).toBeLessThan(15_000);
    }
  });

  it('Redis down at start on a dynamic-security broker: exit 1, its management connection closed too', async () => {
    // The broker's management connection (dynsec) opens before Redis is tried: a failure after it must
    // close it, or the process never exits.
    const dynsec = await startMosquitto();
    try {
      const port = await freePort();
      const started = Date.now();
      const r = await runServe([
        ...['--api-only', '--broker', dynsec.brokerUrl, '--db', join(tmp.dir, 'r.db'), '--http-port', '0'],
        ...['--redis', `redis://127.0.0.1:${port}`],
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Redis at redis://127.0.0.1:${port}`);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await dynsec.stop();
    }
  });

  it('Redis lost while running: requests pass uncounted (fail open) with one warning; back, it counts again', async () => {
    const port = await freePort();
    const startRedis = (): ChildProcess =>
      spawn(
        REDIS_SERVER,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
    let redis = startRedis();
    // serve refuses to start while its Redis is unreachable (the test above), so wait until it listens.
    try {
      await listening(port, redis);
    } catch (err) {
      redis.kill('SIGKILL');
      throw err;
    }
    const world = new ServeProcess([
      ...[
        '--no-demo',
        '--broker',
        broker(),
        '--broker-logins',
        'unmanaged',
        '--db',
        join(tmp.dir, 'lost.db'),
        '--http-port',
        '0',
      ],
      ...['--admin-token', 'lost-admin-token', '--log-format', 'json', '--rate-limit', '3'],
      ...['--redis', `redis://127.0.0.1:${port}`],
    ]);
    try {
      const { httpUrl } = await world.ready();
      const sim = simClient(httpUrl, 'lost-admin-token');
      const { api_key } = await newAccount(sim);
      const v2 = v2Client(httpUrl, api_key);
      const statuses = async (n: number) => {
        const out = [];
        for (let i = 0; i < n; i++) out.push((await v2('GET', '/spaces/')).status);
        return out;
      };
      expect(await statuses(4)).toEqual([200, 200, 200, 429]);
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      const started = Date.now();
      expect(await statuses(5)).toEqual([200, 200, 200, 200, 200]);
      expect(Date.now() - started).toBeLessThan(5_000);
      for (let i = 0; !world.stderr.includes('rate limit is off') && i < 100; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(world.stderr.match(/lost \(.*\): the rate limit is off/g)?.length).toBe(1);
      redis = startRedis();
      for (let i = 0; !world.stdout.includes('counts again') && i < 200; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(world.stdout).toContain(`Redis at redis://127.0.0.1:${port} is back`);
      ok(await sim('GET', '/clock'));
    } finally {
      redis.kill('SIGKILL');
      await world.stop();
    }
  });
});
