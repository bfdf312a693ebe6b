// EventStreams' own edges; the stream over real HTTP is test/events/sse.test.ts.

import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/bus.ts';
import { Metrics } from '../../events/metrics.ts';
import type { SseSink } from '../../events/views.ts';
import { Journal } from './journal.ts';
import { EventStreams, STREAM_METRICS, sseFrame } from './sse.ts';

/** A sink that keeps what it is given unsent until `read()` (a client reading), as a socket does. */
function sink(
  destroyed = false,
): SseSink & { written: string[]; writableLength: number; destroyed: boolean; read(): void } {
  const written: string[] = [];
  return {
    written,
    destroyed,
    writableLength: 0,
    write(chunk: string) {
      written.push(chunk);
      this.writableLength += chunk.length;
      return true;
    },
    read() {
      this.writableLength = 0;
    },
    end: () => {},
    destroy() {
      this.destroyed = true;
    },
    once: () => undefined,
  };
}

describe('EventStreams', () => {
  it('does not keep a client that left before its stream opened (it would hold a place for ever)', () => {
    const bus = new EventBus({ now: () => 0 });
    const metrics = new Metrics();
    const streams = new EventStreams({ bus, journal: new Journal(), maxClients: 1, metrics });
    streams.open(sink(true), {});
    expect(metrics.value(STREAM_METRICS.open)).toBe(0);
    expect(streams.admit()).toBe(true);
    streams.close();
  });

  it('formats one frame per event: id, event, data on one line', () => {
    const bus = new EventBus({ now: () => 5, wall: () => 6 });
    const streams = new EventStreams({ bus, journal: new Journal() });
    const s = sink();
    streams.open(s, {});
    const e = bus.emit('log', { level: 'info', msg: 'two\nlines' })!;
    expect(s.written).toEqual([sseFrame(e)]);
    expect(sseFrame(e)).toBe(
      `id: ${e.seq}\nevent: log\ndata: {"seq":1,"type":"log","vt":5,"wt":6,"data":{"level":"info","msg":"two\\nlines"}}\n\n`,
    );
    streams.close();
  });

  it('streams answered requests like any event: replayed from the journal, then live, none twice [EXT-7]', async () => {
    const bus = new EventBus({ now: () => 0, wall: () => 0 });
    const journal = new Journal();
    // The journal watches first, as the journal extension starts it (a replay then sees every request).
    bus.subscribe((e) => journal.push(e));
    bus.onRequest((seq, vt, wt, data, accountId) => journal.pushRequest(seq, vt, wt, data, accountId));
    const streams = new EventStreams({ bus, journal });
    const req = (url: string) =>
      bus.request({ method: 'GET', route: '/x/:id', url, status: 200, latency_ms: 1, account_id: null });
    bus.emit('log', { level: 'info', msg: 'one' }); // 1
    req('/x/2'); // 2
    bus.emit('log', { level: 'info', msg: 'three' }); // 3
    req('/x/4?token=adm_secretsecret'); // 4
    const s = sink();
    streams.open(s, {}, 1);
    req('/x/5'); // 5, while the replay runs
    await new Promise((r) => setTimeout(r, 20));
    req('/x/6'); // 6, live
    const ids = s.written.map((f) => Number(/^id: (\d+)/.exec(f)?.[1]));
    expect(ids).toEqual([2, 3, 4, 5, 6]);
    const frames = s.written.join('');
    expect(frames).toContain('event: http.request');
    expect(frames).toContain('"url":"/x/4?token=***"');
    expect(frames).not.toContain('secretsecret');
    // A stream that asks for meter events only gets no request.
    const meters = sink();
    streams.open(meters, { deviceId: 'A' });
    req('/x/7');
    expect(meters.written).toEqual([]);
    streams.close();
  });

  it('sends a frame larger than the bound to a client that reads, and drops one that left the bound unread', () => {
    const bus = new EventBus({ now: () => 0 });
    const metrics = new Metrics();
    const streams = new EventStreams({ bus, journal: new Journal(), maxBufferBytes: 1000, metrics });
    const reading = sink();
    const stuck = sink();
    streams.open(reading, {});
    streams.open(stuck, {});
    // A telemetry summary of 10,000 meters is ~1.3 MB against the 1 MiB default: here 3 KB against 1 KB.
    const big = bus.emit('log', { level: 'info', msg: 'x'.repeat(3000) })!;
    expect(reading.written).toEqual([sseFrame(big)]);
    expect(stuck.written).toEqual([sseFrame(big)]);
    expect(metrics.value(STREAM_METRICS.dropped)).toBe(0);
    // The reader takes it all; the other leaves it unread: at the next frame it is dropped, not written to.
    reading.read();
    const next = bus.emit('log', { level: 'info', msg: 'next' })!;
    expect(reading.written.at(-1)).toBe(sseFrame(next));
    expect(stuck.written).toHaveLength(1);
    expect(stuck.destroyed).toBe(true);
    expect(metrics.value(STREAM_METRICS.open)).toBe(1);
    expect(metrics.value(STREAM_METRICS.dropped)).toBe(1);
    streams.close();
  });
});
