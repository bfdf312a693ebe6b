// GET /sim/v1/events (the journal) over real HTTP: the agreed shape (prompts/api.md, issue 9 §3),
// filters, paging with next_since, and every bad input answered in the envelope.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURABLE_TYPES, type MeterEvent } from '../../src/events/schemas.ts';
import { ok, startTestService, type TestService } from '../helpers/service.ts';

interface Answer {
  events: MeterEvent[];
  next_since: number;
  oldest_seq: number;
  durable_only_before: number | null;
}

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ speed: 0, events: { journalSize: 50 } });
});
afterAll(() => t?.close());

const get = (query: string, token?: string | null) =>
  t.sim<Answer>('GET', `/events${query}`, undefined, { token });

describe('GET /sim/v1/events', () => {
  it('answers the newest events, ascending, with next_since for the next poll', async () => {
    const { bus } = t.svc;
    const first = bus.emit('meter.cutoff', { balance: -10 }, { deviceId: 'MTR-J1' })!;
    bus.emit('meter.restored', { balance: 500 }, { deviceId: 'MTR-J2' });
    const last = bus.emit('clock.speed', { speed: 2, was: 1 })!;
    const a = ok(await get('?limit=3'));
    expect(a.events.map((e) => e.seq)).toEqual([first.seq, first.seq + 1, last.seq]);
    expect(a.events[0]).toEqual(first);
    expect(a.next_since).toBeGreaterThanOrEqual(last.seq);
    expect(a.durable_only_before).toBeNull();

    const again = ok(await get(`?since=${a.next_since}`));
    expect(again.events).toEqual([]);
    const later = bus.emit('meter.cutoff', { balance: -3 }, { deviceId: 'MTR-J1' })!;
    const b = ok(await get(`?since=${a.next_since}`));
    expect(b.events.map((e) => e.seq)).toEqual([later.seq]);
  });

  it('filters by type list, family and device; the limit pages with next_since', async () => {
    const { bus } = t.svc;
    const since = bus.nextSeq - 1;
    for (let i = 0; i < 5; i++) {
      bus.emit('meter.cutoff', { balance: -i - 1 }, { deviceId: 'MTR-F1' });
      bus.emit('log', { level: 'info', msg: `noise ${i}` });
      bus.emit(
        'meter.relay',
        { commanded: false, effective: false, was: { commanded: true, effective: true } },
        { deviceId: 'MTR-F2' },
      );
    }
    const cut = ok(await get(`?since=${since}&type=meter.cutoff`));
    expect(cut.events.map((e) => e.data)).toEqual([1, 2, 3, 4, 5].map((i) => ({ balance: -i })));
    const fam = ok(await get(`?since=${since}&type=meter.*&device_id=MTR-F2`));
    expect(fam.events).toHaveLength(5);
    expect(fam.events.every((e) => e.type === 'meter.relay')).toBe(true);
    const both = ok(await get(`?since=${since}&type=meter.cutoff,log`));
    expect(both.events).toHaveLength(10);

    // Paging: 2 at a time, no gap, no duplicate; the last page says the caught-up position.
    const seen: number[] = [];
    let cursor = since;
    for (let page = 0; page < 10; page++) {
      const p = ok(await get(`?since=${cursor}&type=meter.cutoff&limit=2`));
      seen.push(...p.events.map((e) => e.seq));
      cursor = p.next_since;
      if (p.events.length < 2) break;
    }
    expect(seen).toEqual(cut.events.map((e) => e.seq));
    expect(cursor).toBe(bus.nextSeq - 1);
  });

  it('tells what memory still holds: oldest_seq moves on when the ring wraps', async () => {
    const { bus } = t.svc;
    for (let i = 0; i < 120; i++) bus.emit('log', { level: 'info', msg: `wrap ${i}` });
    const a = ok(await get('?since=0&limit=1000'));
    expect(a.oldest_seq).toBe(bus.nextSeq - 50);
    // Before it, only the durable types come back (from the store), and the answer says so.
    const old = a.events.filter((e) => e.seq < a.oldest_seq);
    expect(old.length).toBeGreaterThan(0);
    expect(old.every((e) => DURABLE_TYPES.has(e.type))).toBe(true);
    expect(a.durable_only_before).toBe(a.oldest_seq);
    expect(a.events.filter((e) => e.seq >= a.oldest_seq)).toHaveLength(50);
  });

  it.each([
    ['?bogus=1', 'querystring'],
    ['?type=meter.nope', 'type'],
    ['?type=nope.*', 'type'],
    ['?type=', 'type'],
    ['?since=-1', 'since'],
    ['?since=1.5', 'since'],
    ['?since=0x10', 'since'],
    ['?since=abc', 'since'],
    ['?since=99999999999999999', 'since'],
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=1&limit=2', 'limit'],
    ['?device_id=', 'device_id'],
  ])('%s → 422 validation_error naming %s', async (query, loc) => {
    const res = await get(query);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error?.code).toBe('validation_error');
    expect(JSON.stringify(res.body.error?.detail)).toContain(loc);
  });

  it.each([
    ['no token', null],
    ['a wrong token', 'not-the-token'],
  ])('%s → 401 in the envelope', async (_what, token) => {
    for (const path of ['/events', '/events/stream']) {
      const res = await t.sim('GET', path, undefined, { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'admin_authentication_error' } });
    }
  });

  it('the stream refuses bad filters and a bad Last-Event-ID with validation_error, before it starts', async () => {
    for (const query of ['?limit=5', '?type=meter.nope', '?since=x']) {
      const res = await t.sim('GET', `/events/stream${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error?.code).toBe('validation_error');
    }
    const res = await fetch(`${t.svc.httpUrl}/sim/v1/events/stream`, {
      headers: { 'x-admin-token': t.svc.adminToken, 'last-event-id': 'yesterday' },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('last-event-id');
  });
});
