// Builds a scenario's world through /sim/v1: accounts (each with its API key), spaces, and virtual
// meters with their settings. A meter's seed comes from the scenario seed and its id unless given,
// so the same file and seed make the same meters.

import { createHash } from 'node:crypto';
import type { ScenarioContext } from './context.ts';
import type { MeterSpec, WorldSpec } from './schema.ts';

/** What building a world needs: somewhere to note who is who, and /sim/v1 calls that must succeed. */
export type WorldBuilder = Pick<ScenarioContext, 'accounts' | 'spaces' | 'sim'>;

export function meterSeed(scenarioSeed: number, deviceId: string): number {
  return createHash('sha256').update(`${scenarioSeed}:${deviceId}`).digest().readUInt32BE(0) & 0x7fffffff;
}

function deviceBody(m: MeterSpec, accountId: number, spaceId: number | null, seed: number) {
  const { id, ...settings } = m;
  return { account_id: accountId, space_id: spaceId, device_id: id, seed: meterSeed(seed, id), ...settings };
}

/**
 * `parallel`: each space's meters are provisioned at once (the test harness, where start-up time
 * counts); a scenario provisions one by one, so its events come in the same order every run.
 */
export async function buildWorld(
  ctx: WorldBuilder,
  world: WorldSpec,
  seed: number,
  { parallel = false } = {},
): Promise<void> {
  const provision = async (meters: MeterSpec[], accountId: number, spaceId: number | null) => {
    const bodies = meters.map((m) => deviceBody(m, accountId, spaceId, seed));
    if (parallel) await Promise.all(bodies.map((b) => ctx.sim('POST', '/devices', b)));
    else for (const b of bodies) await ctx.sim('POST', '/devices', b);
  };
  for (const account of world.accounts) {
    if (ctx.accounts.has(account.name))
      throw new Error(`world: two accounts named ${JSON.stringify(account.name)}`);
    const a = (await ctx.sim('POST', '/accounts', { name: account.name })) as {
      account_id: number;
      api_key: string;
    };
    ctx.accounts.set(account.name, { id: a.account_id, key: a.api_key });
    for (const space of account.spaces) {
      const ref = space.ref ?? space.name;
      if (ctx.spaces.has(ref))
        throw new Error(`world: two spaces called ${JSON.stringify(ref)}; give one a ref`);
      const s = (await ctx.sim('POST', '/spaces', {
        account_id: a.account_id,
        name: space.name,
        ...(space.description !== undefined && { description: space.description }),
      })) as { space_id: number };
      ctx.spaces.set(ref, s.space_id);
      await provision(space.meters, a.account_id, s.space_id);
    }
    await provision(account.meters, a.account_id, null);
  }
}
