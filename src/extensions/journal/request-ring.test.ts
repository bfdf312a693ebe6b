// [EXT-7] The journal keeps answered requests as fields beside its other events: reads see one stream
// in seq order, the bounds count both kinds, and what a query builds is the event the request was.

import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/bus.ts';
import { parseTypeList } from '../../events/filter.ts';
import type { EventData, MeterEvent } from '../../events/schemas.ts';
import { approxBytes, Journal } from './journal.ts';
import { RequestRing, requestBytes } from './request-ring.ts';

function busWithJournal(opts: ConstructorParameters<typeof Journal>[0] = {}) {
  let vt = 1_000;
  const bus = new EventBus({ now: () => vt++, wall: () => 7 });
  const journal = new Journal({ ...opts, firstSeq: bus.nextSeq });
  bus.subscribe((e) => journal.push(e));
  bus.onRequest((seq, vt, wt, data, accountId) => journal.pushRequest(seq, vt, wt, data, accountId));
  return { bus, journal };
}

const get = (url: string, extra: Partial<EventData<'http.request'>> = {}): EventData<'http.request'> => ({
  method: 'GET',
  route: '/api/v2/devices/:device_id/',
  url,
  status: 200,
  latency_ms: 0.25,
  account_id: null,
  ...extra,
});

const seqs = (events: MeterEvent[]) => events.map((e) => e.seq);
const types = (events: MeterEvent[]) => events.map((e) => e.type);

describe('the journal keeps requests as fields [EXT-7]', () => {
  it('reads events and requests back as one stream in seq order, forwards and newest-first', () => {
    const { bus, journal } = busWithJournal({ capacity: 100 });
    bus.emit('log', { level: 'info', msg: 'a' }); // 1
    bus.request(get('/api/v2/devices/A/')); // 2
    bus.request(get('/api/v2/devices/B/')); // 3
    bus.emit('meter.cutoff', { balance: -1 }, { deviceId: 'A' }); // 4
    bus.emit('telemetry.summary', { interval_ms: 1000, messages: 1, samples: 1, meters: [] }); // 5
    bus.request(get('/api/v2/devices/C/')); // 6
    expect(seqs(journal.after(0, {}, 100))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(types(journal.after(0, {}, 100))).toEqual([
      'log',
      'http.request',
      'http.request',
      'meter.cutoff',
      'telemetry.summary',
      'http.request',
    ]);
    expect(seqs(journal.after(2, {}, 3))).toEqual([3, 4, 5]);
    expect(seqs(journal.newest({}, 4))).toEqual([3, 4, 5, 6]);
    expect(seqs(journal.newest({}, 100))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(journal.size).toBe(5); // the summary is kept beside both
  });

  it('filters requests like any event: by type, and a device filter excludes them (they have none)', () => {
    const { bus, journal } = busWithJournal({ capacity: 100 });
    bus.request(get('/a')); // 1
    bus.emit('meter.cutoff', { balance: -1 }, { deviceId: 'A' }); // 2
    bus.request(get('/b')); // 3
    const http = parseTypeList('http.*');
    if (!http.ok) throw new Error('http.* names a family');
    expect(seqs(journal.after(0, { types: http.types }, 10))).toEqual([1, 3]);
    expect(seqs(journal.newest({ types: http.types }, 1))).toEqual([3]);
    expect(seqs(journal.after(0, { deviceId: 'A' }, 10))).toEqual([2]);
    const meter = parseTypeList('meter.*');
    if (!meter.ok) throw new Error('meter.* names a family');
    expect(seqs(journal.after(0, { types: meter.types }, 10))).toEqual([2]);
  });

  it('builds the very event the request was: seq, times, redacted URL, account, code', () => {
    const { bus, journal } = busWithJournal({ capacity: 10 });
    bus.request(get('/api/v2/devices/A/?api_key=msk_secret123456', { status: 401, code: 'unauthorized' }));
    bus.request(get('/api/v2/devices/B/', { account_id: 7 }), 7);
    const [first, second] = journal.after(0, {}, 10) as MeterEvent<'http.request'>[];
    expect(first).toEqual({
      seq: 1,
      type: 'http.request',
      vt: 1_000,
      wt: 7,
      data: { ...get('/api/v2/devices/A/?api_key=***'), status: 401, code: 'unauthorized' },
    });
    expect(second).toEqual({
      seq: 2,
      type: 'http.request',
      vt: 1_001,
      wt: 7,
      account_id: 7,
      data: get('/api/v2/devices/B/', { account_id: 7 }),
    });
  });

  it('evicts the oldest of either kind at the count bound, and oldestSeq follows', () => {
    const { bus, journal } = busWithJournal({ capacity: 4 });
    bus.emit('log', { level: 'info', msg: 'kept?' }); // 1
    for (let i = 0; i < 3; i++) bus.request(get(`/r${i}`)); // 2, 3, 4
    bus.emit('log', { level: 'info', msg: 'five' }); // 5: evicts 1 (an event)
    expect(seqs(journal.after(0, {}, 10))).toEqual([2, 3, 4, 5]);
    expect(journal.oldestSeq).toBe(2);
    bus.request(get('/r3')); // 6: evicts 2 (a request)
    bus.request(get('/r4')); // 7: evicts 3
    expect(seqs(journal.after(0, {}, 10))).toEqual([4, 5, 6, 7]);
    expect(journal.oldestSeq).toBe(4);
    expect(journal.size).toBe(4);
  });

  it('weighs a request in the byte bound as its event object did (approxBytes)', () => {
    const withCode = get('/api/v2/devices/MTR-1/?from=2026-01-01', { status: 404, code: 'not_found' });
    const plain = get('/api/v2/spaces/3/', { account_id: 3 });
    for (const data of [withCode, plain]) {
      const event: MeterEvent = { seq: 1, type: 'http.request', vt: 0, wt: 0, data };
      expect(requestBytes(data)).toBe(approxBytes(event));
    }
    const one = requestBytes(plain);
    const { bus, journal } = busWithJournal({ capacity: 100, maxBytes: one * 3 });
    for (let i = 0; i < 5; i++) bus.request(plain);
    expect(journal.size).toBe(3);
    expect(journal.bytes).toBe(one * 3);
    expect(journal.oldestSeq).toBe(3);
  });

  it('a request alone bigger than the byte bound is not kept, and counted as gone', () => {
    const { bus, journal } = busWithJournal({ capacity: 10, maxBytes: 400 });
    bus.emit('log', { level: 'info', msg: 'm' }); // 1
    bus.request(get(`/${'x'.repeat(500)}`)); // 2
    expect(seqs(journal.after(0, {}, 10))).toEqual([]);
    expect(journal.oldestSeq).toBe(3);
    expect(journal.lastSeq).toBe(2);
  });

  it('grows its columns in order across a wrap, up to the capacity', () => {
    const ring = new RequestRing(1000);
    let seq = 0;
    // Wrap the first 256-long columns before they grow: 200 in, 150 out, then 600 more.
    for (let i = 0; i < 200; i++) ring.push(++seq, seq, seq, get(`/${seq}`), undefined);
    for (let i = 0; i < 150; i++) ring.shift();
    for (let i = 0; i < 600; i++) ring.push(++seq, seq, seq, get(`/${seq}`), undefined);
    expect(ring.size).toBe(650);
    const urls = Array.from({ length: ring.size }, (_, k) => ring.eventAt(k).data.url);
    expect(urls[0]).toBe('/151');
    expect(urls.at(-1)).toBe('/800');
    expect(urls.every((u, k) => u === `/${151 + k}`)).toBe(true);
    expect(ring.firstAfter(400)).toBe(250);
    for (let i = ring.size; i < 1000; i++) ring.push(++seq, seq, seq, get(`/${seq}`), undefined);
    expect(() => ring.push(++seq, 0, 0, get('/full'), undefined)).toThrow(/full/);
  });
});
