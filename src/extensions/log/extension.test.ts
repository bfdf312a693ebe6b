// The logger extension: plain lines before it listens and when the bus is off; once listening, the
// service's messages come back as `log` events, written once; the last line of a run, said after the
// stop, looks like the rest (seq, virtual time).

import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/bus.ts';
import { Metrics } from '../../events/metrics.ts';
import { createLogger } from '../../log/logger.ts';
import type { Store } from '../../store/types.ts';
import type { ExtensionContext } from '../extension.ts';
import { LoggerExtension } from './extension.ts';

function lines() {
  const got: Record<string, unknown>[] = [];
  return {
    got,
    write(s: string) {
      for (const l of s.split('\n').filter(Boolean)) got.push(JSON.parse(l) as Record<string, unknown>);
    },
  };
}

function contextOf(bus: EventBus): ExtensionContext {
  return {
    bus,
    store: {} as Store,
    clock: { now: () => 0 },
    log: () => {},
    metrics: new Metrics(),
    role: 'world',
    config: {},
  };
}

const VT = Date.UTC(2026, 0, 4, 18, 30); // 2026-01-05T00:00+05:30

describe('LoggerExtension', () => {
  it('writes plain lines until it listens, then log events once, and the last word after the stop', () => {
    const out = lines();
    const ext = new LoggerExtension({ logger: createLogger({ format: 'json', level: 'info', out }) });
    ext.log('info', 'store opened');
    const bus = new EventBus({ now: () => VT });
    ext.start(contextOf(bus));
    ext.log('info', 'not written: the service emits it'); // as ServiceConfig.log would be called
    bus.emit('log', { level: 'info', msg: 'broker listening' });
    ext.say('info', 'SIGTERM: shutting down');
    ext.stop();
    ext.say('info', 'stopped cleanly');
    expect(out.got.map((l) => l.msg)).toEqual([
      'store opened',
      'broker listening',
      'SIGTERM: shutting down',
      'stopped cleanly',
    ]);
    expect(out.got[0]).not.toHaveProperty('seq');
    expect(out.got.at(-1)).toMatchObject({ type: 'log', seq: 3, vt: '2026-01-05T00:00:00.000+05:30' });
  });

  it('with the bus off (--no-events) every message is a plain line', () => {
    const out = lines(); // warn lines too: one sink for both streams
    const ext = new LoggerExtension({
      logger: createLogger({ format: 'json', level: 'info', out, err: out }),
    });
    ext.start(contextOf(new EventBus({ now: () => 0, enabled: false })));
    ext.log('warn', 'a');
    ext.say('info', 'b');
    ext.stop();
    expect(out.got.map((l) => [l.level, l.msg, l.type])).toEqual([
      ['warn', 'a', 'log'],
      ['info', 'b', 'log'],
    ]);
  });

  it('silent by default: it does not even subscribe', () => {
    const bus = new EventBus({ now: () => 0 });
    const ext = new LoggerExtension();
    ext.start(contextOf(bus));
    expect(bus.subscriberCount).toBe(0);
    ext.stop();
  });
});
