// `meterstack serve --api-only` (issue 11 §4, spec-decisions 88): an API instance. The v2 API and
// /sim/v1 over a shared store and an external broker, beside one world process (a plain `serve` holding
// the world owner lease and the meters). No meters, no embedded broker, no lease, no clock of its own:
// the store is shared, the twins mirror every meter from the broker, the clock follows the world's,
// and /sim/v1's world operations are forwarded to the world process.

import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { connectRateLimitRedis } from '../api/v2/shared-limit.ts';
import { buildHttpApp } from '../app.ts';
import { connectExternalBroker } from '../broker/external.ts';
import { MAX_FUTURE_SKEW_MS } from '../devices/plausibility.ts';
import { TwinRegistry } from '../devices/twins.ts';
import { EventBus } from '../events/bus.ts';
import { Metrics } from '../events/metrics.ts';
import type { EventViews } from '../events/views.ts';
import { startExtensions } from '../extensions/extension.ts';
import { ServiceExtensions } from '../extensions/index.ts';
import { corsPolicy } from '../http/cors-policy.ts';
import { hostPolicy } from '../http/host-policy.ts';
import { secretRedactor, secretsOf } from '../log/redact.ts';
import type { Log } from '../log/types.ts';
import { listenHttp } from '../net/listen.ts';
import type { ServiceConfig } from '../service.ts';
import { worldForward } from '../sim-api/forward.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';
import { parseClockAnchor, WORLD_CLOCK_TOPIC } from '../world/clock-anchor.ts';
import { apiInstanceReadiness } from '../world/readiness.ts';
import { loadTwins } from '../world/twin-reports.ts';
import { ApiWorld } from './api-world.ts';
import { WorldClock } from './world-clock.ts';

export interface RunningApiInstance {
  httpUrl: string;
  /** The shared broker's URL (no credentials). */
  mqttUrl: string;
  adminToken: string;
  store: Store;
  world: ApiWorld;
  bus: EventBus;
  events: EventViews;
  /** Its counters and gauges [EXT-4]. */
  metrics: Metrics;
  http: FastifyInstance;
  close(): Promise<void>;
}

/** Why a configuration cannot run as an API instance, or null. The CLI checks the same before this. */
export function apiOnlyProblem(config: Pick<ServiceConfig, 'broker' | 'db'>): string | null {
  if (!config.broker)
    return '--api-only needs --broker mqtt://user:password@host:port: the broker the world process and every instance share (the embedded one lives inside the world process)';
  if (config.db === ':memory:') return "--api-only needs the world process's database (--db), not :memory:";
  return null;
}

export async function startApiInstance(config: ServiceConfig): Promise<RunningApiInstance> {
  const problem = apiOnlyProblem(config);
  if (problem) throw new TypeError(problem);
  const started: (() => Promise<void>)[] = [];
  try {
    return await start(config, config.broker!, started);
  } catch (err) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw err;
  }
}

async function start(
  config: ServiceConfig,
  brokerUrl: string,
  started: (() => Promise<void>)[],
): Promise<RunningApiInstance> {
  const cors = corsPolicy(config.cors);
  const hosts = hostPolicy(config.host, config.allowedHosts);
  // [SEC-1] One redaction for every line and event, as in service.ts.
  const redact = secretRedactor(secretsOf(config));
  const log: Log = (level, msg, meta) => config.log(level, redact(msg), meta);
  // The world process makes and migrates the store; an instance only opens it (no createDir).
  const store = await openStore(config.db);
  started.push(() => store.close());
  const broker = await connectExternalBroker({ url: brokerUrl, logins: config.brokerLogins, log });
  // Its management connection (dynamic security) would keep the process alive if a later step fails.
  started.push(() => broker.close());
  const redis: Redis | undefined = config.redis
    ? await connectRateLimitRedis({ url: config.redis, log })
    : undefined;
  if (redis) started.push(async () => void redis.disconnect());
  const clock = await WorldClock.open({ store, log });
  started.push(async () => clock.stop());
  // Its own bus and journal, in memory: the world process keeps the durable events [EXT-5].
  const metrics = new Metrics();
  const bus = new EventBus({ now: () => clock.now(), enabled: config.events?.enabled, redact, metrics });
  // [EXT-2] The same list as the world process's, in the same order.
  const extensions = await startExtensions(config.extensions ?? new ServiceExtensions().list, {
    bus,
    store,
    clock,
    log,
    metrics,
    role: 'api-instance',
    config: config.events ?? {},
  });
  started.push(() => extensions.stop());
  const events = extensions.views;
  // A mirror: no ingest, no saved reports (the world's twins store both); a client id of its own.
  const twins = new TwinRegistry({
    mqttUrl: broker.url,
    username: broker.service.username,
    password: broker.service.password,
    commandTimeoutMs: config.commandTimeoutMs,
    now: () => clock.now(),
    log,
    bus,
    metrics,
    // A jump's line comes with the meters' messages, in order: the twins judge them by it [MC-3.10].
    worldClockTopic: WORLD_CLOCK_TOPIC,
    onWorldClock: (payload) => clock.apply(parseClockAnchor(payload.toString())),
  });
  twins.restore(await loadTwins(store, clock.now() + MAX_FUTURE_SKEW_MS));
  await twins.start();
  started.push(() => twins.stop());
  const world = new ApiWorld({ store, twins, clock, bus, log, mqttUrl: broker.url });
  const http = await buildHttpApp({
    world,
    adminToken: config.adminToken,
    rateLimit: config.rateLimit,
    limits: config.httpLimits,
    events,
    cors,
    hosts,
    redis,
    simForward: worldForward({ store, onClockChanged: () => clock.refresh() }),
    metrics: extensions.exposition,
    readiness: apiInstanceReadiness({ store, twins }),
  });
  started.push(() => http.close());
  await http.ready();
  const httpUrl = await listenHttp(http.server, {
    host: config.host,
    port: config.httpPort,
    strict: config.strictPort,
    log,
  });
  let closing: Promise<void> | null = null;
  return {
    httpUrl,
    mqttUrl: broker.url,
    adminToken: config.adminToken,
    store,
    world,
    bus,
    events,
    metrics,
    http,
    close() {
      closing ??= (async () => {
        await http.close();
        await twins.stop();
        clock.stop();
        redis?.disconnect();
        await broker.close();
        // [EXT-3] In reverse, after the twins: what they emitted last is written.
        try {
          await extensions.stop();
        } finally {
          await store.close();
        }
      })();
      return closing;
    },
  };
}
