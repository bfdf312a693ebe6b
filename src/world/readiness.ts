// What GET /readyz checks in each kind of process (issue 22 §2, PM-7), as `{name, check}` pairs that
// src/http/readiness.ts runs: each resolves to null when it holds, or to why not.

import type { TwinRegistry } from '../devices/twins.ts';
import type { Store } from '../store/types.ts';
import { OWNER_EXPIRY_MS } from '../store/world-owner.ts';

export interface Check {
  name: string;
  check(): Promise<string | null> | string | null;
}

interface Common {
  store: Pick<Store, 'getSetting'>;
  twins: Pick<TwinRegistry, 'connected'>;
}

/** The store answers a read; migrations ran when it opened (openStore migrates or refuses to open). */
function storeChecks(store: Common['store']): Check[] {
  return [
    {
      name: 'store',
      check: async () => {
        await store.getSetting('clock.offset');
        return null;
      },
    },
    { name: 'migrations', check: () => null },
  ];
}

const broker = (twins: Common['twins']): Check => ({
  name: 'broker',
  check: () => (twins.connected ? null : "the service's MQTT connection is down"),
});

/** The world process: its store, its broker connection, and the world owner lease it holds. */
export function worldReadiness(opts: Common & { lease: { readonly held: boolean } }): Check[] {
  return [
    ...storeChecks(opts.store),
    broker(opts.twins),
    {
      name: 'world_lease',
      check: () => (opts.lease.held ? null : 'the world owner lease is not held (released or taken over)'),
    },
  ];
}

/** An API instance: its store, its broker connection, and a world process holding the store's lease. */
export function apiInstanceReadiness(
  opts: Common & { store: Pick<Store, 'getSetting' | 'getWorldOwner'>; wallNow?: () => number },
): Check[] {
  const wallNow = opts.wallNow ?? Date.now;
  return [
    ...storeChecks(opts.store),
    broker(opts.twins),
    {
      name: 'world',
      check: async () => {
        const owner = await opts.store.getWorldOwner();
        if (owner === null) return 'no world process holds the store (start `meterstack serve` on it)';
        const age = wallNow() - owner.heartbeatAt;
        return age > OWNER_EXPIRY_MS
          ? // No pid or host: /readyz answers without credentials (the log names them).
            `the world process has not renewed its lease for ${Math.round(age / 1000)} s`
          : null;
      },
    },
  ];
}
