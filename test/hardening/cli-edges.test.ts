// issue 8 item 20: `meterstack serve` at its edges, as a child process. A database that cannot be
// opened ends the process at once (exit 1) with a message naming the file; only the default ./data
// is created (a PostgreSQL URL: its host, port and database; issue 11); --help states the admin token's minimum; the banner says only what is true.

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_TEST_URL, postgresAbsence } from '../../src/store/postgres/test-schemas.ts';
import { REPO_ROOT, runServe, ServeProcess } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const running: ServeProcess[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  for (const c of cleanups.splice(0)) c();
});

function temp(): string {
  const t = tempDir('meterstack-cli-');
  cleanups.push(t.remove);
  return t.dir;
}

const NOBODY = 65_534;
const base = ['--http-port=0', '--mqtt-port=0', '--no-demo', '--admin-token=cli-admin-token'];
/** Generous: a failing open is immediate; before the fix /proc spun until killed here. */
const BOUND_MS = 20_000;

describe('meterstack serve --db that cannot be opened (issue 8 item 20, spec-decisions 45)', () => {
  it.runIf(process.platform === 'linux')(
    '--db /proc/nonexistent/x.db exits 1 naming the file instead of spinning at 100 % CPU',
    async () => {
      const r = await runServe(['--db=/proc/nonexistent/x.db', ...base], {}, BOUND_MS);
      expect(r.signal).toBeNull(); // not killed by the bound
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'could not start: cannot open database /proc/nonexistent/x.db: directory /proc/nonexistent does not exist',
      );
    },
  );

  it('--db in a missing directory exits 1 naming it, and creates no directory', async () => {
    const dir = temp();
    const db = join(dir, 'nonexistent', 'dir', 'x.db');
    const r = await runServe([`--db=${db}`, ...base], {}, BOUND_MS);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cannot open database ${db}: directory ${join(dir, 'nonexistent', 'dir')} does not exist`,
    );
    expect(existsSync(join(dir, 'nonexistent'))).toBe(false);
    expect(r.stdout).not.toContain('meterstack is running');
  });

  it('a --db SQLite cannot open (a directory) exits 1 naming the file', async () => {
    const dir = temp();
    const r = await runServe([`--db=${dir}`, ...base], {}, BOUND_MS);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot open database ${dir}: it is a directory`);
  });

  it('a --db in a directory it may not write exits 1 naming the file (as nobody when the tests run as root)', async () => {
    // File modes do not stop root (CI runs as root): then serve drops to nobody once loaded, which may
    // enter the temp directory but not write in `ro` (test/helpers/serve-as.js).
    const as = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : undefined;
    const parent = temp();
    chmodSync(parent, 0o755);
    const dir = join(parent, 'ro');
    mkdirSync(dir);
    chmodSync(dir, 0o555);
    cleanups.unshift(() => chmodSync(dir, 0o755));
    const db = join(dir, 'x.db');
    const r = await runServe([`--db=${db}`, ...base], {}, BOUND_MS, as);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot open database ${db}:`);
    expect(existsSync(db)).toBe(false);
  });

  it('without --db, the default ./data directory is created in the working directory', async () => {
    const cwd = temp();
    const proc = spawn(process.execPath, [join(REPO_ROOT, 'test/helpers/meterstack.js'), 'serve', ...base], {
      cwd,
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_'))),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    const exited = new Promise((r) => proc.once('exit', r));
    try {
      const deadline = Date.now() + BOUND_MS;
      while (!out.includes('meterstack is running') && Date.now() < deadline && proc.exitCode === null) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out).toContain('database     ./data/meterstack.db');
      expect(existsSync(join(cwd, 'data', 'meterstack.db'))).toBe(true);
    } finally {
      proc.kill('SIGTERM');
      await exited;
    }
  });
});

const pgAbsent = await postgresAbsence();
if (pgAbsent !== null) console.warn(`${pgAbsent}: the PostgreSQL --db cases that need a server are skipped`);

describe('meterstack serve --db postgres://… that cannot be opened (issue 11 bad input)', () => {
  it.skipIf(pgAbsent !== null)(
    'a database that does not exist: exit 1 naming host, port and database',
    async () => {
      const url = new URL(PG_TEST_URL);
      url.pathname = '/no_such_db_meterstack';
      url.password = 'not-printed';
      const r = await runServe([`--db=${url}`, ...base], {}, BOUND_MS);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `could not start: cannot open PostgreSQL store \\S+@${url.hostname}:${url.port || 5432}/no_such_db_meterstack: the database does not exist`,
        ),
      );
      expect(r.stderr + r.stdout).not.toContain('not-printed');
    },
  );

  it('nothing listening at the address: exit 1 at once, saying so', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const r = await runServe([`--db=postgres://postgres@127.0.0.1:${port}/test`, ...base], {}, BOUND_MS);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `could not start: cannot open PostgreSQL store postgres@127.0.0.1:${port}/test: nothing is listening there`,
    );
  });
});

describe('meterstack serve --help and banner (issue 8 item 20)', () => {
  it('--help says the admin token needs at least 8 characters; a shorter one is refused saying so', async () => {
    const help = await runServe(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /--admin-token T\s+token for \/sim\/v1 and the broker's admin login, at least 8 characters/,
    );
    const short = await runServe(['--db=:memory:', '--admin-token=short']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('--admin-token (METERSTACK_ADMIN_TOKEN) must be at least 8 characters');
  });

  it('--no-demo prints no demo key or demo calls, but how to create an account and key through /sim/v1', async () => {
    const p = new ServeProcess(['--db=:memory:', ...base]);
    running.push(p);
    const { httpUrl } = await p.ready();
    expect(p.stdout).not.toContain('demo API key');
    expect(p.stdout).not.toContain('msk_demo');
    expect(p.stdout).not.toContain('MTR-A101');
    expect(p.stdout).toContain(
      `curl -s -H 'X-Admin-Token: <admin token>' -H 'Content-Type: application/json' -d '{"name":"my account"}' ${httpUrl}/sim/v1/accounts`,
    );
    // [SEC-2] the token was given (--admin-token): the banner shows where it goes, never the token
    expect(p.stdout + p.stderr).not.toContain('cli-admin-token');
    // and that call does what the banner says
    const res = await fetch(`${httpUrl}/sim/v1/accounts`, {
      method: 'POST',
      headers: { 'x-admin-token': 'cli-admin-token', 'content-type': 'application/json' },
      body: '{"name":"my account"}',
    });
    const body = (await res.json()) as { data: { account_id: number; api_key: string } };
    expect(body.data).toMatchObject({ account_id: expect.any(Number), api_key: expect.any(String) });
  });

  it('with the demo world the banner shows its key and calls', async () => {
    const p = new ServeProcess([
      '--db=:memory:',
      '--http-port=0',
      '--mqtt-port=0',
      '--admin-token=cli-admin-token',
    ]);
    running.push(p);
    await p.ready();
    expect(p.stdout).toMatch(/demo API key msk_demo/);
    expect(p.stdout).toContain('/api/v2/devices/MTR-A101/metrics');
  });
});
