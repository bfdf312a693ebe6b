// Flags and METERSTACK_* environment variables of `meterstack serve`, validated into a ServiceConfig.
// A flag wins over its variable; a bad value is a clear error naming both.

import { parseArgs } from 'node:util';
import { BROKER_LOGINS, parseBrokerUrl } from '../broker/external.ts';
import { DEFAULT_BROKER_LIMITS } from '../broker/index.ts';
import { DEFAULT_PREFIX, prefixProblem } from '../extensions/home-assistant/topics.ts';
import { DEFAULT_JOURNAL_SIZE } from '../extensions/journal/journal.ts';
import { type CorsOrigins, corsPolicy, parseCorsFlag } from '../http/cors-policy.ts';
import { parseAllowedHosts } from '../http/host-policy.ts';
import { DEFAULT_HTTP_LIMITS } from '../http/limits.ts';
import { defaultLogFormat, LOG_FORMATS, type LogFormat } from '../log/logger.ts';
import { LOG_LEVELS, type LogLevel } from '../log/types.ts';
import type { ServiceConfig } from '../service.ts';
import { newAdminToken } from './admin-token.ts';
import { joinNegativeNumbers } from './usage.ts';

export const SERVE_HELP = `usage: meterstack serve [flags]

  --http-port N       HTTP port (default 8080; the next free one if taken)   METERSTACK_HTTP_PORT
  --mqtt-port N       MQTT port of the embedded broker (default 1883; the next free one if taken)
                                                                            METERSTACK_MQTT_PORT
  --broker URL        an external MQTT broker instead of the embedded one,  METERSTACK_BROKER
                      mqtt://user:password@host:port with the service's login (docs/brokers.md)
  --broker-logins K   who makes meters' logins there: dynsec (default), meterstack
                      through Mosquitto's dynamic security (the URL's login administers
                      it); unmanaged, the broker's own (RabbitMQ, ...)
                                                                            METERSTACK_BROKER_LOGINS
  --api-only          an API instance: v2 and /sim/v1 over the world's   METERSTACK_API_ONLY=1
                      --db and --broker (both required), no meters of its own;
                      world operations go to the world process (docs/scale.md)
  --redis URL         count the rate limit in Redis, shared by API instances,  METERSTACK_REDIS
                      redis://host:port (default: in this process)
  --host H            address to listen on (default 127.0.0.1)              METERSTACK_HOST
  --db PATH|URL       SQLite file or :memory: (default ./data/meterstack.db), or  METERSTACK_DB
                      postgres://user:pass@host:port/db[?schema=NAME] (src/store/README.md)
                      a file's directory must exist (only the default ./data is created)
  --from-snapshot FILE  start with the world of a snapshot file (GET /sim/v1/snapshots/{name}/export);
                      the --db must hold no world yet; no demo world is made
  --admin-token T     token for /sim/v1 and the broker's admin login, at least 8 characters
                      (default: the file <db>.admin-token beside a SQLite --db, made once,
                      mode 0600; else one per run; printed in the banner)  METERSTACK_ADMIN_TOKEN
  --meter-key K       key virtual meters' MQTT passwords are derived from, 16+ characters; default:
                      the file <db>.meter-key beside a SQLite --db (made 0600), else one per
                      process (PostgreSQL: give the same K to every world process)  METERSTACK_METER_KEY
  --api-key K         the demo account's API key (default msk_demo)         METERSTACK_API_KEY
  --speed N           run the virtual clock N times faster                  METERSTACK_SPEED
                      (default: the speed the database's clock last ran at, else 1)
  --rate-limit N      requests per minute per API key, 0 = off (default 100) METERSTACK_RATE_LIMIT
  --command-timeout-ms N  how long to wait for a meter's reply (default 5000) METERSTACK_COMMAND_TIMEOUT_MS
  --allowed-hosts H   Host names answered besides localhost, 127.0.0.0/8, [::1]  METERSTACK_ALLOWED_HOSTS
                      and --host: comma-separated (meters.example.com,192.168.1.20), * for
                      any; another is 421 host_not_allowed (DNS rebinding). With --host
                      0.0.0.0 or :: any IP address is answered too
  --cors ORIGINS      browser pages that may call the APIs: exact origins      METERSTACK_CORS
                      comma-separated (https://app.example.com,localhost), * for any,
                      off for none (default localhost: localhost, 127.0.0.1, [::1], any port)
  --ha-discovery [P]  announce every meter to Home Assistant by MQTT discovery under  METERSTACK_HA_DISCOVERY
                      prefix P (default homeassistant), with a login of its own for HA,
                      meterstack-ha (src/extensions/home-assistant/README.md)
  --ha-password P     that login's password, 8+ characters (default: derived from the admin
                      token, printed in the banner when the admin token is)  METERSTACK_HA_PASSWORD
  --no-demo           do not create the demo world                          METERSTACK_NO_DEMO=1
  --log-format F      pretty or json (default: pretty on a terminal, else json)
                                                                            METERSTACK_LOG_FORMAT
  --log-level L       debug, info, warn or error (default info)             METERSTACK_LOG_LEVEL
  --journal-size N    events the in-memory journal keeps (GET /sim/v1/events) [10000]
                                                                            METERSTACK_JOURNAL_SIZE
  --strict-port       fail instead of taking the next free port             METERSTACK_STRICT_PORT=1

  limits (defaults in brackets; each also METERSTACK_<FLAG>, like the ones above):
  --http-headers-timeout-ms N     408 and close a client whose request head is not in by then [10000]
  --http-request-timeout-ms N     the same for the whole request, head and body [30000]
  --http-keep-alive-timeout-ms N  close an idle keep-alive connection after this long [5000]
  --http-max-connections N        open HTTP connections; at the cap the oldest slow one goes [1024]
  --mqtt-max-connections N        open MQTT connections; at the cap the oldest not logged in goes [20000]
  --mqtt-connect-rate N           new MQTT connections per second [2000]
  --mqtt-max-packet-bytes N       largest MQTT packet (its remaining length) [263168]

  --metrics on|off    GET /metrics for Prometheus and the series it counts (default on;  METERSTACK_METRICS
                      off: /metrics is 404, the event bus is not counted; docs/metrics.md)
  --metrics-public    GET /metrics without the admin token, for a trusted network   METERSTACK_METRICS_PUBLIC=1
                      (default: the admin token as a bearer token, as /sim/v1 is guarded)

  --no-events         benchmarks and diagnosis only: the event bus off (no event log lines, journal,
                      stream or live console; bench/ingest.ts's baseline)   METERSTACK_NO_EVENTS=1
  -h, --help          this text
`;

export class ConfigError extends Error {}

export const DEFAULT_DB = './data/meterstack.db';

const OPTIONS = {
  'http-port': { type: 'string' },
  'mqtt-port': { type: 'string' },
  host: { type: 'string' },
  broker: { type: 'string' },
  'api-only': { type: 'boolean' },
  redis: { type: 'string' },
  'broker-logins': { type: 'string' },
  db: { type: 'string' },
  'from-snapshot': { type: 'string' },
  'admin-token': { type: 'string' },
  'meter-key': { type: 'string' },
  'api-key': { type: 'string' },
  speed: { type: 'string' },
  'rate-limit': { type: 'string' },
  'command-timeout-ms': { type: 'string' },
  cors: { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'http-headers-timeout-ms': { type: 'string' },
  'http-request-timeout-ms': { type: 'string' },
  'http-keep-alive-timeout-ms': { type: 'string' },
  'http-max-connections': { type: 'string' },
  'mqtt-max-connections': { type: 'string' },
  'mqtt-connect-rate': { type: 'string' },
  'mqtt-max-packet-bytes': { type: 'string' },
  'log-format': { type: 'string' },
  'log-level': { type: 'string' },
  'journal-size': { type: 'string' },
  'ha-discovery': { type: 'string' },
  'ha-password': { type: 'string' },
  'no-demo': { type: 'boolean' },
  'no-events': { type: 'boolean' },
  metrics: { type: 'string' },
  'metrics-public': { type: 'boolean' },
  'strict-port': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Env = Record<string, string | undefined>;

function envName(flag: string): string {
  return `METERSTACK_${flag.toUpperCase().replaceAll('-', '_')}`;
}

function pick(values: Record<string, unknown>, env: Env, flag: string): string | undefined {
  const v = values[flag];
  if (typeof v === 'string') return v;
  return env[envName(flag)];
}

function int(raw: string | undefined, flag: string, def: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max) {
    throw new ConfigError(
      `--${flag} (${envName(flag)}) must be a whole number from ${min} to ${max}, got '${raw}'`,
    );
  }
  return n;
}

function bool(values: Record<string, unknown>, env: Env, flag: string): boolean {
  if (values[flag] === true) return true;
  const raw = env[envName(flag)];
  if (raw === undefined || raw === '' || raw === '0' || raw.toLowerCase() === 'false') return false;
  if (raw === '1' || raw.toLowerCase() === 'true') return true;
  throw new ConfigError(`${envName(flag)} must be 1/true or 0/false, got '${raw}'`);
}

function oneOf<T extends string>(raw: string | undefined, flag: string, allowed: readonly T[], def: T): T {
  if (raw === undefined || raw === '') return def;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(`--${flag} (${envName(flag)}) must be one of ${allowed.join(', ')}, got '${raw}'`);
}

function corsOrigins(raw: string | undefined): CorsOrigins | undefined {
  if (raw === undefined) return undefined;
  try {
    const origins = parseCorsFlag(raw);
    corsPolicy(origins);
    return origins;
  } catch (err) {
    throw new ConfigError(`--cors (METERSTACK_CORS): ${(err as Error).message}`);
  }
}

function allowedHosts(raw: string | undefined): '*' | string[] | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseAllowedHosts(raw);
  } catch (err) {
    throw new ConfigError(`--allowed-hosts (METERSTACK_ALLOWED_HOSTS): ${(err as Error).message}`);
  }
}

function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`--redis (METERSTACK_REDIS): not a URL: '${raw}' (expected redis://host:port)`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new ConfigError(
      `--redis (METERSTACK_REDIS): only redis:// URLs are supported, got '${u.protocol}//'`,
    );
  return raw;
}

/** [spec-decisions 88] What an API instance cannot do without, or cannot use. */
function checkApiOnly(
  values: Record<string, unknown>,
  env: Env,
  broker: string | undefined,
  db: string,
): void {
  if (!broker)
    throw new ConfigError(
      '--api-only needs --broker mqtt://user:password@host:port, the broker the world process and every API instance share (the embedded broker lives inside the world process)',
    );
  if (db === ':memory:')
    throw new ConfigError("--api-only needs the world process's database (--db), not :memory:");
  // The world process owns these: an instance has no clock, meters or broker of its own to set.
  for (const flag of ['speed', 'mqtt-port']) {
    if (pick(values, env, flag) !== undefined)
      throw new ConfigError(`--${flag} is the world process's to set, not an --api-only instance's`);
  }
}

function metricsFlags(values: Record<string, unknown>, env: Env): MetricsFlags {
  const enabled = oneOf(pick(values, env, 'metrics'), 'metrics', ['on', 'off'], 'on') === 'on';
  const open = bool(values, env, 'metrics-public');
  if (open && !enabled)
    throw new ConfigError('--metrics-public opens GET /metrics, which --metrics off turns off');
  return { enabled, public: open };
}

function brokerUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  try {
    parseBrokerUrl(raw);
  } catch (err) {
    throw new ConfigError(`${(err as Error).message} (METERSTACK_BROKER)`);
  }
  return raw;
}

/**
 * `--ha-discovery` takes its prefix optionally: alone (last, or before another flag) it means the
 * default prefix. parseArgs has no optional values, so the bare flag is given its default first.
 */
function haDiscoveryArg(argv: string[]): string[] {
  return argv.map((arg, i) =>
    arg === '--ha-discovery' && (i === argv.length - 1 || argv[i + 1]!.startsWith('-'))
      ? `--ha-discovery=${DEFAULT_PREFIX}`
      : arg,
  );
}

/** [HA-1] `--ha-discovery [prefix]` and `--ha-password`; METERSTACK_HA_DISCOVERY=1 means the default prefix. */
function homeAssistant(
  values: Record<string, unknown>,
  env: Env,
  apiOnly: boolean,
): ServiceConfig['homeAssistant'] {
  let prefix = pick(values, env, 'ha-discovery');
  const password = pick(values, env, 'ha-password');
  if (prefix === undefined || prefix === '' || prefix === '0' || prefix.toLowerCase() === 'false') {
    if (password !== undefined) throw new ConfigError('--ha-password goes with --ha-discovery');
    return undefined;
  }
  if (prefix === '1' || prefix.toLowerCase() === 'true') prefix = DEFAULT_PREFIX;
  if (apiOnly)
    throw new ConfigError(
      "--ha-discovery is the world process's (it holds the meters' twins), not an --api-only instance's",
    );
  const problem = prefixProblem(prefix);
  if (problem) throw new ConfigError(`--ha-discovery (METERSTACK_HA_DISCOVERY): ${problem}`);
  if (password !== undefined && (password.length < 8 || password.length > 200))
    throw new ConfigError('--ha-password (METERSTACK_HA_PASSWORD) must be 8 to 200 characters');
  return { prefix, ...(password === undefined ? {} : { password }) };
}

/** [PM-6] The Prometheus extension's flags: on or off, and whether a scrape needs the admin token. */
export interface MetricsFlags {
  enabled: boolean;
  public: boolean;
}

/** How `serve` logs (src/log): the format and the lowest level written. */
export interface LoggingConfig {
  format: LogFormat;
  level: LogLevel;
}

export function parseServeConfig(
  argv: string[],
  env: Env,
  /** Whether stdout is a terminal: it picks the default log format. */
  stdoutIsTty = false,
):
  | { help: true }
  | {
      help: false;
      config: Omit<ServiceConfig, 'log' | 'extensions'>;
      logging: LoggingConfig;
      metrics: MetricsFlags;
      generatedAdminToken: boolean;
      /** `--from-snapshot FILE`: the world to start with (from-snapshot.ts). */
      fromSnapshot?: string;
    } {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: haDiscoveryArg(joinNegativeNumbers(argv)),
      options: OPTIONS,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  if (values.help) return { help: true };
  const speedRaw = pick(values, env, 'speed');
  // Not given: the speed the store's clock last ran at (spec-decisions 54).
  const speed = speedRaw === undefined ? undefined : Number(speedRaw);
  if (speed !== undefined && (!Number.isFinite(speed) || speed < 0 || speed > 1_000_000)) {
    throw new ConfigError(`--speed (METERSTACK_SPEED) must be a number from 0 to 1000000, got '${speedRaw}'`);
  }
  const given = pick(values, env, 'admin-token');
  if (given !== undefined && given.length < 8)
    throw new ConfigError('--admin-token (METERSTACK_ADMIN_TOKEN) must be at least 8 characters');
  const meterKey = pick(values, env, 'meter-key');
  if (meterKey !== undefined && meterKey.length < 16)
    throw new ConfigError('--meter-key (METERSTACK_METER_KEY) must be at least 16 characters');
  const apiKey = pick(values, env, 'api-key') ?? 'msk_demo';
  if (apiKey.length < 4 || apiKey.length > 200)
    throw new ConfigError('--api-key must be 4 to 200 characters');
  const db = pick(values, env, 'db') ?? DEFAULT_DB;
  const broker = brokerUrl(pick(values, env, 'broker'));
  const apiOnly = bool(values, env, 'api-only');
  if (apiOnly) checkApiOnly(values, env, broker, db);
  const fromSnapshot = typeof values['from-snapshot'] === 'string' ? values['from-snapshot'] : undefined;
  if (fromSnapshot !== undefined && apiOnly)
    throw new ConfigError("--from-snapshot is the world process's to give, not an --api-only instance's");
  const limit = (flag: string, def: number, min: number, max = 1_000_000_000) =>
    int(pick(values, env, flag), flag, def, min, max);
  const http = DEFAULT_HTTP_LIMITS;
  const httpLimits = {
    headersTimeoutMs: limit('http-headers-timeout-ms', http.headersTimeoutMs, 1, 3_600_000),
    requestTimeoutMs: limit('http-request-timeout-ms', http.requestTimeoutMs, 1, 3_600_000),
    keepAliveTimeoutMs: limit('http-keep-alive-timeout-ms', http.keepAliveTimeoutMs, 1, 3_600_000),
    maxConnections: limit('http-max-connections', http.maxConnections, 1),
  };
  if (httpLimits.headersTimeoutMs > httpLimits.requestTimeoutMs) {
    throw new ConfigError(
      `--http-headers-timeout-ms (${httpLimits.headersTimeoutMs}) must not exceed --http-request-timeout-ms (${httpLimits.requestTimeoutMs})`,
    );
  }
  const mqtt = DEFAULT_BROKER_LIMITS;
  const mqttLimits = {
    maxConnections: limit('mqtt-max-connections', mqtt.maxConnections, 1),
    connectRate: limit('mqtt-connect-rate', mqtt.connectRate, 1),
    // Below 512 not even a CONNECT with a will fits.
    maxPacketBytes: limit('mqtt-max-packet-bytes', mqtt.maxPacketBytes, 512, 268_435_455),
  };
  return {
    help: false,
    generatedAdminToken: given === undefined,
    ...(fromSnapshot === undefined ? {} : { fromSnapshot }),
    metrics: metricsFlags(values, env),
    logging: {
      format: oneOf(
        pick(values, env, 'log-format'),
        'log-format',
        LOG_FORMATS,
        defaultLogFormat(stdoutIsTty),
      ),
      level: oneOf(pick(values, env, 'log-level'), 'log-level', LOG_LEVELS, 'info'),
    },
    config: {
      host: pick(values, env, 'host') ?? '127.0.0.1',
      httpPort: int(pick(values, env, 'http-port'), 'http-port', 8080, 0, 65535),
      mqttPort: int(pick(values, env, 'mqtt-port'), 'mqtt-port', 1883, 0, 65535),
      broker,
      apiOnly,
      redis: redisUrl(pick(values, env, 'redis')),
      brokerLogins: oneOf(pick(values, env, 'broker-logins'), 'broker-logins', BROKER_LOGINS, 'dynsec'),
      db,
      // Only the default's ./data is created; a --db in a missing directory is an error naming it.
      // An API instance creates nothing: the world process made the store.
      createDbDir: db === DEFAULT_DB && !apiOnly,
      // serve.ts puts the one kept beside the database in its place (admin-token.ts).
      adminToken: given ?? newAdminToken(),
      meterKey,
      apiKey,
      speed,
      // A world from a snapshot is that world alone (spec-decisions 115).
      demo: !apiOnly && fromSnapshot === undefined && !bool(values, env, 'no-demo'),
      strictPort: bool(values, env, 'strict-port'),
      rateLimit: int(pick(values, env, 'rate-limit'), 'rate-limit', 100, 0, 1_000_000_000),
      commandTimeoutMs: int(pick(values, env, 'command-timeout-ms'), 'command-timeout-ms', 5000, 1, 600_000),
      httpLimits,
      mqttLimits,
      homeAssistant: homeAssistant(values, env, apiOnly),
      cors: corsOrigins(pick(values, env, 'cors')),
      allowedHosts: allowedHosts(pick(values, env, 'allowed-hosts')),
      // The ring is allocated whole; its byte bound (64 MiB) holds a few 100,000 ordinary events anyway.
      events: {
        journalSize: limit('journal-size', DEFAULT_JOURNAL_SIZE, 1, 1_000_000),
        enabled: !bool(values, env, 'no-events'),
      },
    },
  };
}
