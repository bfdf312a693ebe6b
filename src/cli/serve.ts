import { startService } from '../service.ts';
import { WorldOwnedError } from '../store/world-owner.ts';
import { banner } from './banner.ts';
import { ConfigError, parseServeConfig, SERVE_HELP } from './config.ts';

function log(level: 'info' | 'warn' | 'error', msg: string): void {
  const line = `${new Date().toISOString()} ${level.padEnd(5)} ${msg}\n`;
  (level === 'info' ? process.stdout : process.stderr).write(line);
}

export async function runServe(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseServeConfig>;
  try {
    parsed = parseServeConfig(argv, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`meterstack serve: ${err.message}\n\n${SERVE_HELP}`);
    process.exitCode = 2;
    return;
  }
  if (parsed.help) {
    process.stdout.write(SERVE_HELP);
    return;
  }
  const { config } = parsed;
  let svc: Awaited<ReturnType<typeof startService>>;
  try {
    svc = await startService({
      ...config,
      log,
      onOwnerLost: () => {
        process.exitCode = 2;
        process.exit();
      },
    });
  } catch (err) {
    // [OWNER-1] Another live process owns this database: a usage problem, not a crash.
    const owned = err instanceof WorldOwnedError;
    const where = owned ? `${config.db}: ` : '';
    process.stderr.write(`meterstack serve: could not start: ${where}${(err as Error).message}\n`);
    process.exitCode = owned ? 2 : 1;
    return;
  }
  process.stdout.write(
    banner({
      svc,
      db: config.db,
      demo: config.demo,
      generatedAdminToken: parsed.generatedAdminToken,
      clockIso: new Date(svc.world.clock.now()).toISOString(),
      speed: svc.world.clock.speed,
    }),
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log('info', `${signal}: shutting down, flushing readings`);
    try {
      await svc.close();
      log('info', 'stopped cleanly');
    } catch (err) {
      log('error', `shutdown: ${(err as Error).message}`);
      process.exitCode = 1;
    }
    process.exit();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
