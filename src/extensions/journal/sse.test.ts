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
