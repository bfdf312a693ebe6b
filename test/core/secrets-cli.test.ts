// [SEC-2] What `meterstack serve` prints of its secrets, as a person or a log collector sees it (child
// processes, JSON log on stdout): an admin token given by flag or environment appears nowhere, not in
// the banner, its curl and mosquitto_sub lines, nor the log, even when a client sends it back in a URL;
// a generated one is printed (no one else knows it) and works. `serve --api-only` over PostgreSQL and
// an external broker prints neither URL's password [SEC-1, SEC-2].

import { afterAll, describe, expect, it } from 'vitest';
import {
  dropSchemas,
  freshSchemaName,
  PG_TEST_URL,
  postgresAbsence,
  schemaUrl,
} from '../../src/store/postgres/test-schemas.ts';
import { ServeProcess } from '../helpers/child.ts';
import { mosquittoMissing, type PlainMosquitto, startPlainMosquitto } from '../helpers/plain-mosquitto.ts';

const TOKEN = 'operator-chosen-admin-token';
const running: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

async function serve(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ p: ServeProcess; url: string }> {
  const p = new ServeProcess(args, env);
  running.push(p);
  const { httpUrl } = await p.ready();
  // the whole banner is out once its last command is
  const deadline = Date.now() + 5000;
  while (!p.stdout.includes('mosquitto_sub') && !p.stdout.includes('(shared)') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 25));
  return { p, url: httpUrl };
}

/** A client sending the token back where it does not belong: a query, an unrouted path. */
async function echoToken(url: string, token: string): Promise<void> {
  await fetch(`${url}/nowhere/${token}`);
  await fetch(`${url}/api/v2/spaces/?admin=${token}`);
  const res = await fetch(`${url}/sim/v1/clock`, { headers: { 'x-admin-token': token } });
  expect(res.status).toBe(200);
  await new Promise((r) => setTimeout(r, 300));
}

const base = ['--db=:memory:', '--http-port=0', '--mqtt-port=0', '--log-format=json', '--no-demo'];

describe('[SEC-2] the admin token', () => {
  it('given by --admin-token: nowhere in stdout or stderr; the banner says where it goes', async () => {
    const { p, url } = await serve([...base, `--admin-token=${TOKEN}`]);
    await echoToken(url, TOKEN);
    expect(p.stdout).toContain('admin token  given by --admin-token or METERSTACK_ADMIN_TOKEN (not printed)');
    expect(p.stdout).toContain("-H 'X-Admin-Token: <admin token>'");
    expect(p.stdout).toContain("-u admin -P '<admin token>'");
    expect(p.stdout + p.stderr).not.toContain(TOKEN);
    expect(p.stdout).toContain('/nowhere/***');
  });

  it('given by METERSTACK_ADMIN_TOKEN: nowhere either', async () => {
    const { p, url } = await serve(base, { METERSTACK_ADMIN_TOKEN: TOKEN });
    await echoToken(url, TOKEN);
    expect(p.stdout + p.stderr).not.toContain(TOKEN);
  });

  it('generated: printed in the banner, and it is the one the service takes', async () => {
    const { p, url } = await serve(base);
    const token = /admin token {2}(adm_\S+)/.exec(p.stdout)?.[1];
    expect(token).toBeDefined();
    expect(p.stdout).toContain(`-H 'X-Admin-Token: ${token}'`);
    const res = await fetch(`${url}/sim/v1/clock`, { headers: { 'x-admin-token': token! } });
    expect(res.status).toBe(200);
  });
});

const missing = (await postgresAbsence()) ?? mosquittoMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
if (missing) console.warn(`test/core/secrets-cli: the --api-only half is skipped: ${missing}`);

describe.skipIf(missing !== null)('[SEC-1, SEC-2] serve --api-only over PostgreSQL', () => {
  let mosq: PlainMosquitto;
  const schema = freshSchemaName('mst_sec');
  afterAll(async () => {
    for (const p of running.splice(0)) await p.stop('SIGKILL');
    await mosq?.stop();
    await dropSchemas([schema]);
  });

  it("prints no password of the database's or the broker's URL, and no given admin token", async () => {
    mosq = await startPlainMosquitto();
    // The machine's PostgreSQL trusts local logins: the password is only there to be hidden.
    const db = schemaUrl(schema, PG_TEST_URL.replace('://postgres@', '://postgres:pg-secret-pw@'));
    expect(db).toContain('pg-secret-pw');
    const broker = `mqtt://meterstack-service:broker-secret-pw@127.0.0.1:${mosq.port}`;
    const shared = [`--db=${db}`, `--broker=${broker}`, '--broker-logins=unmanaged', '--http-port=0'];
    const env = { METERSTACK_ADMIN_TOKEN: TOKEN };
    await serve([...shared, '--no-demo', '--log-format=json'], env);
    const { p, url } = await serve([...shared, '--api-only', '--log-format=json'], env);
    await echoToken(url, TOKEN);
    expect(p.stdout).toContain('postgres://postgres:***@127.0.0.1:5432/test');
    for (const secret of ['pg-secret-pw', 'broker-secret-pw', TOKEN]) {
      for (const proc of running) expect(proc.stdout + proc.stderr).not.toContain(secret);
    }
  }, 60_000);
});
