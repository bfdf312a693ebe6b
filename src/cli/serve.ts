import { startService } from '../service.ts';
import { WorldOwnedError } from '../store/world-owner.ts';
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
  const h = `-H 'X-Service-API-Key: ${svc.apiKey}'`;
  const a = `-H 'X-Admin-Token: ${svc.adminToken}'`;
  process.stdout.write(`
  meterstack is running
  HTTP API     ${svc.httpUrl}   (OpenAPI ${svc.httpUrl}/openapi.json, Swagger UI ${svc.httpUrl}/docs)
  MQTT broker  ${svc.mqttUrl}
  database     ${config.db}
  demo API key ${svc.apiKey}
  admin token  ${svc.adminToken}${parsed.generatedAdminToken ? '   (generated; pass --admin-token to fix it)' : ''}
  clock        ${new Date(svc.world.clock.now()).toISOString()} at ${config.speed}x

  try:
    curl -s ${h} ${svc.httpUrl}/api/v2/spaces/
    curl -s ${h} ${svc.httpUrl}/api/v2/devices/MTR-A101/metrics
    curl -s ${a} ${svc.httpUrl}/sim/v1/devices/MTR-B201
    curl -s ${a} -H 'Content-Type: application/json' -d '{"seconds":3600}' ${svc.httpUrl}/sim/v1/clock/advance
    mosquitto_sub -h ${new URL(svc.mqttUrl).hostname} -p ${new URL(svc.mqttUrl).port} -u admin -P '${svc.adminToken}' -t 'meterstack/v1/+/telemetry' -v

`);
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
