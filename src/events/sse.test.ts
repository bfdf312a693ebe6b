// EventStreams' own edges; the stream over real HTTP is test/events/sse.test.ts.

import { describe, expect, it } from 'vitest';
import { EventBus } from './bus.ts';
import { Journal } from './journal.ts';
import { EventStreams, type SseSink, sseFrame } from './sse.ts';

function sink(destroyed = false): SseSink & { written: string[] } {
  const written: string[] = [];
  return {
    written,
    destroyed,
    writableLength: 0,
    write: (chunk: string) => written.push(chunk) > 0,
    end: () => {},
    destroy: () => {},
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
});
