import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { haLogin } from '../extensions/home-assistant/login.ts';
import { ServiceExtensions } from '../extensions/index.ts';
import { createLogger } from '../log/logger.ts';
import { secretRedactor, secretsOf } from '../log/redact.ts';
import { startService } from '../service.ts';
import { redact as redactStoreUrl } from '../store/postgres/url.ts';
import { WorldOwnedError } from '../store/world-owner.ts';
import { toIstIsoSeconds } from '../time/ist.ts';
import { DEMO_METERS } from '../world/demo.ts';
import { demoNote } from '../world/demo-notes.ts';
import { FromSnapshotError, seedFromSnapshot } from '../world/from-snapshot.ts';
import { adminTokenOfRun } from './admin-token.ts';
import { banner } from './banner.ts';
import { ConfigError, parseServeConfig, SERVE_HELP } from './config.ts';
import { usageError } from './usage.ts';

export async function runServe(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseServeConfig>;
  try {
    parsed = parseServeConfig(argv, process.env, process.stdout.isTTY);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return usageError('serve', err.message, SERVE_HELP);
  }
  if (parsed.help) {
    process.stdout.write(SERVE_HELP);
    return;
  }
  const { logging } = parsed;
  let { config } = parsed;
  // Not given: the token kept beside the database (spec-decisions 180), else one for this run.
  let adminTokenNote: string | undefined;
  if (parsed.generatedAdminToken) {
    try {
      if (config.createDbDir) mkdirSync(dirname(config.db), { recursive: true });
      const run = adminTokenOfRun(config.db, config.apiOnly === true);
      config = { ...config, adminToken: run.token };
      adminTokenNote = run.note;
    } catch (err) {
      process.stderr.write(`meterstack serve: could not start: ${(err as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
  }
  if (config.apiOnly) {
    const { runApiInstance } = await import('./serve-api.ts');
    return runApiInstance(
      config,
      logging,
      parsed.generatedAdminToken,
      adminTokenNote,
      undefined,
      parsed.metrics,
    );
  }
  if (parsed.fromSnapshot !== undefined) {
    try {
      await seedFromSnapshot(config.db, parsed.fromSnapshot, config.createDbDir ?? false);
    } catch (err) {
      process.stderr.write(`meterstack serve: ${(err as Error).message}\n`);
      process.exitCode = err instanceof FromSnapshotError ? 2 : 1;
      return;
    }
  }
  // [SEC-1] Every line goes through the one redaction, knowing this run's secrets.
  const redact = secretRedactor(secretsOf(config));
  // Every line is pino's, written by the logger extension: before the bus exists (store open, lease)
  // the service's messages directly, then as `log` events with everything else (issue 9 §2).
  // The meters' lines of the start at debug: the banner first, then one line for them all.
  const extensions = new ServiceExtensions({
    log: { logger: createLogger({ ...logging, redact }), quietStart: true },
    ...(config.homeAssistant ? { homeAssistant: { prefix: config.homeAssistant.prefix } } : {}),
    metrics: parsed.metrics.enabled && { public: parsed.metrics.public },
  });
  const say = (level: 'info' | 'warn' | 'error', msg: string) => extensions.logger.say(level, msg);
  let svc: Awaited<ReturnType<typeof startService>>;
  try {
    svc = await startService({
      ...config,
      log: extensions.logger.log,
      extensions: extensions.list,
      // The service stopped itself, its extensions with it (the log flushed).
      onOwnerLost: () => {
        process.exitCode = 2;
        process.exit();
      },
    });
  } catch (err) {
    // [OWNER-1] Another live process owns this database: a usage problem, not a crash.
    const owned = err instanceof WorldOwnedError;
    const where = owned ? `${redactStoreUrl(config.db)}: ` : '';
    process.stderr.write(`meterstack serve: could not start: ${where}${redact((err as Error).message)}\n`);
    process.exitCode = owned ? 2 : 1;
    return;
  }
  // Before the banner: whoever reads it may stop the service at once (a test, a supervisor).
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say('info', `${signal}: shutting down, flushing readings`);
    try {
      await svc.close(); // the logger extension tells a flood's summary as it stops, before the last line
      say('info', 'stopped cleanly');
    } catch (err) {
      say('error', `shutdown: ${(err as Error).message}`);
      process.exitCode = 1;
    }
    process.exit();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.stdout.write(
    banner({
      svc,
      brokerLogins: svc.meterBroker.logins,
      db: redactStoreUrl(config.db), // a PostgreSQL URL's password is never printed
      demo: config.demo,
      generatedAdminToken: parsed.generatedAdminToken,
      ...(adminTokenNote === undefined ? {} : { adminTokenNote }),
      ...(config.homeAssistant ? { homeAssistant: haBannerLine(config, parsed.generatedAdminToken) } : {}),
      clockIso: toIstIsoSeconds(svc.world.clock.now()),
      speed: svc.world.clock.speed,
      demoMeters: DEMO_METERS.map((def) => {
        const deviceId = def.deviceId ?? '';
        const meter = svc.world.meter(deviceId);
        return {
          deviceId,
          note: demoNote({ def, state: meter?.state, online: meter?.online ?? def.online !== false }),
        };
      }),
    }),
  );
  extensions.logger.started();
}

/**
 * [HA-7] [SEC-2] The banner's Home Assistant line: the login's password in full only when nobody else
 * chose it or the admin token it derives from (a generated admin token is printed too).
 */
function haBannerLine(
  config: { adminToken: string; homeAssistant?: { prefix: string; password?: string } },
  generatedAdminToken: boolean,
): { prefix: string; username: string; password: string } {
  const ha = config.homeAssistant!;
  const login = haLogin(ha.prefix, config.adminToken, ha.password);
  const password =
    ha.password !== undefined
      ? '<given by --ha-password>'
      : generatedAdminToken
        ? login.password
        : '<derived from the admin token; pass --ha-password to choose it>';
  return { prefix: ha.prefix, username: login.username, password };
}
