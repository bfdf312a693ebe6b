// issue 20 item 6: the admin token outlives a restart. Without --admin-token, `serve` on a SQLite file
// makes one once and keeps it in `<db>.admin-token` (mode 0600); a restart prints and takes the same
// one, so the console stays logged in and saved curl lines keep working. --admin-token and
// METERSTACK_ADMIN_TOKEN win and leave the file as it was (spec-decisions 180).

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runServe, ServeProcess } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const running: ServeProcess[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  for (const c of cleanups.splice(0)) c();
});

function tempDb(): string {
  const t = tempDir('meterstack-token-');
  cleanups.push(t.remove);
  return join(t.dir, 'world.db');
}

const base = ['--http-port=0', '--mqtt-port=0', '--no-demo'];

/** Starts serve, reads the banner's token line and note, and stops it cleanly. */
async function serveOnce(
  args: string[],
  env: Record<string, string> = {},
  check?: (httpUrl: string) => Promise<void>,
): Promise<{ token: string; note: string }> {
  const p = new ServeProcess([...base, ...args], env);
  running.push(p);
  const { httpUrl } = await p.ready();
  const m = /admin token {2}(.+)\n(.*)\n/.exec(p.stdout);
  if (!m) throw new Error(`no admin token line in\n${p.stdout}`);
  await check?.(httpUrl);
  expect((await p.stop('SIGTERM')).code).toBe(0);
  return { token: m[1]!.trim(), note: m[2]!.trim() };
}

const status = async (url: string, token: string) =>
  (await fetch(`${url}/sim/v1/clock`, { headers: { 'X-Admin-Token': token } })).status;

describe('the admin token kept beside the database (issue 20 item 6, spec-decisions 180)', () => {
  it('a restart on the same --db prints and takes the same token; the file is 0600', async () => {
    const db = tempDb();
    const file = `${db}.admin-token`;
    const first = await serveOnce([`--db=${db}`]);
    expect(first.token).toMatch(/^adm_[\w-]{24}$/);
    expect(first.note).toBe(`(made now and kept in ${file}; --admin-token overrides it)`);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await serveOnce([`--db=${db}`], {}, async (url) => {
      expect(await status(url, first.token)).toBe(200);
    });
    expect(second).toEqual({ token: first.token, note: `(kept in ${file}; --admin-token overrides it)` });
  });

  it('--admin-token and METERSTACK_ADMIN_TOKEN win over the file and leave it as it was', async () => {
    const db = tempDb();
    const file = `${db}.admin-token`;
    const kept = (await serveOnce([`--db=${db}`])).token;
    for (const [args, env] of [
      [['--admin-token=given-by-flag'], {}],
      [[], { METERSTACK_ADMIN_TOKEN: 'given-by-env' }],
    ] as const) {
      const given = args[0]?.split('=')[1] ?? env.METERSTACK_ADMIN_TOKEN!;
      const run = await serveOnce([`--db=${db}`, ...args], { ...env }, async (url) => {
        expect(await status(url, given)).toBe(200);
        expect(await status(url, kept)).toBe(401);
      });
      expect(run.token).toBe('given by --admin-token or METERSTACK_ADMIN_TOKEN (not printed)');
      expect(readFileSync(file, 'utf8').trim()).toBe(kept);
    }
    // Back without an override: the kept one again.
    expect((await serveOnce([`--db=${db}`])).token).toBe(kept);
  });

  it('an in-memory database gets a token for each run, and no file', async () => {
    const a = await serveOnce(['--db=:memory:']);
    const b = await serveOnce(['--db=:memory:']);
    expect(a.token).not.toBe(b.token);
    expect(a.note).toBe('(generated for this run; pass --admin-token to keep one)');
  });

  it('a token file that holds no token: exit 1 naming it, nothing started', async () => {
    const db = tempDb();
    writeFileSync(`${db}.admin-token`, 'short\n', { mode: 0o600 });
    const r = await runServe([...base, `--db=${db}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `could not start: ${db}.admin-token holds no admin token (8+ characters, no spaces); delete it to make a new one`,
    );
    expect(r.stdout).not.toContain('meterstack is running');
  });
});
