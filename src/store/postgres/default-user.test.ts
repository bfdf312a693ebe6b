// [spec-decisions 148] A PostgreSQL URL without a user (`--db postgres://host:port/db`) connects as
// libpq's default user even where `$USER` and `$PGUSER` are unset (systemd, cron, containers), and an
// error names the user that was really tried. Each case runs in a child process whose environment
// lacks them, since pg reads `$USER` once, when it is loaded.

import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { dropSchemas, freshSchemaName, PG_TEST_URL, postgresAbsence } from './test-schemas.ts';
import { defaultUser } from './url.ts';

const absent = await postgresAbsence();
const run = promisify(execFile);
const PG_STORE = fileURLToPath(new URL('./pg-store.ts', import.meta.url));

/** Opens a store in a child with `env` only (no USER, PGUSER, LOGNAME unless given); "OK user" or "ERR message". */
async function openInChild(url: string, env: Record<string, string>): Promise<string> {
  const script = `import { openPostgresStore } from ${JSON.stringify(PG_STORE)};
try { const s = await openPostgresStore({ url: ${JSON.stringify(url)}, connectTimeoutMs: 3000 });
  console.log('OK', s.target.user); await s.close(); }
catch (e) { console.log('ERR', e.message); }`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return stdout.trim();
}

/** PG_TEST_URL's host, port and database, with no user. */
function withoutUser(schema: string): string {
  const u = new URL(PG_TEST_URL);
  u.username = '';
  u.password = '';
  u.searchParams.set('schema', schema);
  return u.toString();
}

const schemas: string[] = [];
afterEach(async () => {
  await dropSchemas(schemas.splice(0));
});

describe('defaultUser [spec-decisions 148]', () => {
  it.each([
    [{ PGUSER: 'a', USER: 'b', LOGNAME: 'c' }, 'a'],
    [{ USER: 'b', LOGNAME: 'c' }, 'b'],
    [{ LOGNAME: 'c' }, 'c'],
    [{ PGUSER: '', USER: '' }, userInfo().username],
  ])('%o -> %s', (env, user) => {
    expect(defaultUser(env)).toBe(user);
  });
});

describe.skipIf(absent !== null)('PostgreSQL URL without a user [spec-decisions 148]', () => {
  const os = userInfo().username; // trust auth on the test server for postgres and root
  it.skipIf(os !== 'root' && os !== 'postgres')(
    'connects as the operating-system user when USER, PGUSER and LOGNAME are unset',
    async () => {
      const schema = freshSchemaName('mst_user');
      schemas.push(schema);
      expect(await openInChild(withoutUser(schema), {})).toBe(`OK ${os}`);
    },
    20_000,
  );

  it('an error names the user that was tried (the server names the same role)', async () => {
    const out = await openInChild(withoutUser(freshSchemaName('mst_user')), { LOGNAME: 'no_such_role_148' });
    expect(out).toMatch(/^ERR cannot open PostgreSQL store no_such_role_148@/);
    expect(out).toContain('role "no_such_role_148" does not exist');
  }, 20_000);
});
