// `meterstack fleet`: a fleet worker, N virtual meters in their own process against a running service
// (src/fleet-worker). Exit codes: 2 for bad flags, a refused admin token or a conflict (the meters are
// hosted elsewhere, or the lease was taken); 1 when the service cannot be reached.

import { hostname } from 'node:os';
import { type MeterModel, MODELS } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { ServiceError } from '../fleet-worker/service-client.ts';
import { FleetWorker, type FleetWorkerOptions } from '../fleet-worker/worker.ts';
import { log, onSignals } from './log.ts';
import { positiveInt, usage } from './usage.ts';

export const FLEET_HELP = `usage: meterstack fleet --url <service> --admin-token <token> --count <n> [flags]

Hosts N virtual meters in this process, against the broker the service names (docs/scale.md). The
service stays the authority for devices, money, the clock and snapshots. Restarted with the same
--name, a worker resumes its meters from their snapshots.

  --url <url>                 the service's HTTP address, e.g. http://127.0.0.1:8080 (required)
  --admin-token <token>       the service's admin token (required; or METERSTACK_ADMIN_TOKEN)
  --count <n>                 meters to host (required)
  --prefix <p>                device id prefix; ids are <p>000001, <p>000002… (default VM)
  --name <w>                  worker name, the key of its lease (default fleet-<prefix>)
  --model basic|full          (default basic)
  --profile <p>               household[:peak-watts] or constant:<watts> (default household:2000)
  --seed <n>                  base seed; meter n gets seed + n, and its own household load from it
  --balance <paise>           opening balance of new meters (default 0)
  --period-s <s>              telemetry period of new meters (default 60)
  --broker-url <mqtt://…>     connect the meters to this broker instead of the one the service names:
                              an edge broker bridged to it (docs/scale.md, "Edge brokers")
  --metrics-port <n>          serve GET /metrics for Prometheus on this port (0: any free one; default
                              none): the worker's meters, lease and clock (docs/metrics.md)
  --metrics-host <h>          address of that listener (default 127.0.0.1)
  --metrics-public            GET /metrics without the admin token (default: it as a bearer token)
  --account <id>              account of new meters (default: the worker's existing one, else a new one)
  --space <id>                space of new meters, in that account (default: the worker's existing
                              one, else a new space "fleet <name>")

Exit codes: 0 stopped by SIGINT/SIGTERM; 1 service unreachable (at start, or for 15 s while running);
2 bad flags, refused token, or a conflict (a live worker holds this name or prefix, or took the lease).
`;

const cli = usage('fleet', FLEET_HELP);

function profileOf(text: string | undefined): FleetWorkerOptions['profile'] | null {
  if (text === undefined) return undefined;
  const [kind, watts] = text.split(':');
  const w = watts === undefined ? Number.NaN : Number(watts);
  if (kind === 'household') return { kind, peak_watts: watts === undefined ? 2000 : w };
  if (kind === 'constant' && Number.isFinite(w) && w >= 0) return { kind, watts: w };
  return null;
}

export async function runFleet(argv: string[]): Promise<void> {
  const values = cli.flags(argv, {
    url: { type: 'string' },
    'admin-token': { type: 'string' },
    count: { type: 'string' },
    prefix: { type: 'string' },
    name: { type: 'string' },
    model: { type: 'string' },
    profile: { type: 'string' },
    seed: { type: 'string' },
    balance: { type: 'string' },
    'period-s': { type: 'string' },
    account: { type: 'string' },
    space: { type: 'string' },
    'broker-url': { type: 'string' },
    'metrics-port': { type: 'string' },
    'metrics-host': { type: 'string' },
    'metrics-public': { type: 'boolean' },
  });
  if (values === null) return;
  const str = (k: string) => values[k] as string | undefined;
  const url = str('url')?.replace(/\/+$/, '');
  const token = str('admin-token') ?? process.env['METERSTACK_ADMIN_TOKEN'];
  if (!url) return cli.error('--url is required');
  if (!/^https?:\/\/[^/]+$/.test(url)) return cli.error(`--url must be http(s)://host:port, got ${url}`);
  if (!token) return cli.error('--admin-token is required');
  if (str('count') === undefined) return cli.error('--count is required');
  const count = cli.number('count', str('count'), (n) => Number.isInteger(n) && n >= 0 && n <= 100_000);
  const seed = cli.number('seed', str('seed'), Number.isSafeInteger);
  const balance = cli.number('balance', str('balance'), Number.isSafeInteger);
  const period = cli.number('period-s', str('period-s'), (n) => Number.isInteger(n) && n >= 1 && n <= 86_400);
  const account = cli.number('account', str('account'), positiveInt);
  const space = cli.number('space', str('space'), positiveInt);
  const metricsPort = cli.number(
    'metrics-port',
    str('metrics-port'),
    (n) => Number.isInteger(n) && n >= 0 && n <= 65535,
  );
  if ([count, seed, balance, period, account, space, metricsPort].includes(null)) return;
  const metricsHost = str('metrics-host') ?? '127.0.0.1';
  if (metricsPort == null && (str('metrics-host') !== undefined || values['metrics-public']))
    return cli.error('--metrics-host and --metrics-public need --metrics-port');
  const model = str('model') ?? 'basic';
  if (!MODELS.includes(model as MeterModel)) return cli.error(`--model must be one of ${MODELS.join(', ')}`);
  const profile = profileOf(str('profile'));
  if (profile === null)
    return cli.error(`--profile must be household[:watts] or constant:<watts>, got ${str('profile')}`);
  const prefix = str('prefix') ?? 'VM';
  if (!/^[A-Za-z0-9_.-]{1,40}$/.test(prefix))
    return cli.error(`--prefix must be 1-40 of A-Z a-z 0-9 _ . -, got ${prefix}`);
  const name = str('name') ?? `fleet-${prefix}`;
  const brokerUrl = str('broker-url');
  if (brokerUrl !== undefined && !/^mqtt:\/\/[^/@]+$/.test(brokerUrl))
    return cli.error(
      `--broker-url must be mqtt://host:port (the meters log in with their own logins), got ${brokerUrl}`,
    );

  const worker = new FleetWorker({
    url,
    adminToken: token,
    name,
    prefix,
    count: count!,
    model: model as MeterModel,
    profile: profile ?? { kind: 'household', peak_watts: 2000 },
    seed: seed ?? undefined,
    balance: balance ?? undefined,
    telemetryPeriodS: period ?? undefined,
    accountId: account ?? undefined,
    spaceId: space ?? undefined,
    brokerUrl,
    pid: process.pid,
    host: hostname(),
    log,
    onLost: (_reason, code) => process.exit(code),
  });
  onSignals(async (signal) => {
    log('info', `${signal}: fleet worker ${name} stopping (meters say goodbye)`);
    await worker.stop();
  });
  try {
    await worker.start();
    if (metricsPort !== undefined && metricsPort !== null) {
      const { serveWorkerMetrics } = await import('../fleet-worker/metrics.ts');
      const { server, url: at } = await serveWorkerMetrics({
        host: metricsHost,
        port: metricsPort,
        adminToken: token,
        public: values['metrics-public'] === true,
        stats: () => worker.stats(),
      });
      server.unref();
      log('info', `fleet worker ${name}: metrics at ${at}`);
    }
  } catch (err) {
    const e = err as Error;
    process.stderr.write(`meterstack fleet: ${e.message}\n`);
    await worker.stop().catch(() => undefined);
    process.exit(err instanceof ServiceError && err.kind === 'unreachable' ? 1 : 2);
  }
}
