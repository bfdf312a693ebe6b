// A world already in the service (from a snapshot, after a restore or a reset) is adopted by its
// names: on the real service, a second runner finds the accounts and spaces a first one built, by their
// meters, and its fresh keys work; a world the service does not have is built again.

import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptWorld, rebindWorld } from '../../src/qa/scenario/adopt.ts';
import { ScenarioContext } from '../../src/qa/scenario/context.ts';
import { parseWorld } from '../../src/qa/scenario/load.ts';
import { buildWorld } from '../../src/qa/scenario/world.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t?.close());

const context = () => new ScenarioContext(t.svc, new EventEmitter(), () => 'acme');
const world = parseWorld({
  accounts: [
    { name: 'acme', spaces: [{ name: 'Block A', meters: [{ id: 'MTR-AD-1' }] }] },
    { name: 'globex', meters: [{ id: 'MTR-AD-2' }], spaces: [{ name: 'Plant', ref: 'plant' }] },
  ],
});

describe('adopting a world already in the service', () => {
  it('finds each account and space by its meters (else by name), with a fresh key that works', async () => {
    const first = context();
    await buildWorld(first, world, 1);
    const second = context();
    await adoptWorld(second, world);
    expect(second.accounts.get('acme')?.id).toBe(first.accounts.get('acme')?.id);
    expect(second.accounts.get('globex')?.id).toBe(first.accounts.get('globex')?.id);
    expect(second.accounts.get('acme')?.key).not.toBe(first.accounts.get('acme')?.key);
    expect(second.spaces.get('Block A')).toBe(first.spaces.get('Block A'));
    expect(second.spaces.get('plant')).toBe(first.spaces.get('plant'));
    const r = await second.call('GET', '/api/v2/spaces/{space:Block A}', undefined, 'acme');
    expect(r.status).toBe(200);
    // The other tenant's key does not reach it (every account is a tenant).
    const other = await second.call('GET', '/api/v2/spaces/{space:Block A}', undefined, 'globex');
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect(other.body?.success).toBe(false);
  });

  it('says which meter is missing; rebinding builds a world the service does not have', async () => {
    const missing = parseWorld({ accounts: [{ name: 'initech', meters: [{ id: 'MTR-AD-9' }] }] });
    await expect(adoptWorld(context(), missing)).rejects.toThrow('world: the service has no meter MTR-AD-9');
    const ctx = context();
    await rebindWorld(ctx, missing, 1);
    expect(ctx.accounts.has('initech')).toBe(true);
    const again = context();
    await rebindWorld(again, missing, 1); // now there: adopted, not made twice
    expect(again.accounts.get('initech')?.id).toBe(ctx.accounts.get('initech')?.id);
  });
});
