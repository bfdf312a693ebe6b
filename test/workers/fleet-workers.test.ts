// Issue 11 §2: fleet workers as real child processes (`meterstack fleet`) against a real in-process
// service with its embedded broker: meters in other processes, one virtual clock, money across a
// kill -9, refusals. Rule numbers: src/world/workers/README.md.

import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { istDate } from '../../src/time/ist.ts';
import { FleetProcess, runFleet } from '../helpers/fleet.ts';
import { skipWithoutMosquitto, startMosquitto } from '../helpers/mosquitto.ts';
import { ADMIN_TOKEN, newAccount, ok, startTestService, type TestService } from '../helpers/service.ts';
import { v2Client } from '../helpers/v2.ts';

let t: TestService;
const workers: FleetProcess[] = [];

beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGKILL')));
  await t?.close();
});

function worker(prefix: string, count: number, extra: string[] = []): FleetProcess {
  const w = new FleetProcess([
    '--url',
    t.svc.httpUrl,
    '--admin-token',
    ADMIN_TOKEN,
    '--prefix',
    prefix,
    '--count',
    String(count),
    ...extra,
  ]);
  workers.push(w);
  return w;
}

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(6, '0')}`);

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A port nothing listens on: one the OS handed out, closed again. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** ts of the newest stored energy sample of `deviceId` in the last `spanMs` before `to`. */
async function newestStored(deviceId: string, to: number, spanMs: number): Promise<number> {
  const device = await t.svc.store.getDevice(deviceId);
  const points = await t.svc.store.history(device!.pk, 'energy', to - spanMs, to + 1, 15);
  return Math.max(0, ...points.map((p) => p.ts));
}

describe('fleet workers [WORKER-1..4]', () => {
  it('two workers of 20 meters: readings reach the v2 history; a 1 h jump returns with every worker meter stored', async () => {
    const acct = await newAccount(t.sim, 'fleet');
    const v2 = v2Client(t.svc.httpUrl, acct.api_key);
    const account = ['--account', String(acct.account_id), '--balance', '100000'];
    const a = worker('WA', 20, account);
    const b = worker('WB', 20, account);
    await Promise.all([a.ready(), b.ready()]);
    const list = ok(await t.sim<{ name: string; meters: number; alive: boolean }[]>('GET', '/workers'));
    expect(list.filter((w) => w.alive).map((w) => [w.name, w.meters])).toEqual(
      expect.arrayContaining([
        ['fleet-WA', 20],
        ['fleet-WB', 20],
      ]),
    );
    const all = [...ids('WA', 20), ...ids('WB', 20)];
    for (const id of all) {
      const dev = await v2<{ is_online: boolean }>('GET', `/devices/${id}`);
      expect(dev.status, id).toBe(200);
      expect(dev.body.data?.is_online, id).toBe(true);
    }

    const jump = ok(
      await t.sim<{ to: string; workers: { done: string[]; late: string[] } }>('POST', '/clock/advance', {
        seconds: 3600,
      }),
    );
    expect(jump.workers.late).toEqual([]);
    expect(jump.workers.done.sort()).toEqual(['fleet-WA', 'fleet-WB']);
    // Nothing waited for after the answer: every meter's last minute of the jump is already stored.
    const to = Date.parse(jump.to);
    for (const id of all)
      expect(await newestStored(id, to, 3_600_000), id).toBeGreaterThanOrEqual(to - 60_000);

    const day = istDate(to);
    const from = istDate(to - 3_600_000);
    const history = await v2<{ values: unknown[] } | unknown[]>(
      'GET',
      `/devices/${all[0]}/metrics/history?property_id=energy&interval=15m&from_date=${from}&to_date=${day}`,
    );
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body.data).length).toBeGreaterThan(100);

    // A clean stop: goodbye from every meter, the lease freed at once.
    expect(await a.stop()).toEqual({ code: 0, signal: null });
    expect(await b.stop()).toEqual({ code: 0, signal: null });
    for (const id of all) expect(t.svc.world.twins.get(id)?.online, id).toBe(false);
    expect(ok(await t.sim('GET', '/ledger')).disagreements).toEqual([]);
  });

  it('kill -9: its meters go offline by their wills; restarted, it resumes them, no money lost or doubled [LEDGER-1]', async () => {
    const acct = await newAccount(t.sim, 'kill');
    const v2 = v2Client(t.svc.httpUrl, acct.api_key);
    const flags = ['--account', String(acct.account_id), '--balance', '5000', '--profile', 'constant:3000'];
    const meters = ids('WK', 6);
    const first = worker('WK', 6, flags);
    await first.ready();

    // Acknowledged right before the kill, and one in flight while it dies.
    const acked = ok(
      await t.sim<{ applied: boolean; delivered: boolean }>('POST', `/devices/${meters[0]}/recharge`, {
        amount: 700,
        transaction_id: 'kill-acked',
      }),
    );
    expect(acked).toMatchObject({ applied: true, delivered: true });
    const inFlight = t.sim('POST', `/devices/${meters[1]}/recharge`, {
      amount: 900,
      transaction_id: 'kill-flight',
    });
    await new Promise((r) => setTimeout(r, 3));
    first.proc.kill('SIGKILL');
    await first.exited;
    expect((await inFlight).status).toBe(200); // in the ledger, delivered or not

    for (const id of meters) {
      await until(`${id} offline in the v2 API`, async () => {
        const d = await v2<{ is_online: boolean }>('GET', `/devices/${id}`);
        return d.body.data?.is_online === false;
      });
    }
    await until('the worker counted dead', async () => {
      const list = ok(await t.sim<{ name: string; alive: boolean }[]>('GET', '/workers'));
      return list.find((w) => w.name === 'fleet-WK')?.alive === false;
    });
    expect(ok(await t.sim('GET', '/ledger')).disagreements).toEqual([]);
    // /sim/v1 names the worker; controls meant for the service's own meters say where the meter runs.
    const seen = ok(
      await t.sim<{ worker: string; online: boolean; ledger: { agrees: boolean } }>(
        'GET',
        `/devices/${meters[0]}`,
      ),
    );
    expect(seen).toMatchObject({ worker: 'fleet-WK', online: false, ledger: { agrees: true } });
    const plug = await t.sim('POST', `/devices/${meters[0]}/online`, { online: true });
    expect(plug.status).toBe(409);
    expect(JSON.stringify(plug.body.error)).toContain('runs in fleet worker fleet-WK');

    // While no worker runs it, a recharge goes to the ledger and waits for the meter [LEDGER-1].
    const whileDead = ok(
      await t.sim<{ applied: boolean; delivered: boolean }>('POST', `/devices/${meters[2]}/recharge`, {
        amount: 1100,
        transaction_id: 'kill-dead',
      }),
    );
    expect(whileDead).toMatchObject({ applied: true, delivered: false });

    const second = worker('WK', 6, flags);
    await second.ready();
    for (const id of meters) {
      await until(`${id} online again`, async () => {
        const d = await v2<{ is_online: boolean }>('GET', `/devices/${id}`);
        return d.body.data?.is_online === true;
      });
    }
    // Every credit exactly once: each meter's balance equals its ledger total minus what it billed.
    const ledger = ok(await t.sim<{ meters: number; disagreements: unknown[] }>('GET', '/ledger'));
    expect(ledger.disagreements).toEqual([]);
    // A repeat of either transaction is a duplicate, never a second credit.
    for (const [i, tx, amount] of [
      [0, 'kill-acked', 700],
      [1, 'kill-flight', 900],
      [2, 'kill-dead', 1100],
    ] as const) {
      const again = ok(
        await t.sim<{ applied: boolean }>('POST', `/devices/${meters[i]}/recharge`, {
          amount,
          transaction_id: tx,
        }),
      );
      expect(again.applied).toBe(false);
    }
    // The resumed meter bills on from its snapshot: 3 kW for an hour more, charged, never credited twice.
    const jump = ok(
      await t.sim<{ workers: { late: string[] } }>('POST', '/clock/advance', { seconds: 3600 }),
    );
    expect(jump.workers.late).toEqual([]);
    expect(ok(await t.sim('GET', '/ledger')).disagreements).toEqual([]);
    const dead = ok(
      await t.sim<{ ledger: { ledger_paise: number; agrees: boolean } }>('GET', `/devices/${meters[2]}`),
    );
    expect(dead.ledger).toMatchObject({ ledger_paise: 5000 + 1100, agrees: true });
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });

  it('kill -9 at any point of a recharge: the credit lands exactly once [LEDGER-1] [WORKER-3]', async () => {
    const flags = ['--balance', '2000', '--profile', 'constant:500'];
    const meter = ids('WM', 1)[0]!;
    for (const [round, delayMs] of [0, 2, 6, 15, 40].entries()) {
      const w = worker('WM', 1, flags);
      await w.ready();
      const credit = t.sim('POST', `/devices/${meter}/recharge`, {
        amount: 100,
        transaction_id: `mid-${round}`,
      });
      await new Promise((r) => setTimeout(r, delayMs));
      w.proc.kill('SIGKILL');
      await w.exited;
      expect((await credit).status, `round ${round}`).toBe(200);
      await until('the worker counted dead', async () => {
        const list = ok(await t.sim<{ name: string; alive: boolean }[]>('GET', '/workers'));
        return list.find((x) => x.name === 'fleet-WM')?.alive === false;
      });
      expect(ok(await t.sim('GET', '/ledger')).disagreements, `round ${round}`).toEqual([]);
    }
    const last = worker('WM', 1, flags);
    await last.ready();
    const seen = ok(
      await t.sim<{ ledger: { ledger_paise: number; agrees: boolean } }>('GET', `/devices/${meter}`),
    );
    expect(seen.ledger).toMatchObject({ ledger_paise: 2000 + 5 * 100, agrees: true });
    expect(await last.stop()).toEqual({ code: 0, signal: null });
  }, 90_000);

  it("a speed change reaches the worker: its meters run at the service clock's speed [WORKER-4]", async () => {
    const w = worker('WS', 2, ['--period-s', '60']);
    await w.ready();
    const id = ids('WS', 1)[0]!;
    const before = t.svc.world.clock.now();
    ok(await t.sim('POST', '/clock/speed', { speed: 600 }));
    try {
      // 10 virtual minutes pass in 1 s of wall time; sooner than a heartbeat (3 s) could correct the clock.
      await until(
        'samples of the sped-up minutes',
        () => (t.svc.world.twins.get(id)?.lastSampleTs ?? 0) >= before + 300_000,
        2_500,
      );
    } finally {
      ok(await t.sim('POST', '/clock/speed', { speed: 1 }));
    }
    expect(await w.stop()).toEqual({ code: 0, signal: null });
  });

  it('a second worker with the same name or an overlapping prefix is refused with exit code 2', async () => {
    const holder = worker('WD', 2, ['--name', 'dup']);
    await holder.ready();
    const sameName = await runFleet([
      '--url',
      t.svc.httpUrl,
      '--admin-token',
      ADMIN_TOKEN,
      '--count',
      '1',
      '--prefix',
      'WE',
      '--name',
      'dup',
    ]);
    expect(sameName.code).toBe(2);
    expect(sameName.stderr).toMatch(/worker dup \(pid \d+ on .+, since .+\) is live/);
    const samePrefix = await runFleet([
      '--url',
      t.svc.httpUrl,
      '--admin-token',
      ADMIN_TOKEN,
      '--count',
      '1',
      '--prefix',
      'WD',
      '--name',
      'other',
    ]);
    expect(samePrefix.code).toBe(2);
    expect(samePrefix.stderr).toMatch(/prefix WD are hosted by worker dup/);
    expect(await holder.stop()).toEqual({ code: 0, signal: null });
  });

  it('bad --url, bad token, missing flags: a clear message naming the service, and an exit code', async () => {
    const closed = await freePort();
    const down = await runFleet([
      '--url',
      `http://127.0.0.1:${closed}`,
      '--admin-token',
      'x',
      '--count',
      '1',
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`service at http://127.0.0.1:${closed} unreachable: ECONNREFUSED`);
    const token = await runFleet(['--url', t.svc.httpUrl, '--admin-token', 'wrong', '--count', '1']);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain(`service at ${t.svc.httpUrl} refused the admin token (401)`);
    const usage = await runFleet(['--url', t.svc.httpUrl, '--admin-token', 'x']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--count is required');
    const help = await runFleet(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: meterstack fleet --url <service> --admin-token <token> --count <n>/);
  });

  it('a service that stops does not wait for its workers; a worker whose service is gone exits 1', async () => {
    const own = await startTestService();
    const w = new FleetProcess([
      '--url',
      own.svc.httpUrl,
      '--admin-token',
      ADMIN_TOKEN,
      '--prefix',
      'WG',
      '--count',
      '2',
    ]);
    workers.push(w);
    await w.ready();
    const t0 = Date.now();
    await own.close();
    expect(Date.now() - t0).toBeLessThan(5_000);
    const exit = await w.exited;
    expect(exit.code).toBe(1);
    expect(w.stderr).toMatch(/no heartbeat answered for 15 s: service at .* unreachable/);
  }, 40_000);
});

describe.skipIf(skipWithoutMosquitto)('fleet workers on an external broker (serve --broker)', () => {
  it('the worker uses the broker URL the service names: telemetry, a jump, a recharge, goodbye', async () => {
    // Mosquitto with dynamic security: each worker meter gets its own login there when provisioned.
    const broker = await startMosquitto();
    const own = await startTestService({ broker: broker.brokerUrl });
    try {
      const w = new FleetProcess([
        '--url',
        own.svc.httpUrl,
        '--admin-token',
        ADMIN_TOKEN,
        '--prefix',
        'WX',
        '--count',
        '3',
      ]);
      workers.push(w);
      await w.ready();
      expect(w.stdout).toContain(`meters on ${broker.url}`);
      const id = ids('WX', 1)[0]!;
      expect(own.svc.world.twins.get(id)?.online).toBe(true);
      const jump = ok(
        await own.sim<{ to: string; workers: { late: string[] } }>('POST', '/clock/advance', {
          seconds: 600,
        }),
      );
      expect(jump.workers.late).toEqual([]);
      const to = Date.parse(jump.to);
      const device = await own.svc.store.getDevice(id);
      const points = await own.svc.store.history(device!.pk, 'energy', to - 600_000, to + 1, 15);
      expect(Math.max(0, ...points.map((p) => p.ts))).toBeGreaterThanOrEqual(to - 60_000);
      const credit = ok(
        await own.sim<{ applied: boolean; delivered: boolean }>('POST', `/devices/${id}/recharge`, {
          amount: 250,
          transaction_id: 'ext-1',
        }),
      );
      expect(credit).toMatchObject({ applied: true, delivered: true });
      expect(await w.stop()).toEqual({ code: 0, signal: null });
      expect(own.svc.world.twins.get(id)?.online).toBe(false);
      expect(ok(await own.sim('GET', '/ledger')).disagreements).toEqual([]);
    } finally {
      await own.close();
      await broker.stop();
    }
  }, 40_000);
});
