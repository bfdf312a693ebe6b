// EventStreams' own edges; the stream over real HTTP is test/events/sse.test.ts.

import { describe, expect, it } from 'vitest';
import { EventBus } from './bus.ts';
import { Journal } from './journal.ts';
import { EventStreams, type SseSink, sseFrame } from './sse.ts';

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
    const streams = new EventStreams({ bus, journal: new Journal(), maxClients: 1 });
    streams.open(sink(true), {});
    expect(streams.stats.open).toBe(0);
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
    const streams = new EventStreams({ bus, journal: new Journal(), maxBufferBytes: 1000 });
    const reading = sink();
    const stuck = sink();
    streams.open(reading, {});
    streams.open(stuck, {});
    // A telemetry summary of 10,000 meters is ~1.3 MB against the 1 MiB default: here 3 KB against 1 KB.
    const big = bus.emit('log', { level: 'info', msg: 'x'.repeat(3000) })!;
    expect(reading.written).toEqual([sseFrame(big)]);
    expect(stuck.written).toEqual([sseFrame(big)]);
    expect(streams.stats.dropped).toBe(0);
    // The reader takes it all; the other leaves it unread: at the next frame it is dropped, not written to.
    reading.read();
    const next = bus.emit('log', { level: 'info', msg: 'next' })!;
    expect(reading.written.at(-1)).toBe(sseFrame(next));
    expect(stuck.written).toHaveLength(1);
    expect(stuck.destroyed).toBe(true);
    expect(streams.stats).toMatchObject({ open: 1, dropped: 1 });
    streams.close();
  });
});
