// Broker events (issue 9 §1): meter.connected when a meter's login is accepted, broker.refused for
// refused logins and connections, a flood summed up in one event per reason with its count [MC-10.5].

import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/broker/access.ts';
import { type Broker, startBroker } from '../../src/broker/broker.ts';
import { TestClients } from '../../src/broker/test-helpers.ts';
import { EventBus } from '../../src/events/bus.ts';
import { rawConnect } from '../hardening/raw-socket.ts';
import { Collected } from './collect.ts';

const USERS: Record<string, { password: string; principal: Principal }> = {
  service: { password: 'svc-secret', principal: { kind: 'service' } },
  'MTR-A': { password: 'a-secret', principal: { kind: 'meter', deviceId: 'MTR-A' } },
};
const authenticate = (u: string, p: string) => (USERS[u]?.password === p ? USERS[u]!.principal : null);

let broker: Broker;
let clients: TestClients;
afterEach(async () => {
  await clients.endAll();
  await broker.close();
});

async function start(limits: Record<string, number> = {}): Promise<Collected> {
  const bus = new EventBus({ now: Date.now });
  const seen = new Collected(bus);
  broker = await startBroker({ port: 0, authenticate, bus, limits });
  clients = new TestClients(broker.url);
  return seen;
}

describe('broker events', () => {
  it('meter.connected for a meter login only, never for the service', async () => {
    const seen = await start();
    await clients.connect({ clientId: 'service', username: 'service', password: 'svc-secret' });
    await clients.connect({ clientId: 'MTR-A', username: 'MTR-A', password: 'a-secret' });
    const e = await seen.waitFor('meter.connected');
    expect(e).toMatchObject({ device_id: 'MTR-A', data: { client_id: 'MTR-A' } });
    expect(seen.of('meter.connected')).toHaveLength(1);
  });

  it('[MC-10.5] a flood of wrong passwords: the first five one by one, the rest in one event with its count', async () => {
    const seen = await start({ refusalSummaryMs: 60_000 });
    for (let i = 0; i < 12; i++)
      expect(await clients.refused({ clientId: `x${i}`, username: 'MTR-A', password: `guess-${i}` })).toBe(4);
    const told = seen.of('broker.refused');
    expect(told).toHaveLength(5);
    expect(told[0]!.data).toEqual({ client_id: 'x0', username: 'MTR-A', reason: 'bad username or password' });
    await broker.close(); // ends the interval: the summary
    const summary = seen.of('broker.refused')[5]!;
    expect(summary.data).toMatchObject({ reason: 'bad username or password', count: 7, username: 'MTR-A' });
    expect(seen.of('broker.refused')).toHaveLength(6);
    expect(JSON.stringify(seen.events)).not.toContain('guess-');
    expect(seen.invalid).toEqual([]);
  });

  it('a connection refused before CONNECT names its peer', async () => {
    const seen = await start({ connectRate: 1 });
    await clients.connect({ clientId: 'service', username: 'service', password: 'svc-secret' });
    const raw = await rawConnect(broker.url);
    await raw.closed;
    const e = await seen.waitFor('broker.refused');
    expect(e.data).toMatchObject({ client_id: '', username: null, reason: 'over the connection rate' });
    expect(e.data.peer).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
