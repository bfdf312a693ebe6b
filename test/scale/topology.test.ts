// Issue 11 §5, the test of the whole: the multi-process topology of docs/scale.md, every part a child
// process started with the project's own commands, on the machine's engines: Mosquitto with dynamic
// security (our own, on an ephemeral port), PostgreSQL (a fresh schema), Redis (the shared rate limit);
// one world `serve`, two `serve --api-only` instances and two `meterstack fleet` workers. Driven only
// through the v2 API and /sim/v1: provisioning, telemetry, history, a prepaid cut-off and a recharge, a
// killed fleet worker, a killed API instance. Without Mosquitto, PostgreSQL or Redis it skips, saying
// which, except under CI=true, where it fails.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeProcess } from '../helpers/child.ts';
import { dbBackends, freshDb } from '../helpers/db.ts';
import { FleetProcess } from '../helpers/fleet.ts';
import { hasMosquitto, type RunningMosquitto, startMosquitto } from '../helpers/mosquitto.ts';
import { REDIS_URL, redisAbsence } from '../helpers/redis.ts';
import { newAccount, ok, type Sim, simClient } from '../helpers/service.ts';
import { type Device, data, type History, type Metrics, type V2, v2Client } from '../helpers/v2.ts';

const TOKEN = 'topology-admin-token';

const missing =
  (hasMosquitto ? null : 'Mosquitto with its dynamic-security plugin is not installed') ??
  ((await dbBackends()).some((b) => b.name === 'postgres')
    ? null
    : 'PostgreSQL at 127.0.0.1:5432 is absent') ??
  (await redisAbsence());
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
if (missing) console.warn(`test/scale/topology: skipped: ${missing}`);

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const got = await get();
      if (got !== undefined) return got;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Node {
  proc: ServeProcess;
  url: string;
  sim: Sim;
  v2: V2;
}

describe.skipIf(missing !== null)('the multi-process topology (issue 11 §5, docs/scale.md)', () => {
  let mosquitto: RunningMosquitto;
  let db: { db: string; remove: () => Promise<void> };
  const serves: ServeProcess[] = [];
  const workers: FleetProcess[] = [];
  let world: Node;
  let a: Node;
  let b: Node;
  let key: string;
  let accountId: number;
  const METER = 'TOPA000001';

  async function serve(args: string[]): Promise<Node> {
    const proc = new ServeProcess([
      ...args,
      ...['--db', db.db, '--broker', mosquitto.brokerUrl, '--redis', REDIS_URL, '--admin-token', TOKEN],
      ...['--http-port', '0', '--log-format', 'json', '--rate-limit', '1000', '--command-timeout-ms', '5000'],
    ]);
    serves.push(proc);
    const { httpUrl } = await proc.ready(60_000);
    return { proc, url: httpUrl, sim: simClient(httpUrl, TOKEN), v2: v2Client(httpUrl, null) };
  }

  function fleet(prefix: string): FleetProcess {
    const w = new FleetProcess([
      ...['--url', world.url, '--admin-token', TOKEN, '--prefix', prefix, '--count', '3'],
      ...['--account', String(accountId), '--profile', 'constant:1500', '--balance', '100'],
      ...['--period-s', '60'],
    ]);
    workers.push(w);
    return w;
  }

  const device = async (via: Node, id = METER) =>
    data(await via.v2<Device>('GET', `/devices/${id}/`, undefined, key));
  const metrics = async (via: Node, id = METER) =>
    data(await via.v2<Metrics>('GET', `/devices/${id}/metrics`, undefined, key));

  /** The names of the workers the world holds alive (GET /sim/v1/workers, forwarded by an instance). */
  const liveWorkers = async (via: Node) =>
    ok(await via.sim<{ name: string; alive: boolean }[]>('GET', '/workers'))
      .filter((w) => w.alive)
      .map((w) => w.name);

  beforeAll(async () => {
    mosquitto = await startMosquitto({
      conf: ['max_queued_messages 100000', 'max_inflight_messages 0', 'set_tcp_nodelay true'],
    });
    db = await freshDb('postgres');
    world = await serve(['--no-demo', '--speed', '0']);
    [a, b] = await Promise.all([serve(['--api-only']), serve(['--api-only'])]);
    ({ account_id: accountId, api_key: key } = await newAccount(a.sim, 'topology'));
    await Promise.all([fleet('TOPA').ready(), fleet('TOPB').ready()]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    for (const p of serves.reverse()) await p.stop();
    await mosquitto?.stop();
    await db?.remove();
  });

  it('provisioning: an account made through instance A, meters made by two workers, all seen on instance B', async () => {
    for (const id of ['TOPA000001', 'TOPA000003', 'TOPB000002']) {
      const d = await until(`${id} online on B`, async () => {
        const got = await device(b, id);
        return got.is_online ? got : undefined;
      });
      expect(d.device_id).toBe(id);
    }
    expect((await liveWorkers(a)).sort()).toEqual(['fleet-TOPA', 'fleet-TOPB']);
  });

  it('commands from any instance reach a meter in a worker: tariff and mode through B', async () => {
    await b.v2('PUT', `/devices/${METER}/tariffs/eb`, { tariff: 800 }, key).then((r) => data(r));
    await b.v2('PUT', `/devices/${METER}/mode`, { mode: 'prepaid' }, key).then((r) => data(r));
    const m = await metrics(a);
    expect(m).toMatchObject({ eb_tariff: 800, mode: 'PREPAID', relay_state: true });
  });

  it('telemetry and history: a clock jump through B returns with every worker meter’s readings stored', async () => {
    const jump = ok(await b.sim<{ from: string; to: string }>('POST', '/clock/advance', { seconds: 3_600 }));
    const to = Date.parse(jump.to);
    const day = (ms: number) => new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 10);
    const qs = `property_id=energy&from_date=${day(to - 86_400_000)}&to_date=${day(to + 86_400_000)}&interval=15m`;
    for (const id of ['TOPA000002', 'TOPB000003']) {
      const h = data(await a.v2<History>('GET', `/devices/${id}/metrics/history?${qs}`, undefined, key));
      expect(h.readings.length).toBeGreaterThanOrEqual(4); // an hour of 15-minute buckets
    }
  });

  it('a prepaid cut-off in a worker’s meter, then a recharge through A restores it on B', async () => {
    // ₹1 at 1.5 kW and ₹8/kWh lasts 5 minutes: the hour above cut it off.
    const cut = await metrics(b);
    expect(cut.relay_state).toBe(false);
    expect(cut.balance).toBeLessThan(0);
    const res = ok(
      await a.sim<{ balance: number; applied: boolean }>('POST', `/devices/${METER}/recharge`, {
        amount: 50_000,
        transaction_id: 'topology-1',
      }),
    );
    expect(res.applied).toBe(true);
    const back = await until('the relay on again, on B', async () => {
      const m = await metrics(b);
      return m.relay_state ? m : undefined;
    });
    expect(back.balance).toBeGreaterThan(0);
    // The same transaction again, through B this time: the ledger takes it once.
    const again = ok(
      await b.sim<{ applied: boolean }>('POST', `/devices/${METER}/recharge`, {
        amount: 50_000,
        transaction_id: 'topology-1',
      }),
    );
    expect(again.applied).toBe(false);
  });

  it('a fleet worker killed: its meters go offline (their wills); restarted, they resume with their money', async () => {
    const before = (await metrics(a)).balance;
    const w = workers.find((x) => x.proc.spawnargs.includes('TOPA'))!;
    await w.stop('SIGKILL');
    await until('TOPA000001 offline on B', async () => ((await device(b)).is_online ? undefined : true));
    expect((await device(b, 'TOPB000001')).is_online).toBe(true);
    // Its lease lapses once its sync stream has been gone a moment (spec-decisions 83).
    await until('fleet-TOPA no longer alive', async () =>
      (await liveWorkers(b)).includes('fleet-TOPA') ? undefined : true,
    );
    await fleet('TOPA').ready();
    await until('TOPA000001 online again on A', async () => ((await device(a)).is_online ? true : undefined));
    // The clock is frozen (--speed 0): the balance is exactly what it was.
    expect((await metrics(b)).balance).toBe(before);
    const ledger = ok(await b.sim<{ meters: number; disagreements: unknown[] }>('GET', '/ledger'));
    expect(ledger.meters).toBeGreaterThanOrEqual(6);
    expect(ledger.disagreements).toEqual([]);
  });

  it('an API instance killed: the other serves the v2 API and forwards world operations', async () => {
    await a.proc.stop('SIGKILL');
    expect((await device(b)).is_online).toBe(true);
    ok(await b.sim('POST', '/clock/advance', { seconds: 60 }));
    expect((await metrics(b)).relay_state).toBe(true);
  });
});
