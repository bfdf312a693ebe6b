// Flags and METERSTACK_* environment variables of `meterstack serve`, validated into a ServiceConfig.
// A flag wins over its variable; a bad value is a clear error naming both.

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { ServiceConfig } from '../service.ts';

export const SERVE_HELP = `usage: meterstack serve [flags]

  --http-port N       HTTP port (default 8080; the next free one if taken)   METERSTACK_HTTP_PORT
  --mqtt-port N       MQTT port of the embedded broker (default 1883; the next free one if taken)
                                                                            METERSTACK_MQTT_PORT
  --host H            address to listen on (default 127.0.0.1)              METERSTACK_HOST
  --db PATH           SQLite file or :memory: (default ./data/meterstack.db) METERSTACK_DB
                      its directory must exist (only the default ./data is created)
  --admin-token T     token for /sim/v1 and the broker's admin login, at least 8 characters
                      (generated and printed if not given)                  METERSTACK_ADMIN_TOKEN
  --api-key K         the demo account's API key (default msk_demo)         METERSTACK_API_KEY
  --speed N           run the virtual clock N times faster (default 1)      METERSTACK_SPEED
  --rate-limit N      requests per minute per API key, 0 = off (default 100) METERSTACK_RATE_LIMIT
  --command-timeout-ms N  how long to wait for a meter's reply (default 5000) METERSTACK_COMMAND_TIMEOUT_MS
  --no-demo           do not create the demo world                          METERSTACK_NO_DEMO=1
  --strict-port       fail instead of taking the next free port             METERSTACK_STRICT_PORT=1
  -h, --help          this text
`;

export class ConfigError extends Error {}

export const DEFAULT_DB = './data/meterstack.db';

const OPTIONS = {
  'http-port': { type: 'string' },
  'mqtt-port': { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  'admin-token': { type: 'string' },
  'api-key': { type: 'string' },
  speed: { type: 'string' },
  'rate-limit': { type: 'string' },
  'command-timeout-ms': { type: 'string' },
  'no-demo': { type: 'boolean' },
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

export function parseServeConfig(
  argv: string[],
  env: Env,
): { help: true } | { help: false; config: Omit<ServiceConfig, 'log'>; generatedAdminToken: boolean } {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  if (values.help) return { help: true };
  const speedRaw = pick(values, env, 'speed');
  const speed = speedRaw === undefined ? 1 : Number(speedRaw);
  if (!Number.isFinite(speed) || speed < 0 || speed > 1_000_000) {
    throw new ConfigError(`--speed (METERSTACK_SPEED) must be a number from 0 to 1000000, got '${speedRaw}'`);
  }
  const given = pick(values, env, 'admin-token');
  if (given !== undefined && given.length < 8)
    throw new ConfigError('--admin-token (METERSTACK_ADMIN_TOKEN) must be at least 8 characters');
  const apiKey = pick(values, env, 'api-key') ?? 'msk_demo';
  if (apiKey.length < 4 || apiKey.length > 200)
    throw new ConfigError('--api-key must be 4 to 200 characters');
  const db = pick(values, env, 'db') ?? DEFAULT_DB;
  return {
    help: false,
    generatedAdminToken: given === undefined,
    config: {
      host: pick(values, env, 'host') ?? '127.0.0.1',
      httpPort: int(pick(values, env, 'http-port'), 'http-port', 8080, 0, 65535),
      mqttPort: int(pick(values, env, 'mqtt-port'), 'mqtt-port', 1883, 0, 65535),
      db,
      // Only the default's ./data is created; a --db in a missing directory is an error naming it.
      createDbDir: db === DEFAULT_DB,
      adminToken: given ?? `adm_${randomBytes(18).toString('base64url')}`,
      apiKey,
      speed,
      demo: !bool(values, env, 'no-demo'),
      strictPort: bool(values, env, 'strict-port'),
      rateLimit: int(pick(values, env, 'rate-limit'), 'rate-limit', 100, 0, 1_000_000_000),
      commandTimeoutMs: int(pick(values, env, 'command-timeout-ms'), 'command-timeout-ms', 5000, 1, 600_000),
    },
  };
}
