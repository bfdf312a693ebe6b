// Issue 11 §4: several API instances (`serve --api-only`) beside one world process (`serve`), sharing a
// SQLite file (WAL), a Mosquitto the test starts on an ephemeral port, and the machine's Redis for the
// rate limit; every one a child process started with the project's own CLI. Without Mosquitto or Redis
// the file skips, saying why, except under CI=true, where it fails.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeProcess } from '../helpers/child.ts';
import { mosquittoMissing, type PlainMosquitto, startPlainMosquitto } from '../helpers/plain-mosquitto.ts';
import { REDIS_URL, redisAbsence } from '../helpers/redis.ts';
import { newAccount, ok, provision, type Sim, simClient, tempDir } from '../helpers/service.ts';
import { type Device, data, failed, type V2, v2Client } from '../helpers/v2.ts';

const TOKEN = 'scale-admin-token';

const LIMIT = 100;

const missing = mosquittoMissing() ?? (await redisAbsence());
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
if (missing) console.warn(`test/scale/api-instances: skipped: ${missing}`);

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await get().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Node {
  proc: ServeProcess;
  url: string;
  sim: Sim;
  v2: V2;
}

describe.skipIf(missing !== null)('API instances beside one world process (issue 11 §4)', () => {
  let mosq: PlainMosquitto;
  const tmp = tempDir('ms-scale-');
  const procs: ServeProcess[] = [];
  let world: Node;
  let a: Node;
  let b: Node;
  let beforeWorld: { status: number; code?: string };
  let readyBeforeWorld: { status: number; body: unknown };

  async function start(args: string[]): Promise<Node> {
    const broker = `mqtt://meterstack-service:svc-pass@127.0.0.1:${mosq.port}`;
    const proc = new ServeProcess([
      ...args,
      ...[
        '--db',
        join(tmp.dir, 'shared.db'),
        '--broker',
        broker,
        '--broker-logins',
        'unmanaged',
        '--http-port',
        '0',
      ],
      ...[
        '--admin-token',
        TOKEN,
        '--redis',
        REDIS_URL,
        '--rate-limit',
        String(LIMIT),
        '--log-format',
        'json',
      ],
      ...['--command-timeout-ms', '3000'],
    ]);
    procs.push(proc);
    const { httpUrl } = await proc.ready();
    return { proc, url: httpUrl, sim: simClient(httpUrl, TOKEN), v2: v2Client(httpUrl) };
  }

  beforeAll(async () => {
    mosq = await startPlainMosquitto();
    // Instance A first: before any world process runs, world operations have nowhere to go.
    a = await start(['--api-only']);
    const res = await a.sim<unknown>('POST', '/clock/advance', { seconds: 60 });
    beforeWorld = { status: res.status, code: (res.body as { error?: { code: string } }).error?.code };
    const ready = await fetch(`${a.url}/readyz`);
    readyBeforeWorld = { status: ready.status, body: await ready.json() };
    world = await start(['--no-demo', '--speed', '1']);
    b = await start(['--api-only']);
  }, 60_000);

  afterAll(async () => {
    for (const p of procs.reverse()) await p.stop();
    await mosq?.stop();
    tmp.remove();
  });

  /** An account with a space and a virtual meter, all made through an instance (A unless said). */
  async function tenant(via: Node = a): Promise<{ key: string; deviceId: string; accountId: number }> {
    const { account_id, api_key } = await newAccount(via.sim, 'scale');
    const space = ok(await via.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'S' }));
    const meter = await provision(via.sim, { account_id, space_id: space.space_id, balance: 50_000 });
    return { key: api_key, deviceId: meter.device_id, accountId: account_id };
  }

  it('an instance started before the world answered 503 service_unavailable for a world operation; now it forwards', async () => {
    expect(beforeWorld).toEqual({ status: 503, code: 'service_unavailable' });
    const res = ok(await a.sim<{ from: string; to: string }>('POST', '/clock/advance', { seconds: 1 }));
    expect(Date.parse(res.to) - Date.parse(res.from)).toBe(1_000);
  });

  it('GET /readyz on an instance: 503 naming the missing world before it ran, 200 once it holds the store [PM-7]; GET /metrics with the token [PM-3]', async () => {
    expect(readyBeforeWorld).toMatchObject({
      status: 503,
      body: {
        error: {
          code: 'service_unavailable',
          detail: expect.stringMatching(/^Not ready: world \(no world process/),
        },
      },
    });
    const ready = await fetch(`${b.url}/readyz`);
    expect(await ready.json()).toMatchObject({
      data: { status: 'ready', checks: { store: 'ok', migrations: 'ok', broker: 'ok', world: 'ok' } },
    });
    expect((await fetch(`${b.url}/metrics`)).status).toBe(401);
    const text = await (
      await fetch(`${b.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    expect(text).toMatch(/^meterstack_http_requests_total\{method="GET",route="\/readyz",status="200"\} 1$/m);
  });

  it('provisioning through A is seen on B: the device, online, with the readings the world stored', async () => {
    const t = await tenant();
    const dev = await until('the meter online on B', async () => {
      const d = data(await b.v2<Device>('GET', `/devices/${t.deviceId}/`, undefined, t.key));
      return d.is_online ? d : undefined;
    });
    expect(dev.device_id).toBe(t.deviceId);
    // An hour of telemetry through the world (forwarded by A), in B's history at once.
    ok(await a.sim('POST', '/clock/advance', { seconds: 3600 }));
    const now = ok(await b.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    const istDay = (ms: number) => new Date(ms + 5.5 * 3600_000).toISOString().slice(0, 10);
    const qs = `property_id=energy&from_date=${istDay(now - 86_400_000)}&to_date=${istDay(now + 86_400_000)}&interval=60m`;
    const history = data(
      await b.v2<{ readings: unknown[] }>(
        'GET',
        `/devices/${t.deviceId}/metrics/history?${qs}`,
        undefined,
        t.key,
      ),
    );
    expect(history.readings.length).toBeGreaterThan(0);
  });

  it("a relay command through B reaches the meter; A's twins ignore B's reply silently", async () => {
    const t = await tenant();
    await until(
      'online on B',
      async () =>
        data(await b.v2<Device>('GET', `/devices/${t.deviceId}/`, undefined, t.key)).is_online || undefined,
    );
    data(await b.v2('PUT', `/devices/${t.deviceId}/relay`, { state: false }, t.key));
    // Read back through B: a GET forwarded to the world, its answer as it is.
    const meter = ok(await b.sim<{ relay_commanded: boolean }>('GET', `/devices/${t.deviceId}`));
    expect(meter.relay_commanded).toBe(false);
    // The metrics read is a command too: through A this time, with B and the world listening.
    const m = data(
      await a.v2<{ balance: number }>('GET', `/devices/${t.deviceId}/metrics`, undefined, t.key),
    );
    expect(typeof m.balance).toBe('number');
    for (const p of [a, b, world].map((n) => n.proc)) {
      expect(p.stdout + p.stderr).not.toMatch(/unmatchedReply|forgedReply/);
    }
  });

  it('an advance through the world is on every instance within the clock bound (100 ms poll)', async () => {
    const res = ok(await world.sim<{ to: string }>('POST', '/clock/advance', { seconds: 86_400 }));
    const to = Date.parse(res.to);
    await new Promise((r) => setTimeout(r, 250));
    for (const n of [a, b]) {
      const clock = ok(await n.sim<{ now_ms: number }>('GET', '/clock'));
      expect(clock.now_ms).toBeGreaterThanOrEqual(to);
      // The world stored the jump and waited one poll before its meters lived through it [MC-3.10].
      expect(n.proc.stdout + n.proc.stderr).not.toMatch(/tsInFuture/);
    }
  });

  it('100 requests per minute per key hold across instances (Redis); the 101st on either is 429', async () => {
    const t = await tenant();
    const path = `/devices/${t.deviceId}/`;
    const answers = [];
    for (let i = 0; i < LIMIT; i++) answers.push(await (i % 2 ? b : a).v2('GET', path, undefined, t.key));
    expect(answers.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([]);
    expect(answers[LIMIT - 1]!.headers.get('ratelimit-remaining')).toBe('0');
    for (const n of [a, b]) {
      const over = await n.v2('GET', path, undefined, t.key);
      expect(failed(over, 429, 'rate_limit_exceeded')).toMatch(/100 requests per minute/);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      expect(over.headers.get('ratelimit-policy')).toBe(`${LIMIT};w=60`);
    }
  });

  it('a key revoked through A is refused by B within 1 s', async () => {
    const t = await tenant();
    const extra = ok(await a.sim<{ api_key: string }>('POST', `/accounts/${t.accountId}/keys`, {})).api_key;
    data(await b.v2('GET', `/devices/${t.deviceId}/`, undefined, extra));
    ok(await a.sim('DELETE', `/keys/${extra}`));
    const revokedAt = Date.now();
    await until(
      'B refusing the revoked key',
      async () =>
        (await b.v2('GET', `/devices/${t.deviceId}/`, undefined, extra)).status === 401 ? true : undefined,
      1_000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    failed(await a.v2('GET', `/devices/${t.deviceId}/`, undefined, extra), 401, 'authentication_error');
  });

  it("world snapshots through an instance: saved and listed by the world (forwarded); files are the world's own (409 here) [spec-decisions 111, 114]", async () => {
    const saved = ok(await a.sim<{ name: string }>('POST', '/snapshots', { name: 'via-a' }), 201);
    expect(saved.name).toBe('via-a');
    expect(ok(await world.sim<{ name: string }[]>('GET', '/snapshots')).map((x) => x.name)).toContain(
      'via-a',
    );
    const res = await fetch(`${a.url}/sim/v1/snapshots/via-a/export`, {
      headers: { 'x-admin-token': TOKEN },
    });
    expect(res.status).toBe(409);
    ok(await b.sim('DELETE', '/snapshots/via-a'));
  });

  it('killing instance A leaves B serving, commands included', async () => {
    const t = await tenant();
    a.proc.proc.kill('SIGKILL');
    await a.proc.exited;
    await until(
      'online on B',
      async () =>
        data(await b.v2<Device>('GET', `/devices/${t.deviceId}/`, undefined, t.key)).is_online || undefined,
    );
    data(await b.v2('PUT', `/devices/${t.deviceId}/relay`, { state: false }, t.key));
    ok(await b.sim('POST', `/devices/${t.deviceId}/recharge`, { amount: 100, transaction_id: 'scale-1' }));
  });

  it("the world killed: B still serves the store's view (history.csv and span too [HX-4]), its meters go offline by their wills, world operations are 503 naming it", async () => {
    const t = await tenant(b);
    world.proc.proc.kill('SIGKILL');
    await world.proc.exited;
    await until('offline on B', async () => {
      const d = data(await b.v2<Device>('GET', `/devices/${t.deviceId}/`, undefined, t.key));
      return d.is_online ? undefined : d;
    });
    const res = await b.sim<unknown>('POST', '/clock/advance', { seconds: 1 });
    expect(res.status).toBe(503);
    const error = (res.body as unknown as { error: { code: string; detail: string } }).error;
    expect(error.code).toBe('service_unavailable');
    expect(error.detail).toContain(world.url);
    // Store-only operations still work.
    ok(await b.sim('POST', '/accounts', { name: 'after' }));
    // [HX-4] A device's history file and span read only the store: B answers them itself.
    const csv = await fetch(
      `${b.url}/sim/v1/devices/${t.deviceId}/history.csv?from=2026-01-01&to=2026-01-01`,
      {
        headers: { 'x-admin-token': TOKEN },
      },
    );
    expect(csv.status).toBe(200);
    expect(await csv.text()).toMatch(/^timestamp \(IST\),energy \(kWh\),active_power \(W\),voltage \(V\)/);
    expect(ok(await b.sim('GET', `/devices/${t.deviceId}/history/span`))).toHaveProperty(
      'device_id',
      t.deviceId,
    );
  });
});
