// The shape of an extension (src/extensions/: what listens to the event bus and talks outward) and
// how a service starts a list of them: in the list's order, each with the same typed context, and
// stopped in reverse (rules EXT-1..EXT-3 in src/extensions/README.md). Here, beside service.ts, because
// the service and an API instance start the extensions while the extensions themselves sit above
// both: the list is made in src/extensions and handed in through the config.

import type { TwinRegistry } from '../devices/twins.ts';
import type { EventBus } from '../events/bus.ts';
import type { Metrics, MetricsExposition } from '../events/metrics.ts';
import type { EventViews } from '../events/views.ts';
import type { Log } from '../log/types.ts';
import type { Store } from '../store/types.ts';

/** The event stream's bounds (issue 9); unset fields take the defaults. */
export interface EventsConfig {
  /** false: the bus emits nothing (the bus-off baseline of bench/ingest.ts). Default true. */
  enabled?: boolean;
  /** Events the in-memory journal keeps (GET /sim/v1/events). Default 10,000. */
  journalSize?: number;
  /** Durable events (money, meter state) the store keeps at most. Default 1,000,000. */
  durableKeep?: number;
  /** The live streams' bounds (tests shorten the heartbeat); unset fields take the defaults. */
  streams?: { maxClients?: number; maxBufferBytes?: number; heartbeatMs?: number };
}

/** Everything an extension may use, the same whichever way the service starts [EXT-2]. */
export interface ExtensionContext {
  /** The service's one event stream; nothing has been emitted on it yet when the first extension starts. */
  bus: EventBus;
  store: Store;
  /** Virtual time: the world's clock, and its speed (virtual ms per wall ms). */
  clock: { now(): number; readonly speed?: number };
  /** The service's own log, redacted, not onto the bus (a view's trouble must not feed the bus it reads). */
  log: Log;
  /** Named counters and gauges; a Prometheus extension reads them [EXT-4]. */
  metrics: Metrics;
  /** 'world': the process that owns the world (`serve`, startMeterstack()); 'api-instance': `serve --api-only`. */
  role: 'world' | 'api-instance';
  config: EventsConfig;
}

/**
 * [EXT-6] What an extension that talks to meters may use once the broker and the world are up (the
 * world process only): the broker with the service's login, and the twins, the public state GET device
 * shows and the one way commands go out (as the v2 API sends them). Handed to `attach`.
 */
export interface ServiceHandles {
  broker: { kind: 'embedded' | 'external'; url: string; login: { username: string; password: string } };
  twins: Pick<TwinRegistry, 'get' | 'command'>;
  /** meterstack's version. */
  version: string;
}

export interface Extension {
  /** Named in errors and in the README's list. */
  readonly name: string;
  /**
   * Subscribes, opens what it talks to. If it throws, the service does not start, and this extension's
   * stop() is called too, with those before it: stop() copes with a start that got half way.
   */
  start(ctx: ExtensionContext): void | Promise<void>;
  /** Writes what it holds and stops listening; called once, after the world and the broker stopped. */
  stop(): void | Promise<void>;
  /**
   * [EXT-6] The broker and the world are up (world process only, before HTTP listens): an extension that
   * talks to meters starts doing so here. If it throws, the service does not start.
   */
  attach?(service: ServiceHandles): void | Promise<void>;
  /** Another process took the store (the world owner lease): write nothing more, now. */
  abandon?(): void;
  /** The journal and live streams the HTTP API serves; exactly one extension of a list gives them. */
  views?(): EventViews;
  /** [PM-3] What GET /metrics serves; at most one extension of a list gives it (the Prometheus one). */
  exposition?(): MetricsExposition;
}

export interface RunningExtensions {
  /** The views of the extension that serves them. */
  views: EventViews;
  /** [EXT-6] Hands the running service to every extension that asks for it, in the list's order. */
  attach(service: ServiceHandles): Promise<void>;
  /** [PM-3] GET /metrics's text, or null: no extension of the list serves it (metrics off). */
  exposition: MetricsExposition | null;
  abandon(): void;
  /** Stops every extension in reverse order; the first failure is thrown after all were asked. */
  stop(): Promise<void>;
}

/** [EXT-1] Starts `list` in order; stops the started ones in reverse if one fails. */
export async function startExtensions(
  list: readonly Extension[],
  ctx: ExtensionContext,
): Promise<RunningExtensions> {
  const started: Extension[] = [];
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= stopAll(started);
    return stopping;
  };
  try {
    for (const ext of list) {
      started.push(ext);
      await ext.start(ctx);
    }
    const serving = list.filter((ext) => ext.views !== undefined);
    if (serving.length !== 1)
      throw new TypeError(
        `extensions: exactly one must serve the event views (GET /sim/v1/events), not ${serving.length}`,
      );
    const exposing = list.filter((ext) => ext.exposition !== undefined);
    if (exposing.length > 1)
      throw new TypeError(`extensions: at most one may serve GET /metrics, not ${exposing.length}`);
    return {
      views: serving[0]!.views!(),
      attach: async (service) => {
        for (const ext of started) await ext.attach?.(service);
      },
      exposition: exposing[0]?.exposition?.() ?? null,
      abandon: () => {
        for (const ext of started) ext.abandon?.();
      },
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

async function stopAll(started: Extension[]): Promise<void> {
  let first: unknown = null;
  for (const ext of [...started].reverse()) {
    try {
      await ext.stop();
    } catch (err) {
      first ??= new Error(`extension ${ext.name}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (first !== null) throw first;
}
