// A world that is already in the service (started from a snapshot, or after a restore or a reset) is
// adopted, not made: each account of the scenario's world is found by its meters (else by its name),
// each space likewise, and every account is given a fresh API key, so the names the steps use (`as:`,
// `{account:…}`, `{space:…}`) work whatever keys the snapshot held. A world the service no longer
// has at all (a reset to empty) is built again from the scenario.

import type { ScenarioContext } from './context.ts';
import type { MeterSpec, WorldSpec } from './schema.ts';
import { buildWorld } from './world.ts';

interface Fleet {
  accounts: { account_id: number; name: string; spaces: { space_id: number; name: string }[] }[];
  devices: { device_id: string; account_id: number; space_id: number | null }[];
}

type Adopter = Pick<ScenarioContext, 'accounts' | 'spaces' | 'sim'>;

function metersOf(a: WorldSpec['accounts'][number]): MeterSpec[] {
  return [...a.meters, ...a.spaces.flatMap((s) => s.meters)];
}

export async function adoptWorld(ctx: Adopter, world: WorldSpec): Promise<void> {
  const fleet = (await ctx.sim('GET', '/fleet')) as Fleet;
  const devices = new Map(fleet.devices.map((d) => [d.device_id, d]));
  const accounts = new Map<string, { id: number; key: string }>();
  const spaces = new Map<string, number>();
  for (const a of world.accounts) {
    const missing = metersOf(a).filter((m) => !devices.has(m.id));
    if (missing.length > 0)
      throw new Error(`world: the service has no meter ${missing.map((m) => m.id).join(', ')}`);
    const ids = new Set(metersOf(a).map((m) => devices.get(m.id)!.account_id));
    const byName = fleet.accounts.filter((f) => f.name === a.name).map((f) => f.account_id);
    const id = ids.size > 0 ? [...ids] : byName;
    if (id.length !== 1)
      throw new Error(
        `world: account ${JSON.stringify(a.name)} is ${id.length === 0 ? 'not in the service' : `ambiguous: its meters are in accounts ${id.join(', ')}`}`,
      );
    const accountId = id[0]!;
    const { api_key } = (await ctx.sim('POST', `/accounts/${accountId}/keys`, {})) as { api_key: string };
    accounts.set(a.name, { id: accountId, key: api_key });
    const known = fleet.accounts.find((f) => f.account_id === accountId)?.spaces ?? [];
    for (const s of a.spaces) {
      const ref = s.ref ?? s.name;
      const fromMeter = s.meters.map((m) => devices.get(m.id)!.space_id).find((x) => x !== null);
      const spaceId = fromMeter ?? known.find((k) => k.name === s.name)?.space_id;
      if (spaceId === undefined) throw new Error(`world: space ${JSON.stringify(ref)} is not in the service`);
      spaces.set(ref, spaceId);
    }
  }
  ctx.accounts.clear();
  ctx.spaces.clear();
  for (const [k, v] of accounts) ctx.accounts.set(k, v);
  for (const [k, v] of spaces) ctx.spaces.set(k, v);
}

/** After a restore or a reset: adopt the world if its meters are there, else build it again. */
export async function rebindWorld(ctx: Adopter, world: WorldSpec, seed: number): Promise<void> {
  const fleet = (await ctx.sim('GET', '/fleet')) as Fleet;
  const anyThere = world.accounts.some((a) =>
    metersOf(a).some((m) => fleet.devices.some((d) => d.device_id === m.id)),
  );
  if (anyThere) return adoptWorld(ctx, world);
  ctx.accounts.clear();
  ctx.spaces.clear();
  await buildWorld(ctx, world, seed);
}
