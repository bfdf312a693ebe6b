// `import { startMeterstack } from 'meterstack'`: a whole meterstack in the caller's process for a
// test, like mongodb-memory-server or testcontainers: in-memory store, ephemeral ports, a frozen
// virtual clock that moves only when the test advances it, and a world declared inline in the
// scenario world schema (src/qa/scenario/schema.ts), refused with located messages when invalid.
//
//   const ms = await startMeterstack({ world: { accounts: [{ name: 'acme', spaces: [{ name: 'Flat 1',
//     meters: [{ id: 'MTR-1', mode: 'prepaid', balance: 500, load_watts: 2000 }] }] }] } });
//   await ms.advance('1h');
//   const r = await ms.client.device('MTR-1');   // typed: r.data.is_online, r.data.balance …
//   await ms.stop();

import type { DestinationStream } from 'pino';
import { type ClientOptions, createMeterstackClient, type MeterstackClient } from '../client/index.ts';
import { haLogin } from '../extensions/home-assistant/login.ts';
import { DEFAULT_PREFIX } from '../extensions/home-assistant/topics.ts';
import { ServiceExtensions } from '../extensions/index.ts';
import { createLogger, defaultLogFormat, type LogFormat } from '../log/logger.ts';
import { secretRedactor, secretsOf } from '../log/redact.ts';
import type { LogLevel } from '../log/types.ts';
import { InvalidWorldError, parseWorld } from '../qa/scenario/load.ts';
import type { WorldInput } from '../qa/scenario/schema.ts';
import { buildWorld } from '../qa/scenario/world.ts';
import { startService } from '../service.ts';
import { type Controls, controlsOf } from './controls.ts';

export { MeterstackError } from '../client/index.ts';
// InvalidWorldError: a `world` refused; ScenarioError, its base, still catches it.
export { InvalidWorldError, ScenarioError } from '../qa/scenario/load.ts';
export type { WorldInput } from '../qa/scenario/schema.ts';
export type { Controls, MeterView } from './controls.ts';

/** The scenario default: a Monday midnight in Asia/Kolkata, so runs agree whatever day they run. */
export const DEFAULT_CLOCK_START = '2026-01-05T00:00:00+05:30';
const DEMO_API_KEY = 'msk_harness_demo';

export interface StartOptions {
  /** Accounts, spaces and meters, as under `world:` in a scenario file. Default: none. */
  world?: WorldInput;
  /** Virtual ms per wall ms. Default 0: the clock moves only by `advance`, so tests are repeatable. */
  speed?: number;
  /** Where the virtual clock starts (ISO 8601 with an offset, or ms). Default DEFAULT_CLOCK_START. */
  clockStart?: string | number;
  /** Seeds each meter's randomness, with its id, as a scenario's `seed` does. Default 1. */
  seed?: number;
  /** Also the demo world (account `demo`, MTR-A101 …). Default false. */
  demo?: boolean;
  /** Requests per minute per API key; default 0 (no limit). */
  rateLimit?: number;
  /** How long the service waits for a meter to answer a command. Default 2,000 ms. */
  commandTimeoutMs?: number;
  /** The admin token; default a fixed one (this service listens on localhost only). */
  adminToken?: string;
  /** Options of `client` and `clientFor` (retry policy, injectable sleep ...). */
  client?: Omit<ClientOptions, 'baseUrl' | 'apiKey' | 'adminToken'>;
  /** The service's own messages (plain text, redacted); default: dropped. */
  log?: (level: string, msg: string) => void;
  /**
   * The service's log as `meterstack serve` writes it (pino lines of every event at or above `level`,
   * the logger extension). Default level 'silent': a test's output stays its own (spec-decisions 169).
   */
  logging?: LoggingOptions;
  /**
   * [HA-1] Home Assistant discovery, as `serve --ha-discovery [prefix] [--ha-password P]`: every meter
   * announced under `prefix` (default `homeassistant`), HA's login in `Meterstack.homeAssistant`.
   */
  homeAssistant?: { prefix?: string; password?: string };
}

export interface LoggingOptions {
  level: LogLevel | 'silent';
  /** Default: pretty on a terminal, JSON lines otherwise, as `serve`. */
  format?: LogFormat;
  /** Where debug and info lines go; default stdout. */
  out?: DestinationStream;
  /** Where warn and error lines go; default stderr. */
  err?: DestinationStream;
}

export interface Meterstack extends Controls {
  /** The HTTP base URL (v2 API, /sim/v1, /openapi.json, the console at /) and the MQTT broker's. */
  httpUrl: string;
  mqttUrl: string;
  keys: {
    /** X-Admin-Token for /sim/v1. */
    admin: string;
    /** Each account's API key (X-Service-API-Key), by account name. */
    accounts: Record<string, string>;
  };
  /** Account ids by name, space ids by ref (the space's `ref`, else its name). */
  accountIds: Record<string, number>;
  spaceIds: Record<string, number>;
  /** A typed client with the first account's key (the demo's with only `demo`) and the admin token. */
  client: MeterstackClient;
  /** A typed client acting as another account. */
  clientFor(account: string, options?: StartOptions['client']): MeterstackClient;
  /** [HA-7] With `homeAssistant`: the discovery prefix and HA's MQTT login on `mqttUrl`. */
  homeAssistant?: { prefix: string; username: string; password: string };
  /** Stops the service: every port, meter and timer it opened. Safe to call twice. */
  stop(): Promise<void>;
}

function clockStartMs(start: string | number): number {
  const ms = typeof start === 'number' ? start : Date.parse(start);
  if (!Number.isFinite(ms))
    throw new TypeError(`clockStart: ${JSON.stringify(start)} is not an ISO 8601 date-time or ms`);
  return ms;
}

export async function startMeterstack(options: StartOptions = {}): Promise<Meterstack> {
  // Everything is checked before a port is opened.
  const world = options.world === undefined ? null : parseWorld(options.world);
  const clockStart = clockStartMs(options.clockStart ?? DEFAULT_CLOCK_START);
  const adminToken = options.adminToken ?? 'harness-admin-token';
  const log = options.log;
  const logging = options.logging ?? { level: 'silent' };
  const ha = options.homeAssistant
    ? { prefix: options.homeAssistant.prefix ?? DEFAULT_PREFIX, password: options.homeAssistant.password }
    : undefined;
  // [EXT-2] The same extensions as `serve`, its logger among them, silent unless asked.
  const extensions = new ServiceExtensions({
    ...(ha ? { homeAssistant: { prefix: ha.prefix } } : {}),
    log: {
      logger:
        logging.level === 'silent'
          ? undefined
          : createLogger({
              format: logging.format ?? defaultLogFormat(process.stdout.isTTY),
              level: logging.level,
              out: logging.out,
              err: logging.err,
              // [SEC-1] as `serve`: every line redacted, this run's secrets known.
              redact: secretRedactor(secretsOf({ adminToken, apiKey: DEMO_API_KEY })),
            }),
    },
  });
  const svc = await startService({
    host: '127.0.0.1',
    httpPort: 0,
    mqttPort: 0,
    db: ':memory:',
    adminToken,
    apiKey: DEMO_API_KEY,
    speed: options.speed ?? 0,
    clockStart,
    demo: options.demo ?? false,
    strictPort: false,
    rateLimit: options.rateLimit ?? 0,
    commandTimeoutMs: options.commandTimeoutMs ?? 2000,
    log: (level, msg, meta) => {
      extensions.logger.log(level, msg, meta);
      log?.(level, msg);
    },
    extensions: extensions.list,
    ...(ha ? { homeAssistant: ha } : {}),
  });
  const closeService = async () => {
    await svc.close();
    // A closed listener's handle is released on the next turn of the loop: after this, none is left.
    await new Promise((resolve) => setImmediate(resolve));
  };
  const clientOf = (apiKey: string | undefined, extra: StartOptions['client']) =>
    createMeterstackClient({ ...options.client, ...extra, baseUrl: svc.httpUrl, apiKey, adminToken });
  const admin = clientOf(undefined, {});
  const accounts = new Map<string, { id: number; key: string }>();
  const spaces = new Map<string, number>();
  try {
    if (options.demo) {
      const demo = await svc.store.accountForApiKey(DEMO_API_KEY, clockStart);
      if (demo) accounts.set(demo.name, { id: demo.id, key: DEMO_API_KEY });
    }
    if (world) {
      const sim = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${svc.httpUrl}/sim/v1${path}`, {
          method,
          headers: { 'x-admin-token': adminToken, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const envelope = (await res.json()) as {
          success: boolean;
          data?: unknown;
          error?: { code?: string; message?: string; detail?: unknown };
        };
        if (!envelope.success) {
          // The service's own words (its detail, else its message), not its JSON.
          const e = envelope.error ?? {};
          const why = typeof e.detail === 'string' ? e.detail : (e.message ?? JSON.stringify(e));
          throw new Error(
            `the service refused ${method} /sim/v1${path}: ${why}${e.code ? ` (${e.code})` : ''}`,
          );
        }
        return envelope.data;
      };
      await buildWorld({ accounts, spaces, sim }, world, options.seed ?? 1, { parallel: true });
    }
  } catch (err) {
    await closeService();
    throw new InvalidWorldError([`world: ${(err as Error).message}`]);
  }
  const first = world?.accounts[0]?.name ?? (options.demo ? 'demo' : undefined);
  const keyOf = (name: string) => {
    const account = accounts.get(name);
    if (!account) throw new TypeError(`no account ${JSON.stringify(name)} in this world`);
    return account.key;
  };
  const client = clientOf(first === undefined ? undefined : keyOf(first), {});
  return {
    httpUrl: svc.httpUrl,
    mqttUrl: svc.mqttUrl,
    keys: {
      admin: adminToken,
      accounts: Object.fromEntries([...accounts].map(([name, a]) => [name, a.key])),
    },
    accountIds: Object.fromEntries([...accounts].map(([name, a]) => [name, a.id])),
    spaceIds: Object.fromEntries(spaces),
    client,
    clientFor: (account, extra) => clientOf(keyOf(account), extra),
    ...controlsOf(admin),
    ...(ha ? { homeAssistant: haLoginView(ha, adminToken) } : {}),
    stop: closeService,
  };
}

function haLoginView(ha: { prefix: string; password?: string }, adminToken: string) {
  const login = haLogin(ha.prefix, adminToken, ha.password);
  return { prefix: ha.prefix, username: login.username, password: login.password };
}
