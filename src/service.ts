// One running meterstack: store, embedded broker, world (twins + virtual meters) and HTTP, started in
// dependency order and stopped in reverse. The CLI and the tests both start it through here.

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { VirtualClock } from '../simulator/clock.ts';
import { connectRateLimitRedis } from './api/v2/shared-limit.ts';
import { buildHttpApp } from './app.ts';
import { type BrokerLogins, connectExternalBroker } from './broker/external.ts';
import { type Broker, type BrokerLimits, DEFAULT_BROKER_LIMITS, startBroker } from './broker/index.ts';
import { announceService } from './broker/service-announcement.ts';
import { embeddedServiceBroker, type ServiceBroker } from './broker/service-broker.ts';
import { EventBus } from './events/bus.ts';
import { Metrics } from './events/metrics.ts';
import type { EventViews } from './events/views.ts';
import { type EventsConfig, type Extension, startExtensions } from './extensions/extension.ts';
import { haLogin } from './extensions/home-assistant/login.ts';
import { HA_USERNAME } from './extensions/home-assistant/topics.ts';
import { ServiceExtensions } from './extensions/index.ts';
import { type CorsOrigins, corsPolicy } from './http/cors-policy.ts';
import { hostPolicy } from './http/host-policy.ts';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http/limits.ts';
import { secretRedactor, secretsOf } from './log/redact.ts';
import { fitCaps, openFilesLimit, RESERVED_FDS } from './net/fd-limit.ts';
import { listenHttp } from './net/listen.ts';
import { packageVersion } from './package-root.ts';
import { openStore } from './store/index.ts';
import { isPostgresUrl } from './store/postgres/url.ts';
import type { Store } from './store/types.ts';
import { WorldOwnerLease } from './store/world-owner.ts';
import { seedDemoWorld } from './world/demo.ts';
import { loadMeterSecrets } from './world/meter-secrets.ts';
import { worldReadiness } from './world/readiness.ts';
import { secretMatches } from './world/secrets.ts';
import { type Log, World } from './world/world.ts';

export interface ServiceConfig {
  host: string;
  httpPort: number;
  mqttPort: number;
  /**
   * An external broker, `mqtt://user:password@host:port` with the service's own login on it, instead of
   * the embedded aedes (issue 11; docs/scale.md). Default: the embedded broker on `mqttPort`.
   */
  broker?: string;
  /**
   * An API instance (`serve --api-only`, src/api-instance/start.ts): no meters, no embedded broker, no world
   * owner lease; needs `broker` and a shared `db`. Start it with startApiInstance, not startService.
   */
  apiOnly?: boolean;
  /** The v2 rate limit's counters in Redis, shared by API instances (`serve --redis`). */
  redis?: string;
  /** Who keeps meters' logins on the external broker (src/broker/external.ts). Default `dynsec`. */
  brokerLogins?: BrokerLogins;
  /** File path, ':memory:' or a store URL. */
  db: string;
  /** Create the database file's directory (one level) if missing; else it must exist. Default false. */
  createDbDir?: boolean;
  adminToken: string;
  /**
   * [SNAP-8] The key virtual meters' MQTT passwords are derived from (16+ characters); default: the file
   * `<db>.meter-key` beside a SQLite file, else one per process (meter-secrets.ts).
   */
  meterKey?: string;
  /** The demo account's API key. */
  apiKey: string;
  /**
   * Virtual ms per wall ms. Default: the speed the store's clock last ran at (set by an earlier --speed
   * or POST /sim/v1/clock/speed), else 1 (spec-decisions 54).
   */
  speed?: number;
  /** Virtual time (ms since epoch) a fresh store's clock starts at; default: now. Scenarios fix it. */
  clockStart?: number;
  demo: boolean;
  strictPort: boolean;
  rateLimit: number;
  commandTimeoutMs: number;
  /** Wall ms between sends of external meters' pending credits [LEDGER-5]; default 10 s. */
  creditRetryMs?: number;
  /** HTTP timeouts and connection cap (issue 8 item 6); unset fields take the defaults. */
  httpLimits?: Partial<HttpLimits>;
  /**
   * Browser origins that may call the HTTP APIs (`serve --cors`): default 'localhost' (http(s)://
   * localhost, 127.0.0.1, [::1], any port), '*', 'off', or exact origins (spec-decisions 69).
   */
  cors?: CorsOrigins;
  /**
   * [SEC-5] Host names answered besides the loopback names and `host` (`serve --allowed-hosts`), or
   * '*' for any; src/http/host-policy.ts.
   */
  allowedHosts?: '*' | readonly string[];
  /** MQTT packet size, connection rate and cap [MC-10]; unset fields take the defaults. */
  mqttLimits?: Partial<BrokerLimits>;
  /**
   * Every message of the service, redacted. Once the bus exists they are also emitted as `log` events
   * (unless their fact is its own event), which the logger extension writes.
   */
  log: Log;
  /** The event stream (issue 9); unset fields take the defaults. */
  events?: EventsConfig;
  /**
   * [EXT-1] What listens to the bus and talks outward, in start order; default the one list,
   * `new ServiceExtensions().list` (src/extensions), whichever way the service starts.
   */
  extensions?: readonly Extension[];
  /**
   * [HA-7] The login the service issues for Home Assistant, for the discovery prefix the
   * `home-assistant` extension publishes under (`serve --ha-discovery`): its password is `password`,
   * else derived from the admin token. Absent: no such login.
   */
  homeAssistant?: { prefix: string; password?: string };
  /**
   * Called after the service stopped itself because another process took its world owner lease
   * (store/README.md); the CLI exits 2. Default: nothing more than the log line.
   */
  onOwnerLost?: () => void;
}

export type { EventsConfig } from './extensions/extension.ts';

export interface RunningService {
  httpUrl: string;
  mqttUrl: string;
  adminToken: string;
  apiKey: string;
  world: World;
  /** The one event stream of this service (src/events). */
  bus: EventBus;
  /** The journal and the live streams of the bus. */
  events: EventViews;
  /** The service's counters and gauges (the bus's, the streams', durable events') [EXT-4]. */
  metrics: Metrics;
  store: Store;
  /** The embedded aedes broker; null with an external one (`config.broker`). */
  broker: Broker | null;
  /** The broker the meters and twins use, embedded or external. */
  meterBroker: ServiceBroker;
  http: FastifyInstance;
  service: { username: string; password: string };
  close(): Promise<void>;
}

export const SERVICE_USERNAME = 'meterstack-service';
export const ADMIN_MQTT_USERNAME = 'admin';

/**
 * The connection caps, lowered if need be so that both fit under the open-files limit: at that limit
 * accept() fails for HTTP and MQTT alike (issue 8 item 6).
 */
function connectionCaps(
  config: ServiceConfig,
  log: Log,
  debug: (msg: string) => void,
): { http: number; mqtt: number } {
  const asked = {
    http: config.httpLimits?.maxConnections ?? DEFAULT_HTTP_LIMITS.maxConnections,
    mqtt: config.mqttLimits?.maxConnections ?? DEFAULT_BROKER_LIMITS.maxConnections,
  };
  const fdLimit = openFilesLimit();
  const caps = fitCaps(asked, fdLimit);
  if (caps.http !== asked.http || caps.mqtt !== asked.mqtt) {
    // A warning only when someone chose other caps than the defaults (the CLI always passes a value).
    const explicit =
      asked.http !== DEFAULT_HTTP_LIMITS.maxConnections ||
      asked.mqtt !== DEFAULT_BROKER_LIMITS.maxConnections;
    const msg =
      `connection caps HTTP ${caps.http}, MQTT ${caps.mqtt} instead of ${asked.http} and ${asked.mqtt}: ` +
      `the open-files limit is ${fdLimit} (ulimit -n), ${RESERVED_FDS} descriptors kept free`;
    // Defaults fitted to the machine are no news at start (issue 20 item 10): debug.
    if (explicit) log('warn', msg);
    else debug(msg);
  }
  return caps;
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  // What has started so far, stopped in reverse if a later step fails (a taken HTTP port with
  // --strict-port, say): a live broker or MQTT client would otherwise keep the process from exiting.
  const started: (() => Promise<void>)[] = [];
  const stopStarted = async () => {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
  };
  try {
    return await start(config, started);
  } catch (err) {
    await stopStarted();
    throw err;
  }
}

async function start(config: ServiceConfig, started: (() => Promise<void>)[]): Promise<RunningService> {
  // A bad origin or host name is a TypeError before anything opens.
  const cors = corsPolicy(config.cors);
  const hosts = hostPolicy(config.host, config.allowedHosts);
  const store = await openStore(config.db, { createDir: config.createDbDir });
  started.push(() => store.close());
  // [OWNER-1] One process runs the world on a store: a second one is refused here, before it
  // opens a port or touches a meter, with WorldOwnedError naming the holder.
  let running: RunningService | null = null;
  // [SEC-1] Every line the service logs and every event it emits goes through one redaction, which
  // knows this run's secrets besides the patterns; the broker's service login is one of them.
  const service = { username: SERVICE_USERNAME, password: randomBytes(24).toString('base64url') };
  const ha = config.homeAssistant
    ? haLogin(config.homeAssistant.prefix, config.adminToken, config.homeAssistant.password)
    : null;
  const redact = secretRedactor([...secretsOf(config), service.password, ha?.password]);
  const logRedacted: Log = (level, msg, meta) => config.log(level, redact(msg), meta);
  // Until the bus exists, the service's messages go to config.log alone; from then on also onto the
  // bus as `log` events (issue 9 §2). The lease's later lines (renewal failed, taken over) take the
  // bus too, through this late binding.
  let log: Log = logRedacted;
  let abandonEvents = () => {};
  const lease = await WorldOwnerLease.acquire({
    store,
    log: (level, msg) => log(level, msg),
    onLost: () => {
      abandonEvents();
      running?.world.abandonStore();
      void (running?.close() ?? Promise.resolve()).finally(() => config.onOwnerLost?.());
    },
  });
  started.push(() => lease.release());
  const stored = await store.getSetting('clock.offset');
  const offset = Number(stored ?? 0);
  // [MC-11.2] A store from before the shift was kept: its offset is the best guess (exact at 1×).
  const storedShift = Number((await store.getSetting('clock.shift')) ?? stored ?? 0);
  const speedSetting = await store.getSetting('clock.speed');
  const storedSpeed = speedSetting == null ? Number.NaN : Number(speedSetting);
  const clock = new VirtualClock({
    speed: config.speed ?? (Number.isFinite(storedSpeed) && storedSpeed >= 0 ? storedSpeed : 1),
    // A fresh world starts on wall time exactly (no start given): external meters' times are then not
    // shifted at all [MC-11.2].
    start: stored == null ? config.clockStart : Date.now() + (Number.isFinite(offset) ? offset : 0),
    shift: stored == null || !Number.isFinite(storedShift) ? undefined : storedShift,
  });
  const metrics = new Metrics();
  const bus = new EventBus({ now: () => clock.now(), enabled: config.events?.enabled, redact, metrics });
  // [EXT-2] Before anything is emitted: the durable events extension numbers the bus after what the
  // store's earlier runs handed out, the logger and the journal see everything.
  const extensions = await startExtensions(config.extensions ?? new ServiceExtensions().list, {
    bus,
    store,
    clock,
    log: logRedacted,
    metrics,
    role: 'world',
    config: config.events ?? {},
  });
  started.push(() => extensions.stop());
  abandonEvents = () => extensions.abandon();
  const events = extensions.views;
  log = (level, msg, meta) => {
    logRedacted(level, msg, meta);
    // A line whose fact is its own typed event (a refusal) is not told twice.
    if (!meta?.event) bus.emit('log', { level, msg });
  };

  const caps = connectionCaps(config, log, (msg) => bus.emit('log', { level: 'debug', msg }));
  const meterBroker = config.broker
    ? await connectExternalBroker({
        url: config.broker,
        logins: config.brokerLogins,
        watch: { username: ADMIN_MQTT_USERNAME, password: config.adminToken },
        scoped: ha ? [ha] : [],
        // [HA-7] HA turned off: its login made by an earlier run must not keep working.
        retire: ha ? [] : [HA_USERNAME],
        log,
      })
    : embeddedServiceBroker(
        await startBroker({
          host: config.host,
          port: config.mqttPort,
          strictPort: config.strictPort,
          log,
          bus,
          limits: { ...config.mqttLimits, maxConnections: caps.mqtt },
          authenticate: async (username, password) => {
            if (username === service.username)
              return password === service.password ? { kind: 'service' } : null;
            // Whoever holds the admin token may watch the broker, e.g. with mosquitto_sub, but not command
            // a meter: commands (money among them) come only from the service, through the ledger [MC-2.6].
            if (username === ADMIN_MQTT_USERNAME)
              return password === config.adminToken ? { kind: 'admin' } : null;
            // [HA-7] Home Assistant's login: its own topics only, never a meter's.
            if (ha && username === ha.username)
              return password === ha.password
                ? { kind: 'scoped', name: ha.username, publish: ha.publish, subscribe: ha.subscribe }
                : null;
            const hash = await store.mqttSecretHash(username);
            return hash && secretMatches(password, hash) ? { kind: 'meter', deviceId: username } : null;
          },
        }),
        service,
      );
  started.push(() => meterBroker.close());
  const broker = meterBroker.embedded;
  // [PM-4] The embedded broker's clients now (meters, the service, watchers); an external broker has its own metrics.
  if (broker)
    metrics.gauge('meterstack_broker_connections', 'MQTT clients connected to the embedded broker now', () =>
      broker.connectedClients(),
    );

  const world = await World.open({
    store,
    clock,
    mqttUrl: meterBroker.url,
    service: meterBroker.service,
    meterLogins: meterBroker,
    telemetryQos: meterBroker.telemetryQos,
    metrics,
    commandTimeoutMs: config.commandTimeoutMs,
    creditRetryMs: config.creditRetryMs,
    log,
    bus,
    meterSecrets: loadMeterSecrets({ given: config.meterKey, sqliteFile: sqliteFileOf(config.db) }),
  });
  started.push(() => world.close());
  // A meter whose keep-alive ran out goes offline by its will, which alone would read as a dropped socket.
  meterBroker.onMeterLinkTimeout((deviceId) => world.twins.expectOffline(deviceId, 'link_timeout'));
  // [EXT-6] The extensions that talk to meters (Home Assistant) start talking now.
  await extensions.attach({
    broker: { kind: meterBroker.kind, url: meterBroker.url, login: meterBroker.service },
    twins: world.twins,
    version: packageVersion(),
  });
  if (config.demo) await seedDemoWorld(world, config.apiKey);

  const redis = config.redis ? await connectRateLimitRedis({ url: config.redis, log }) : undefined;
  if (redis) started.push(async () => void redis.disconnect());
  const http = await buildHttpApp({
    world,
    adminToken: config.adminToken,
    rateLimit: config.rateLimit,
    limits: { ...config.httpLimits, maxConnections: caps.http },
    events,
    cors,
    hosts,
    redis,
    metrics: extensions.exposition,
    readiness: worldReadiness({ store, twins: world.twins, lease }),
  });
  started.push(() => http.close());
  await http.ready();
  const httpUrl = await listenHttp(http.server, {
    host: config.host,
    port: config.httpPort,
    strict: config.strictPort,
    log,
  });
  await lease.describe({ httpUrl, mqttUrl: meterBroker.url });
  // [MC-12.1] Once HTTP answers: a bridge that sees this knows it reached meterstack, and where its API is.
  try {
    await announceService(meterBroker, {
      v: 1,
      name: 'meterstack',
      version: packageVersion(),
      http: httpUrl,
    });
  } catch (err) {
    log('warn', `MQTT: could not publish the service announcement [MC-12.1]: ${(err as Error).message}`);
  }

  let closing: Promise<void> | null = null;
  running = {
    httpUrl,
    mqttUrl: meterBroker.url,
    adminToken: config.adminToken,
    apiKey: config.apiKey,
    world,
    bus,
    events,
    metrics,
    store,
    broker,
    meterBroker,
    http,
    service: meterBroker.service,
    close() {
      closing ??= (async () => {
        await http.close();
        redis?.disconnect();
        await world.close();
        await meterBroker.close();
        // [EXT-3] In reverse, after the world and the broker: what they emitted last is written.
        try {
          await extensions.stop();
        } finally {
          await lease.release();
          await store.close();
        }
      })();
      return closing;
    },
  };
  return running;
}

/** The SQLite file behind a --db, or undefined (':memory:', PostgreSQL). */
function sqliteFileOf(db: string): string | undefined {
  if (isPostgresUrl(db)) return undefined;
  const path = db.startsWith('sqlite:') ? db.slice('sqlite:'.length) : db;
  return path === ':memory:' ? undefined : path;
}
