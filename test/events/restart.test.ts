// Across restarts on one SQLite file: seqs never repeat (a clean stop, and a kill -9 of `serve`), and
// the durable events (money, meter state) are read back through the journal and the stream.

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MeterEvent } from '../../src/events/schemas.ts';
import { ServeProcess } from '../helpers/child.ts';
import { ADMIN_TOKEN, ok, simClient, startTestService, tempDir } from '../helpers/service.ts';
import { openSse } from '../helpers/sse.ts';

interface Answer {
  events: MeterEvent[];
  next_since: number;
  oldest_seq: number;
  durable_only_before: number | null;
}

const tmp = tempDir();
afterAll(() => tmp.remove());

const relay = { commanded: false, effective: false, was: { commanded: true, effective: true } };

describe('events across a restart', () => {
  it('seq goes on after the last one, and durable events are read back; the others are gone', async () => {
    const db = join(tmp.dir, 'restart.db');
    const a = await startTestService({ db, speed: 0 });
    const bus = a.svc.bus;
    const cut = bus.emit('meter.cutoff', { balance: -40 }, { deviceId: 'MTR-X' })!;
    bus.emit('log', { level: 'info', msg: 'not durable' });
    const rel = bus.emit('meter.relay', relay, { deviceId: 'MTR-Y' })!;
    for (let i = 0; i < 7_000; i++) bus.emit('log', { level: 'info', msg: `filler ${i}` });
    const last = bus.emit(
      'money.recharge',
      {
        outcome: 'applied',
        transaction_id: 'tx-restart',
        amount: 5_000,
        ledger_seq: 2,
        balance: 4_960,
      },
      { deviceId: 'MTR-X' },
    )!;
    await a.svc.close();

    const b = await startTestService({ db, speed: 0 });
    try {
      // Not durable, so only in memory. (The service's own start-up lines are `log` events too: the
      // queries below name the types they look at.)
      const first = b.svc.bus.emit('clock.speed', { speed: 0, was: 0 })!;
      const only = 'type=meter.*,money.*,clock.speed';
      expect(first.seq).toBeGreaterThan(last.seq);

      // since=0: the store's durable events first (before durable_only_before), then memory.
      const all = ok(await b.sim<Answer>('GET', `/events?since=0&${only}`));
      expect(all.events).toEqual([cut, rel, last, first]);
      expect(all.durable_only_before).toBe(all.oldest_seq);
      // Memory holds this run only: its start-up lines, then `first`.
      expect(all.oldest_seq).toBeGreaterThan(last.seq);
      expect(all.oldest_seq).toBeLessThanOrEqual(first.seq);

      // Filters apply to the store's part too; paging across the boundary loses nothing.
      const x = ok(await b.sim<Answer>('GET', '/events?since=0&device_id=MTR-X&type=money.*'));
      expect(x.events).toEqual([last]);
      const p1 = ok(await b.sim<Answer>('GET', `/events?since=0&limit=2&${only}`));
      expect(p1.events).toEqual([cut, rel]);
      const p2 = ok(await b.sim<Answer>('GET', `/events?since=${p1.next_since}&limit=2&${only}`));
      expect(p2.events).toEqual([last, first]);

      // Without since: the newest, the store filling in what memory lacks.
      const newest = ok(await b.sim<Answer>('GET', `/events?limit=3&${only}`));
      expect(newest.events).toEqual([rel, last, first]);

      // The stream resumes from a seq of the earlier run: the durable ones, then live.
      const s = await openSse(b.svc.httpUrl, `/sim/v1/events/stream?${only}`, {
        'x-admin-token': ADMIN_TOKEN,
        'last-event-id': String(cut.seq),
      });
      const live = b.svc.bus.emit('meter.cutoff', { balance: -1 }, { deviceId: 'MTR-Z' })!;
      await s.until(() => s.events().length >= 4);
      expect(s.events().map((e) => e.seq)).toEqual([rel.seq, last.seq, first.seq, live.seq]);
      s.close();
    } finally {
      await b.close();
    }
  });

  it('a kill -9 of serve: the next run starts after every seq the killed one could hand out', async () => {
    const db = join(tmp.dir, 'kill.db');
    const args = [
      '--db',
      db,
      '--http-port',
      '0',
      '--mqtt-port',
      '0',
      '--no-demo',
      '--admin-token',
      ADMIN_TOKEN,
    ];
    const firstSeq = async (p: ServeProcess) => {
      const { httpUrl } = await p.ready();
      // The first event this run handed out (its start-up lines are `log` events; nothing durable).
      return ok(await simClient(httpUrl)<Answer>('GET', '/events?since=0&limit=1')).events[0]!.seq;
    };
    const one = new ServeProcess(args);
    const s1 = await firstSeq(one);
    expect((await one.stop('SIGKILL')).signal).toBe('SIGKILL');
    const two = new ServeProcess(args);
    const s2 = await firstSeq(two);
    await two.stop('SIGKILL');
    expect(s1).toBe(1);
    // The killed run had reserved a whole block; the next one starts past it.
    expect(s2).toBeGreaterThan(s1 + 9_999);
    // And in-process on the same file after that: past both.
    const three = await startTestService({ db, speed: 0 });
    expect(three.svc.bus.nextSeq).toBeGreaterThan(s2 + 9_999);
    await three.close();
  }, 30_000);
});
