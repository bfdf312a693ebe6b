// Issue 8 item 4: two `meterstack serve` on one database would run every meter twice and lose money, and
// a key revoked in one would still open the other. The world owner lease (store/README.md) refuses the
// second at start, exit 2, naming the holder; a holder killed with SIGKILL frees the file at once.

import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ServeProcess } from '../helpers/child.ts';
import { ok, simClient, startTestService, tempDir } from '../helpers/service.ts';

const TOKEN = 'owner-admin-token';
const running = new Set<ServeProcess>();
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all([...running].map((p) => p.stop('SIGKILL')));
  running.clear();
  for (const c of cleanups.splice(0)) c();
});

function serve(db: string): ServeProcess {
  const p = new ServeProcess([
    '--http-port=0',
    '--mqtt-port=0',
    `--db=${db}`,
    `--admin-token=${TOKEN}`,
    '--no-demo',
    '--rate-limit=0',
  ]);
  running.add(p);
  return p;
}

describe('[OWNER-1] [OWNER-2] issue 8 item 4: one serve per database', () => {
  it('a second serve on the same file exits 2 naming the holder (pid, host, URLs, since); the first runs on', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'meterstack.db');
    const first = serve(db);
    const { httpUrl, mqttUrl } = await first.ready();
    const sim = simClient(httpUrl, TOKEN);
    const { account_id } = ok(await sim<{ account_id: number }>('POST', '/accounts', { name: 'acme' }));
    ok(
      await sim('POST', '/devices', { account_id, device_id: 'ONE-1', balance: 70_570, load_watts: 0 }),
      201,
    );

    const second = serve(db);
    const exit = await second.exited;
    running.delete(second);
    expect(exit).toEqual({ code: 2, signal: null });
    expect(second.stdout).not.toContain('meterstack is running');
    const message = second.stderr.trim();
    expect(message).toContain(
      `meterstack serve: could not start: ${db}: the database is in use by another meterstack:`,
    );
    expect(message).toContain(
      `pid ${first.proc.pid} on host ${hostname()}, HTTP ${httpUrl}, MQTT ${mqttUrl}, since 20`,
    );
    expect(message).toContain('Stop it first, or use another --db');

    // The first was not disturbed: its meter still answers, with its money.
    expect(ok(await sim<{ balance: number }>('GET', '/devices/ONE-1')).balance).toBe(70_570);
    expect(ok(await sim<{ meters: number; disagreements: unknown[] }>('GET', '/ledger'))).toMatchObject({
      meters: 1,
      disagreements: [],
    });
  });

  it('after the holder is killed with SIGKILL, a new serve takes the database at once', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'meterstack.db');
    const first = serve(db);
    await first.ready();
    expect(await first.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    running.delete(first);

    const next = serve(db);
    const { httpUrl } = await next.ready();
    expect(next.stderr).toContain(
      `took over from a gone holder, pid ${first.proc.pid} on host ${hostname()}`,
    );
    expect((await simClient(httpUrl, TOKEN)('GET', '/clock')).status).toBe(200);
    expect(await next.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    running.delete(next);

    // A clean stop gives the lease back: the next start takes it without a word about a gone holder.
    const third = serve(db);
    await third.ready();
    expect(third.stderr).not.toContain('took over');
  });
});

describe('[OWNER-3] issue 8 item 4: a holder whose lease was taken over stops', () => {
  it('finds out at its next renewal, logs it, closes the service and tells its owner', async () => {
    let lost = 0;
    const t = await startTestService({ onOwnerLost: () => lost++ });
    // Another host took the database over (say this process had stalled past the expiry).
    const sqlite = new Database(t.db);
    sqlite
      .prepare("UPDATE world_owner SET token = 'theirs', pid = 1, host = 'elsewhere', heartbeat_at = ?")
      .run(Date.now());
    sqlite.close();
    for (let i = 0; i < 300 && lost === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(lost).toBe(1);
    expect(t.logs).toContain('error world owner lease: taken over by another process; this one must stop');
    await expect(fetch(`${t.svc.httpUrl}/healthz`)).rejects.toThrow();
    await t.close();
  });
});
