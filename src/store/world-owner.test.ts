// [issue 8 item 4] The world owner lease: the rule as a table, then two real connections on one store
// (one SQLite file, or one PostgreSQL schema).

import { describe, expect, it } from 'vitest';
import { storeBackends, useStores } from './test-helpers.ts';
import type { OwnerClaim, WorldOwner } from './types.ts';
import { ownerClaimDecision, WorldOwnedError, WorldOwnerLease } from './world-owner.ts';

const T = 1_800_000_000_000;

const holder = (o: Partial<WorldOwner> = {}): WorldOwner => ({
  pid: 100,
  host: 'h1',
  since: T - 60_000,
  heartbeatAt: T - 1_000,
  httpUrl: 'http://127.0.0.1:8080',
  mqttUrl: 'mqtt://127.0.0.1:1883',
  ...o,
});
const claim = (o: Partial<OwnerClaim> = {}): OwnerClaim => ({
  token: 't',
  pid: 200,
  host: 'h1',
  now: T,
  expiryMs: 30_000,
  isAlive: () => true,
  ...o,
});

describe('[OWNER-2] ownerClaimDecision', () => {
  it.each<[string, WorldOwner | null, Partial<OwnerClaim>, boolean]>([
    ['nobody holds it', null, {}, true],
    ['a live holder on this host', holder(), {}, false],
    [
      'a live holder on this host, heartbeat long stale (a busy loop is not death)',
      holder({ heartbeatAt: T - 3_600_000 }),
      {},
      false,
    ],
    ['a dead holder on this host (kill -9), heartbeat fresh', holder(), { isAlive: () => false }, true],
    ['this very process, another world', holder({ pid: 200 }), { isAlive: () => false }, false],
    ['a holder on another host, heartbeat fresh', holder({ host: 'h2' }), { isAlive: () => false }, false],
    [
      'a holder on another host, heartbeat expired',
      holder({ host: 'h2', heartbeatAt: T - 30_001 }),
      {},
      true,
    ],
  ])('%s → take: %s', (_name, current, c, take) => {
    expect(ownerClaimDecision(current, claim(c)).take).toBe(take);
  });
});

describe.each(await storeBackends())('[OWNER-1] [OWNER-3] world owner lease on $name', ({ name }) => {
  const stores = useStores(name);

  it('a second connection is refused naming the holder, and takes it once the first releases', async () => {
    const a = await stores.open('w.db');
    const b = await stores.open('w.db');
    const first = await WorldOwnerLease.acquire({ store: a, now: () => T, host: 'h1', pid: 100 });
    await first.describe({ httpUrl: 'http://127.0.0.1:1', mqttUrl: 'mqtt://127.0.0.1:2' });
    const refused = await WorldOwnerLease.acquire({
      store: b,
      now: () => T + 2_000,
      host: 'h1',
      pid: 200,
      isAlive: () => true,
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorldOwnedError);
    expect((refused as WorldOwnedError).message).toBe(
      'the database is in use by another meterstack: pid 100 on host h1, HTTP http://127.0.0.1:1, ' +
        `MQTT mqtt://127.0.0.1:2, since ${new Date(T).toISOString()} (last heartbeat 2 s ago). ` +
        'Stop it first, or use another --db',
    );
    await first.release();
    const second = await WorldOwnerLease.acquire({ store: b, host: 'h1', pid: 200 });
    await second.release();
  });

  it('a holder whose pid is dead is replaced at once, and learns it lost the lease at its next renewal', async () => {
    const a = await stores.open('w.db');
    const b = await stores.open('w.db');
    let lost = 0;
    const logs: string[] = [];
    const first = await WorldOwnerLease.acquire({
      store: a,
      host: 'h1',
      pid: 100,
      renewMs: 20,
      onLost: () => lost++,
      log: (l, m) => logs.push(`${l} ${m}`),
    });
    const second = await WorldOwnerLease.acquire({
      store: b,
      host: 'h1',
      pid: 200,
      isAlive: (pid) => pid !== 100,
      log: (l, m) => logs.push(`${l} ${m}`),
    });
    expect(logs.join('\n')).toContain('took over from a gone holder, pid 100 on host h1');
    for (let i = 0; i < 500 && lost === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(lost).toBe(1);
    expect(logs.join('\n')).toContain('error world owner lease: taken over by another process');
    await first.release(); // does not release the new holder's lease
    await expect(
      WorldOwnerLease.acquire({ store: a, host: 'h1', pid: 300, isAlive: () => true }),
    ).rejects.toThrow(/pid 200 on host h1/);
    await second.release();
  });
});
