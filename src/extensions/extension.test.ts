// How a service starts a list of extensions [EXT-1..EXT-3]: in order, with one context; stopped in
// reverse; a failed start stops what started; a failing stop does not keep the others running.

import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/bus.ts';
import { Metrics } from '../events/metrics.ts';
import type { EventViews } from '../events/views.ts';
import type { Store } from '../store/types.ts';
import { type Extension, type ExtensionContext, startExtensions } from './extension.ts';

function context(): ExtensionContext {
  return {
    bus: new EventBus({ now: () => 0 }),
    store: {} as Store, // none of these extensions touches it
    clock: { now: () => 0 },
    log: () => {},
    metrics: new Metrics(),
    role: 'world',
    config: {},
  };
}

const views = { read: async () => ({}), streams: {} } as unknown as EventViews;

function ext(
  name: string,
  said: string[],
  opts: { failStart?: boolean; failStop?: boolean } = {},
): Extension {
  return {
    name,
    start: async () => {
      said.push(`start ${name}`);
      if (opts.failStart) throw new Error(`${name} cannot start`);
    },
    stop: () => {
      said.push(`stop ${name}`);
      if (opts.failStop) throw new Error(`${name} cannot stop`);
    },
  };
}

describe('startExtensions', () => {
  it('[EXT-2][EXT-3] starts in the list order with the same context, stops in reverse, once', async () => {
    const said: string[] = [];
    const ctx = context();
    const seen: ExtensionContext[] = [];
    const a: Extension = {
      ...ext('a', said),
      start: (c) => {
        seen.push(c);
        said.push('start a');
      },
    };
    const b: Extension = { ...ext('b', said), views: () => views };
    const running = await startExtensions([a, b, ext('c', said)], ctx);
    expect(running.views).toBe(views);
    expect(seen).toEqual([ctx]);
    await Promise.all([running.stop(), running.stop()]);
    expect(said).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('[EXT-3] a start that throws stops what started, itself included, and the error goes on', async () => {
    const said: string[] = [];
    const list = [ext('a', said), ext('b', said, { failStart: true }), ext('c', said)];
    await expect(startExtensions(list, context())).rejects.toThrow('b cannot start');
    expect(said).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('[EXT-3] a stop that throws does not keep the others from stopping; its error names it', async () => {
    const said: string[] = [];
    const list = [ext('a', said), { ...ext('b', said, { failStop: true }), views: () => views }];
    const running = await startExtensions(list, context());
    await expect(running.stop()).rejects.toThrow('extension b: b cannot stop');
    expect(said.slice(2)).toEqual(['stop b', 'stop a']);
  });

  it('refuses a list where no extension, or two, serve the event views', async () => {
    const said: string[] = [];
    await expect(startExtensions([ext('a', said)], context())).rejects.toThrow(/exactly one/);
    expect(said).toEqual(['start a', 'stop a']);
  });
});
