// GET /sim/v1/events/stream over a real socket: live frames, resume after Last-Event-ID with no gap and
// no duplicate across a burst, the heartbeat, the bounds (a client that does not read, streams at
// once, the connection cap) and a clean stop (issue 9 §3).

import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/events/bus.ts';
import { STREAM_METRICS } from '../../src/extensions/journal/sse.ts';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';

const AUTH = { 'x-admin-token': ADMIN_TOKEN };
const seqsOf = (c: SseClient) => c.events().map((e) => e.seq);

let t: TestService;
beforeAll(async () => {
  t = await startTestService({
    speed: 0,
    // Short HTTP timeouts: a stream must outlive every one of them.
    httpLimits: { headersTimeoutMs: 200, requestTimeoutMs: 300, keepAliveTimeoutMs: 200, maxConnections: 8 },
    events: { streams: { heartbeatMs: 100, maxClients: 4 } },
  });
});
afterAll(() => t?.close());

const stream = (query = '', headers: Record<string, string> = {}) =>
  openSse(t.svc.httpUrl, `/sim/v1/events/stream${query}`, { ...AUTH, ...headers });

/** Emits `n` events a few per macrotask, as a busy service would, while a client connects. */
async function burst(bus: EventBus, n: number, device = 'MTR-B'): Promise<number[]> {
  const seqs: number[] = [];
  while (seqs.length < n) {
    for (let i = 0; i < 50 && seqs.length < n; i++)
      seqs.push(bus.emit('meter.cutoff', { balance: -seqs.length }, { deviceId: device })!.seq);
    await new Promise((r) => setImmediate(r));
  }
  return seqs;
}

describe('GET /sim/v1/events/stream', () => {
  it('streams each event as one frame: id seq, event type, data the whole event; filters apply', async () => {
    const all = await stream();
    const cut = await stream('?type=meter.cutoff&device_id=MTR-S1');
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toMatch(/^text\/event-stream/);
    const a = t.svc.bus.emit('meter.cutoff', { balance: -5 }, { deviceId: 'MTR-S1' })!;
    t.svc.bus.emit('meter.cutoff', { balance: -6 }, { deviceId: 'MTR-S2' });
    t.svc.bus.emit('clock.speed', { speed: 3, was: 1 });
    await all.until(() => all.events().length >= 3);
    await cut.until(() => cut.events().length >= 1);
    const frame = all.frames.find((f) => f.id === String(a.seq))!;
    expect(frame.event).toBe('meter.cutoff');
    expect(JSON.parse(frame.data!)).toEqual(a);
    expect(cut.events()).toEqual([a]);
    all.close();
    cut.close();
  });

  it('resumes after Last-Event-ID during a burst: no gap, no duplicate', async () => {
    const { bus } = t.svc;
    const first = await stream('?type=meter.cutoff&device_id=MTR-R');
    const before = await burst(bus, 300, 'MTR-R');
    await first.until(() => first.events().length >= 100);
    first.close();
    const lastId = first.frames.filter((f) => f.id).at(-1)!.id!;
    // The burst goes on while the client is away and while it reconnects.
    const during = burst(bus, 3000, 'MTR-R');
    const second = await stream('?type=meter.cutoff&device_id=MTR-R', { 'last-event-id': lastId });
    const all = [...before, ...(await during)];
    const want = all.filter((s) => s > Number(lastId));
    await second.until(() => second.events().length >= want.length, 10_000);
    expect(seqsOf(second)).toEqual(want);
    second.close();
  });

  it('takes since in the query, and the later of since and Last-Event-ID', async () => {
    const { bus } = t.svc;
    const seqs = await burst(bus, 10, 'MTR-Q');
    const bySince = await stream(`?device_id=MTR-Q&since=${seqs[4]}`);
    const byMax = await stream(`?device_id=MTR-Q&since=${seqs[2]}`, { 'last-event-id': String(seqs[6]) });
    await bySince.until(() => bySince.events().length >= 5);
    await byMax.until(() => byMax.events().length >= 3);
    expect(seqsOf(bySince)).toEqual(seqs.slice(5));
    expect(seqsOf(byMax)).toEqual(seqs.slice(7));
    bySince.close();
    byMax.close();
  });

  it('sends a heartbeat and outlives the request, keep-alive and headers timeouts', async () => {
    const s = await stream('?type=clock.speed');
    await new Promise((r) => setTimeout(r, 1_200)); // 4x the request timeout, 6x the keep-alive
    expect(s.frames.filter((f) => f.comment === 'ping').length).toBeGreaterThanOrEqual(5);
    const e = t.svc.bus.emit('clock.speed', { speed: 7, was: 3 })!;
    await s.until(() => seqsOf(s).includes(e.seq));
    s.close();
  });

  it('is not evicted by the connection cap: idle sockets go instead', async () => {
    const s = await stream('?type=clock.speed');
    // Twice the cap of 8 in sockets that never send a request: evictable, the stream is not.
    const idle: Socket[] = [];
    const url = new URL(t.svc.httpUrl);
    for (let i = 0; i < 16; i++) {
      const sock = connect(Number(url.port), url.hostname);
      sock.on('error', () => {});
      idle.push(sock);
      await new Promise((r) => sock.once('connect', r));
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(t.svc.http.connectionStats().evicted).toBeGreaterThan(0);
    const e = t.svc.bus.emit('clock.speed', { speed: 9, was: 7 })!;
    await s.until(() => seqsOf(s).includes(e.seq));
    for (const sock of idle) sock.destroy();
    s.close();
  });

  it('opens at most maxClients streams; the next gets 503 service_unavailable in the envelope', async () => {
    const open = await Promise.all([1, 2, 3, 4].map(() => stream('?type=log')));
    await new Promise((r) => setTimeout(r, 50));
    const refused = await stream('?type=log');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    await refused.ended;
    expect(JSON.parse(refused.text())).toMatchObject({
      success: false,
      error: { code: 'service_unavailable', detail: expect.stringContaining('at most 4 event streams') },
    });
    for (const c of open) c.close();
    // A closed stream frees its place.
    await new Promise((r) => setTimeout(r, 50));
    const again = await stream('?type=log');
    expect(again.status).toBe(200);
    again.close();
  });
});

describe('a client that does not read', () => {
  let slow: TestService;
  beforeAll(async () => {
    slow = await startTestService({ speed: 0 });
  });
  afterAll(() => slow?.close());

  /** Time to emit `n` 1 KB events, ms. */
  const emitMs = (bus: EventBus, n: number) => {
    const msg = 'x'.repeat(1024);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) bus.emit('log', { level: 'info', msg });
    return performance.now() - t0;
  };

  it('is dropped past 1 MiB unsent while emit stays cheap and a reading client gets everything', async () => {
    const { bus, events } = slow.svc;
    emitMs(bus, 2000); // warm up
    const baseline = emitMs(bus, 10_000);

    const reader = await openSse(slow.svc.httpUrl, '/sim/v1/events/stream?type=log', AUTH);
    // A raw client that asks for the stream and then never reads a byte.
    const url = new URL(slow.svc.httpUrl);
    const sock = connect(Number(url.port), url.hostname);
    sock.on('error', () => {});
    await new Promise((r) => sock.once('connect', r));
    sock.write(
      `GET /sim/v1/events/stream HTTP/1.1\r\nHost: localhost\r\nX-Admin-Token: ${ADMIN_TOKEN}\r\n\r\n`,
    );
    sock.pause();
    await new Promise((r) => setTimeout(r, 100));
    expect(slow.svc.metrics.value(STREAM_METRICS.open)).toBe(2);

    const first = bus.nextSeq;
    const heapBefore = process.memoryUsage().heapUsed;
    let withClients = 0;
    // In slices, so the reader's socket drains between them as a live service's would.
    // (200 frames are ~250 KB: well under the reader's bound between two turns of the loop.)
    for (let i = 0; i < 50; i++) {
      withClients += emitMs(bus, 200);
      await new Promise((r) => setImmediate(r));
    }
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(slow.svc.metrics.value(STREAM_METRICS.dropped)).toBe(1);
    expect(slow.svc.metrics.value(STREAM_METRICS.open)).toBe(1);
    // And the service says so, as an event of its own.
    await new Promise((r) => setImmediate(r));
    const said = (
      await events.read({ since: first - 1, filter: { types: new Set(['log']) }, limit: 20_000 })
    ).events.filter((e) => (e.data as { level: string }).level === 'warn');
    expect(said.map((e) => e.data)).toEqual([
      { level: 'warn', msg: expect.stringMatching(/^events: dropped a stream client that did not read/) },
    ]);
    await reader.until(() => reader.events().length >= 10_001, 20_000);
    // Every event in order: the 10,000 and the service's own warning among them.
    const got = seqsOf(reader);
    expect(got[0]).toBe(first);
    expect(got.at(-1)).toBe(first + 10_000);
    reader.close();
    sock.destroy();
    // ~10 MB of frames were written in all; the dropped client held at most ~1 MiB of it.
    console.log(
      `emit 10,000 x 1 KB events: ${baseline.toFixed(1)} ms with no client, ${withClients.toFixed(1)} ms with a reader and a dropped non-reader; heap growth ${(heapGrowth / 1e6).toFixed(1)} MB`,
    );
    expect(withClients / 10_000).toBeLessThan(0.2); // < 200 µs per event with two clients
    expect(heapGrowth).toBeLessThan(64 * 1024 * 1024);
  });
  it('a client resuming from far back is paced by its reading, not dropped', async () => {
    const { bus } = slow.svc;
    emitMs(bus, 10_000); // a full journal of 1 KB events: ~12 MB of frames to replay
    const dropped = slow.svc.metrics.value(STREAM_METRICS.dropped);
    const late = await openSse(slow.svc.httpUrl, '/sim/v1/events/stream?type=log&since=0', AUTH, {
      paused: true,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(slow.svc.metrics.value(STREAM_METRICS.dropped)).toBe(dropped);
    late.resume();
    await late.until(() => late.events().length >= 10_000, 8_000);
    const live = bus.emit('log', { level: 'info', msg: 'live after the replay' })!;
    await late.until(() => seqsOf(late).includes(live.seq));
    const got = seqsOf(late);
    expect(got.at(-1)).toBe(live.seq);
    expect(new Set(got).size).toBe(got.length);
    expect(got.every((s, i) => i === 0 || s > got[i - 1]!)).toBe(true);
    expect(slow.svc.metrics.value(STREAM_METRICS.dropped)).toBe(dropped);
    late.close();
  });
});

describe('stopping the service', () => {
  it('ends open streams and closes promptly', async () => {
    const s2 = await startTestService({ speed: 0 });
    const a = await openSse(s2.svc.httpUrl, '/sim/v1/events/stream', AUTH);
    const b = await openSse(s2.svc.httpUrl, '/sim/v1/events/stream?since=0', AUTH);
    const t0 = Date.now();
    await s2.close();
    await Promise.all([a.ended, b.ended]);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
