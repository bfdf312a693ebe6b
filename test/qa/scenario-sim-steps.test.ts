// The issue-12 steps (fault, clear_faults, snapshot, restore, reset_world, reset_meter, replace,
// prepaid_policy) send the requests fixtures/README.md promises. Their routes are built elsewhere, so
// here a small real fastify server answers as the spec says and records what came (the end-to-end
// runs are fixtures/scenarios/14-… to 19-…).

import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScenarioContext } from '../../src/qa/scenario/context.ts';
import { parseScenario } from '../../src/qa/scenario/load.ts';
import type { Scenario } from '../../src/qa/scenario/schema.ts';
import { runStep } from '../../src/qa/scenario/steps.ts';
import { REPO_ROOT } from '../helpers/child.ts';

interface Seen {
  method: string;
  url: string;
  body: unknown;
  token: unknown;
  key: unknown;
}

let app: FastifyInstance;
let seen: Seen[] = [];
let keys = 0;
const ok = (data: unknown) => ({ success: true, data, message: 'ok', timestamp: 'x' });

beforeAll(async () => {
  app = Fastify();
  app.addHook('onRequest', async (req) => {
    seen.push({
      method: req.method,
      url: req.url,
      body: undefined,
      token: req.headers['x-admin-token'],
      key: req.headers['x-service-api-key'],
    });
  });
  app.addHook('preHandler', async (req) => {
    seen.at(-1)!.body = req.body;
  });
  app.post('/sim/v1/devices/:id/faults', async (_req, reply) => reply.code(201).send(ok({ fault_id: 'F7' })));
  app.delete('/sim/v1/devices/:id/faults', async () => ok({ cleared: 2 }));
  app.delete('/sim/v1/devices/:id/faults/:fid', async (req, reply) =>
    (req.params as { fid: string }).fid === 'F7'
      ? ok({ cleared: 1 })
      : reply
          .code(404)
          .send({ success: false, error: { code: 'not_found', detail: 'no such fault' }, message: 'x' }),
  );
  app.post('/sim/v1/snapshots', async () => ok({ name: 'x' }));
  app.post('/sim/v1/snapshots/:name/restore', async () => ok({ restored: true }));
  app.post('/sim/v1/reset', async () => ok({ reset: true }));
  app.post('/sim/v1/devices/:id/reset', async () => ok({ reset: true }));
  app.post('/sim/v1/devices/:id/replace', async () => ok({ replaced: true }));
  app.put('/sim/v1/devices/:id/prepaid-policy', async () => ok({}));
  // What adopting the world after a restore reads: the fleet, then a key per account.
  app.get('/sim/v1/fleet', async () =>
    ok({
      accounts: [{ account_id: 4, name: 'acme', spaces: [{ space_id: 9, name: 'Block A' }] }],
      devices: [{ device_id: 'MTR-Q-1', account_id: 4, space_id: 9 }],
    }),
  );
  app.post('/sim/v1/accounts/:id/keys', async () => ok({ api_key: `msk_new_${++keys}` }));
  app.get('/api/v2/spaces/:id', async () => ok({}));
  await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => app.close());
beforeEach(() => {
  seen = [];
});

const WORLD = `name: steps
world:
  accounts:
    - name: acme
      spaces:
        - name: Block A
          meters: [{ id: MTR-Q-1 }]
timeline:
`;

function load(steps: string): Scenario & { stepLines: number[] } {
  return parseScenario('steps.yaml', `${WORLD}${steps}`);
}

function context(): ScenarioContext {
  const { port } = app.server.address() as { port: number };
  const ctx = new ScenarioContext(
    { httpUrl: `http://127.0.0.1:${port}`, adminToken: 'adm' },
    new EventEmitter(),
    () => 'acme',
  );
  ctx.accounts.set('acme', { id: 1, key: 'msk_old' });
  ctx.spaces.set('Block A', 2);
  return ctx;
}

async function runAll(s: Scenario, ctx = context()) {
  const outs = [];
  for (const step of s.timeline) outs.push(await runStep(ctx, step, { spec: s.world, seed: s.seed }));
  return outs;
}

describe('issue-12 scenario steps', () => {
  it('fault: POST /sim/v1/devices/{meter}/faults with the kind, its params and duration_s; as_id names it for clear_faults', async () => {
    const s =
      load(`  - fault: { meter: MTR-Q-1, kind: flapping, online_s: 60, offline_s: 30, duration: 90m, seed: 5, as_id: flap }
  - clear_faults: { meter: MTR-Q-1, fault: flap }
  - clear_faults: { meter: MTR-Q-1 }
  - clear_faults: { meter: MTR-Q-1, fault: F3 }
`);
    const outs = await runAll(s);
    expect(seen.map((r) => [r.method, r.url, r.body, r.token])).toEqual([
      [
        'POST',
        '/sim/v1/devices/MTR-Q-1/faults',
        { kind: 'flapping', online_s: 60, offline_s: 30, seed: 5, duration_s: 5400 },
        'adm',
      ],
      ['DELETE', '/sim/v1/devices/MTR-Q-1/faults/F7', undefined, 'adm'],
      ['DELETE', '/sim/v1/devices/MTR-Q-1/faults', undefined, 'adm'],
      ['DELETE', '/sim/v1/devices/MTR-Q-1/faults/F3', undefined, 'adm'],
    ]);
    expect(outs.map((o) => o.label)).toEqual([
      'fault flapping on MTR-Q-1 {"seed":5,"online_s":60,"offline_s":30,"duration_s":5400} as flap',
      'clear fault flap (F7) of MTR-Q-1',
      'clear every fault of MTR-Q-1',
      'clear fault F3 of MTR-Q-1',
    ]);
    expect(outs.slice(0, 3).map((o) => o.checks)).toEqual([[], [], []]);
    // The service's refusal is the step's failure, in its words.
    expect(outs[3]!.checks).toEqual([
      {
        what: 'carried out',
        failure: 'DELETE /sim/v1/devices/MTR-Q-1/faults/F3: 404 not_found: no such fault',
      },
    ]);
  });

  it('snapshot, restore, reset_world, reset_meter, replace and prepaid_policy send their requests', async () => {
    const s = load(`  - snapshot: before
  - reset_meter: MTR-Q-1
  - replace: { meter: MTR-Q-1, serial: SN-2 }
  - prepaid_policy: { meter: MTR-Q-1, low_balance_warnings: [5000, 1000], emergency_credit: { amount: 2000 } }
  - restore: before
  - reset_world: true
`);
    const outs = await runAll(s);
    expect(outs.flatMap((o) => o.checks)).toEqual([]);
    expect(seen.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/sim/v1/snapshots', { name: 'before' }],
      ['POST', '/sim/v1/devices/MTR-Q-1/reset', undefined],
      ['POST', '/sim/v1/devices/MTR-Q-1/replace', { serial: 'SN-2' }],
      [
        'PUT',
        '/sim/v1/devices/MTR-Q-1/prepaid-policy',
        { low_balance_warnings: [5000, 1000], emergency_credit: { amount: 2000 } },
      ],
      ['POST', '/sim/v1/snapshots/before/restore', undefined],
      ['GET', '/sim/v1/fleet', undefined],
      ['GET', '/sim/v1/fleet', undefined],
      ['POST', '/sim/v1/accounts/4/keys', {}],
      ['POST', '/sim/v1/reset', undefined],
      ['GET', '/sim/v1/fleet', undefined],
      ['GET', '/sim/v1/fleet', undefined],
      ['POST', '/sim/v1/accounts/4/keys', {}],
    ]);
  });

  it('after a restore, names still work: the account found by its meters, with a fresh key; spaces likewise', async () => {
    const ctx = context();
    const s = load(`  - restore: before
  - call: { method: GET, path: '/api/v2/spaces/{space:Block A}', as: acme }
`);
    const outs = await runAll(s, ctx);
    expect(outs.flatMap((o) => o.checks.filter((c) => c.failure !== null))).toEqual([]);
    expect(ctx.accounts.get('acme')?.id).toBe(4);
    const call = seen.at(-1)!;
    expect(call.url).toBe('/api/v2/spaces/9');
    expect(call.key).toMatch(/^msk_new_\d+$/);
  });

  it('from_snapshot is a file next to the scenario, which must exist', () => {
    const text = (path: string) =>
      `name: s\nfrom_snapshot: ${path}\n${WORLD.slice(WORLD.indexOf('world:'))}  - advance: 1m\n`;
    expect(() => parseScenario('test/qa/fixtures/s.yaml', text('nope.db'))).toThrow(
      /^test\/qa\/fixtures\/s\.yaml:2:16: from_snapshot: no such file \/.*\/test\/qa\/fixtures\/nope\.db$/,
    );
    const s = parseScenario('test/qa/fixtures/s.yaml', text('failing.yaml'));
    expect(s.from_snapshot).toBe(join(REPO_ROOT, 'test/qa/fixtures/failing.yaml'));
  });

  it('a fault step is checked when the file is loaded: kind and params, at their line', () => {
    expect(() => load('  - fault: { meter: MTR-Q-1, kind: reply_drop, probability: 2 }\n')).toThrow(
      /^steps\.yaml:9:61: timeline\[0\]\.fault\.probability: Too big: expected number to be <=1/,
    );
    expect(() => load('  - fault: { meter: MTR-Q-1, kind: gremlins }\n')).toThrow(
      /^steps\.yaml:9:36: timeline\[0\]\.fault\.kind: /,
    );
    expect(() => load('  - fault: { meter: MTR-Q-1, kind: silence, duration: soon }\n')).toThrow(
      /^steps\.yaml:9:55: timeline\[0\]\.fault\.duration: a duration such as 90s/,
    );
  });
});
