// `meterstack serve --api-only`: an API instance (src/api-instance/start.ts) with its banner and signals.

import type { Writable } from 'node:stream';
import { startApiInstance } from '../api-instance/start.ts';
import { ServiceExtensions } from '../extensions/index.ts';
import { createLogger } from '../log/logger.ts';
import { secretRedactor, secretsOf } from '../log/redact.ts';
import type { ServiceConfig } from '../service.ts';
import { redact as redactStoreUrl } from '../store/postgres/url.ts';
import { adminTokenLines } from './banner.ts';
import type { LoggingConfig, MetricsFlags } from './config.ts';

function instanceBanner(i: {
  httpUrl: string;
  mqttUrl: string;
  adminToken: string;
  db: string;
  generated: boolean;
  note: string | undefined;
}): string {
  return [
    '',
    '  meterstack API instance is running (--api-only: no meters of its own)',
    '',
    `  HTTP API     ${i.httpUrl}`,
    '               OpenAPI /openapi.json, Swagger UI /docs',
    ...adminTokenLines(
      i.adminToken,
      i.generated,
      i.note ?? "(generated: /sim/v1's world operations need the world's token)",
    ),
    `  MQTT broker  ${i.mqttUrl}   (shared, the world process's)`,
    `  database     ${i.db}   (shared)`,
    '',
    '',
  ].join('\n');
}

export async function runApiInstance(
  config: Omit<ServiceConfig, 'log' | 'extensions'>,
  logging: LoggingConfig,
  generatedAdminToken: boolean,
  /** What the banner says of a token not given: where it came from (admin-token.ts). */
  adminTokenNote?: string,
  stdout: Writable = process.stdout,
  /** [PM-6] GET /metrics on or off, guarded or public (`--metrics`, `--metrics-public`). */
  metrics: MetricsFlags = { enabled: true, public: false },
): Promise<void> {
  const redact = secretRedactor(secretsOf(config));
  const extensions = new ServiceExtensions({
    log: { logger: createLogger({ ...logging, redact }) },
    metrics: metrics.enabled && { public: metrics.public },
  });
  // Before the bus exists straight to pino, then as `log` events the logger extension writes (issue 9 §2).
  const say = (level: 'info' | 'warn' | 'error', msg: string) => extensions.logger.say(level, msg);
  let svc: Awaited<ReturnType<typeof startApiInstance>>;
  try {
    svc = await startApiInstance({ ...config, log: say, extensions: extensions.list });
  } catch (err) {
    process.stderr.write(`meterstack serve --api-only: could not start: ${redact((err as Error).message)}\n`);
    process.exitCode = 1;
    return;
  }
  // Before the banner: whoever reads it may stop the instance at once.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say('info', `${signal}: shutting down`);
    try {
      await svc.close();
      say('info', 'stopped cleanly');
    } catch (err) {
      say('error', `shutdown: ${(err as Error).message}`);
      process.exitCode = 1;
    }
    process.exit();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  stdout.write(
    instanceBanner({
      httpUrl: svc.httpUrl,
      mqttUrl: svc.mqttUrl,
      adminToken: svc.adminToken,
      db: redactStoreUrl(config.db), // [SEC-2] a PostgreSQL URL's password is never printed
      generated: generatedAdminToken,
      note: adminTokenNote,
    }),
  );
}
