// `meterstack serve --from-snapshot FILE` (spec-decisions 115), as a real process: it starts with the
// world of the file, its clock on from the snapshot's time; a missing file, a file that is not a
// snapshot and a --db that already holds a world are refused with exit 2 and a clear message.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe, ServeProcess } from '../helpers/child.ts';
import {
  ADMIN_TOKEN,
  ok,
  simClient,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { type Tenant, tenant, v2Client } from '../helpers/v2.ts';

const START = Date.parse('2026-03-01T00:00:00+05:30');

let t: TestService;
let a: Tenant;
let dir: { dir: string; remove: () => void };
let file: string;

beforeAll(async () => {
  dir = tempDir();
  t = await startTestService({ speed: 0, clockStart: START });
  a = await tenant(t.sim, { balance: 7_000 });
  ok(await t.sim('POST', '/snapshots', { name: 'seed' }), 201);
  file = join(dir.dir, 'seed.sqlite');
  const res = await fetch(`${t.svc.httpUrl}/sim/v1/snapshots/seed/export`, {
    headers: { 'x-admin-token': ADMIN_TOKEN },
  });
  writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
}, 60_000);
afterAll(async () => {
  await t?.close();
  dir?.remove();
});

const args = (db: string, from: string) => [
  '--http-port=0',
  '--mqtt-port=0',
  `--db=${db}`,
  `--admin-token=${ADMIN_TOKEN}`,
  '--rate-limit=0',
  `--from-snapshot=${from}`,
];

describe('serve --from-snapshot', () => {
  it('starts with the world of the file: its tenant, device and clock; no demo world', async () => {
    const p = new ServeProcess(args(join(dir.dir, 'fresh.db'), file));
    try {
      const { httpUrl } = await p.ready();
      const sim = simClient(httpUrl);
      const clock = ok(await sim<{ now_ms: number }>('GET', '/clock')).now_ms;
      expect(clock).toBeGreaterThanOrEqual(START);
      expect(clock).toBeLessThan(START + 60_000);
      const device = await v2Client(httpUrl)('GET', `/devices/${a.deviceId}/`, undefined, a.key);
      expect(device.status).toBe(200);
      expect(ok(await sim<unknown[]>('GET', '/devices')).length).toBe(1);
      expect(ok(await sim<{ name: string }[]>('GET', '/snapshots')).map((s) => s.name)).toEqual([
        expect.stringMatching(/^start-/),
      ]);
    } finally {
      await p.stop();
    }
  }, 60_000);

  it('refuses, exit 2: a missing file, a file that is not a snapshot, a --db that holds a world', async () => {
    const missing = await runServe(args(join(dir.dir, 'a.db'), join(dir.dir, 'absent.sqlite')));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--from-snapshot .*absent\.sqlite: no such file/);

    const junk = join(dir.dir, 'junk.sqlite');
    writeFileSync(junk, 'hello');
    const notOne = await runServe(args(join(dir.dir, 'b.db'), junk));
    expect(notOne.code).toBe(2);
    expect(notOne.stderr).toMatch(/not a SQLite file|not a meterstack world snapshot/);

    const held = await runServe(args(t.db, file));
    expect(held.code).toBe(2);
    expect(held.stderr).toMatch(/already holds a world/);
  }, 60_000);
});
