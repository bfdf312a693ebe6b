// `meterstack replay <trace>`: plays a trace as a meter against a running meterstack (--url) or one
// started here (--db). See fixtures/README.md for the trace formats.

import { parseArgs } from 'node:util';
import { MODES } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { energyKwhAtWh, RESOLUTIONS } from '../../simulator/meter/index.ts';
import { brokerUrlProblem } from '../bridge/mqtt-log.ts';
import { didYouMean } from '../qa/did-you-mean.ts';
import { exportStoredHistory, openExportFile } from '../qa/replay/export.ts';
import { DEFAULT_KNOWN_DEVICES } from '../qa/replay/known-devices.ts';
import { progressReporter } from '../qa/replay/progress.ts';
import { type Pace, replay, traceTime } from '../qa/replay/replay.ts';
import { embeddedTarget, type Target, TargetError } from '../qa/replay/target.ts';
import { ReplayCollector } from '../qa/report/replay-collect.ts';
import { reportPathProblem, sourceHref, writeReport } from '../qa/report/write.ts';
import { loadTrace } from '../qa/traces/load.ts';
import { TraceError } from '../qa/traces/types.ts';
import { kwhText } from '../units/readable.ts';
import { joinNegativeNumbers, usageError } from './usage.ts';

export const REPLAY_HELP = `usage: meterstack replay <trace.csv|trace.jsonl> [flags]

Plays a trace as a meter over MQTT: an external device is provisioned through /sim/v1 and this
process is its firmware, publishing the trace's readings with the trace's timestamps.

where:
  --url <http://host:port>    a running meterstack (needs --admin-token); default: start one here
  --admin-token <token>       its admin token (or METERSTACK_ADMIN_TOKEN)
  --db <file>                 embedded service: its database (default: in memory)
  --keep-serving              embedded service: keep it running after the replay (Ctrl-C stops)
  --mqtt-url <mqtt://…>       the broker, when not the one the service names

device:
  --device <id>               device id (default: the trace's device_id, else one is made); when the
                              service has it already (a trace replayed again) it is played again, if
                              it is external, of the trace's model and in the account asked for
  --mqtt-password <secret>    its MQTT password (default: remembered from when a replay made it)
  --known-devices <file>      where made devices are remembered (default ~/.meterstack/replay-devices.json;
                              none for an in-memory service)
  --account <id> --space <id> put the new device there (default: a new account and space)
  --api-key <key>             a v2 key of that account, to check the history at the end

meter (default: the trace's header, else postpaid, balance 0, EB 800, DG 2000 paise/kWh):
  --mode <mode>  --balance <paise>  --eb-tariff <paise>  --dg-tariff <paise>  --active-tariff <1|2>

pace:
  --speed <N>                 trace time N× faster than real time (default 1)
  --instant                   as fast as the broker takes it, 1000 samples a message
  --loop                      start again at the end, continuing in time and energy (Ctrl-C stops)
  --loops <N>                 play N times

output:
  --export <out.csv>          after the replay, what the service stored for the meter, as
                              GET /sim/v1/devices/{id}/history.csv writes it (15-minute intervals)
  --report <file>             also write an HTML report there: the meter's power, energy, balance and
                              relay over trace time, with the trace's events (one file, no network)

Progress (stderr) is printed every second: trace time covered, samples/s, ETA. Ctrl-C stops the
replay cleanly and exits 130.
`;

/** A flag's value that cannot be: a usage error (exit 2), told before anything starts. */
class UsageProblem extends Error {}

function int(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageProblem(`--${name} must be a whole number, got ${v}`);
  return Number(v);
}

/** The flags that need no service: checked first, so a typo costs no start. */
function checkFlags(v: ReturnType<typeof parse>['values'], positionals: string[]) {
  if (positionals.length === 0) throw new UsageProblem('give the trace file to play (CSV or JSON Lines)');
  if (positionals.length > 1)
    throw new UsageProblem(`give one trace file, got ${positionals.length}: ${positionals.join(' ')}`);
  if (v.mode !== undefined && !MODES.includes(v.mode as never))
    throw new UsageProblem(
      `--mode must be one of ${MODES.join(', ')}, got ${v.mode}${didYouMean(v.mode, MODES)}`,
    );
  const speed = v.speed === undefined ? 1 : Number(v.speed);
  if (!(speed > 0) || !Number.isFinite(speed))
    throw new UsageProblem(`--speed must be a number greater than 0, got ${v.speed}`);
  const loops = int(v.loops, 'loops');
  if (loops !== undefined && loops < 1) throw new UsageProblem(`--loops must be 1 or more, got ${v.loops}`);
  // As the bridge's --broker: a URL without mqtt:// is a usage error here, not a TypeError later.
  const mqttUrl = v['mqtt-url'];
  const mqttProblem = mqttUrl === undefined ? null : brokerUrlProblem(mqttUrl);
  if (mqttProblem) throw new UsageProblem(`--mqtt-url ${mqttProblem}`);
  const activeTariff = int(v['active-tariff'], 'active-tariff');
  if (activeTariff !== undefined && activeTariff !== 1 && activeTariff !== 2)
    throw new UsageProblem(`--active-tariff must be 1 or 2, got ${v['active-tariff']}`);
  return {
    file: positionals[0]!,
    speed,
    loops: v.loop ? Number.POSITIVE_INFINITY : (loops ?? 1),
    accountId: int(v.account, 'account'),
    spaceId: int(v.space, 'space'),
    meter: {
      mode: v.mode,
      balance: int(v.balance, 'balance'),
      ebTariff: int(v['eb-tariff'], 'eb-tariff'),
      dgTariff: int(v['dg-tariff'], 'dg-tariff'),
      activeTariff: activeTariff as 1 | 2 | undefined,
    },
  };
}

export async function runReplay(argv: string[]): Promise<void> {
  let v: ReturnType<typeof parse>['values'];
  let f: ReturnType<typeof checkFlags>;
  try {
    const a = parse(argv);
    v = a.values;
    if (v.help) {
      process.stdout.write(REPLAY_HELP);
      return;
    }
    f = checkFlags(v, a.positionals);
  } catch (err) {
    return usageError('replay', (err as Error).message, REPLAY_HELP);
  }
  const reportProblem = v.report === undefined ? null : await reportPathProblem(v.report);
  if (reportProblem) return usageError('replay', reportProblem, REPLAY_HELP);
  let target: Target | null = null;
  try {
    const pace: Pace = v.instant ? { kind: 'instant' } : { kind: 'speed', speed: f.speed };
    const trace = await loadTrace(f.file);
    const exportFile = v.export === undefined ? null : await openExportFile(v.export);
    if (v.url) {
      const token = v['admin-token'] ?? process.env['METERSTACK_ADMIN_TOKEN'];
      if (!token) throw new TargetError('--url needs --admin-token (or METERSTACK_ADMIN_TOKEN)');
      const httpUrl = v.url.replace(/\/$/, '');
      target = { httpUrl, adminToken: token, identity: httpUrl, close: async () => {} };
    } else {
      target = await embeddedTarget({ db: v.db ?? ':memory:' });
    }
    const abort = new AbortController();
    // The first Ctrl-C stops the replay cleanly (the report, then exit 130); a second one, at once.
    process.once('SIGINT', () => {
      abort.abort();
      process.stderr.write('\nmeterstack replay: interrupted; stopping (Ctrl-C again to quit at once)\n');
    });
    const progress = progressReporter(process.stderr);
    const collector = v.report === undefined ? null : new ReplayCollector(trace.model);
    const started = performance.now();
    const r = await replay({
      trace,
      target,
      mqttUrl: v['mqtt-url'],
      device: {
        deviceId: v.device ?? trace.meta.deviceId,
        mqttPassword: v['mqtt-password'],
        accountId: f.accountId,
        spaceId: f.spaceId,
        apiKey: v['api-key'],
        knownDevices: v['known-devices'] ?? DEFAULT_KNOWN_DEVICES,
      },
      pace,
      loops: f.loops,
      meter: f.meter,
      onProgress: progress.update,
      signal: abort.signal,
      ...(collector && { watch: collector }),
    });
    progress.end();
    const secs = (performance.now() - started) / 1000;
    const d = r.device;
    const exported = exportFile && (await exportStoredHistory(target, d.deviceId, exportFile));
    if (collector && v.report !== undefined)
      await writeReport(v.report, {
        kind: 'replay',
        title: `${trace.file} as ${d.deviceId}`,
        writtenAt: Date.now(),
        wallMs: secs * 1000,
        runs: [
          collector.result({
            file: trace.file,
            href: sourceHref(v.report, trace.file),
            name: `${trace.file} (${trace.format}) as ${d.deviceId}`,
            seed: null,
            vtStart: trace.firstTs,
            vtEnd: Math.max(trace.firstTs, r.lastTs),
            setupError: null,
            notes: [
              `${r.samples} samples, ${r.events} events${r.loops > 1 ? `, ${r.loops} passes` : ''}${r.interrupted ? ', interrupted' : ''}`,
              `energy ${energyKwhAtWh(r.energyMwms)} kWh, balance ${r.balance} paise (${r.mode})`,
            ],
          }),
        ],
      });
    // An embedded service stops with the replay: its URL and the device's secrets would be stale.
    const serving = Boolean(v.url) || Boolean(v['keep-serving']);
    process.stdout.write(
      [
        `${r.interrupted ? `interrupted at trace time ${traceTime(r.lastTs)}, having played` : 'replayed'} ${trace.file} (${trace.format}): ${r.samples} samples, ${r.events} events${r.loops > 1 ? `, ${r.loops} passes` : ''} in ${secs.toFixed(2)} s`,
        `device   ${d.deviceId}${d.accountId === null ? '' : ` (account ${d.accountId}, space ${d.spaceId})`}${d.created ? (serving ? `, MQTT password ${d.password}` : '') : ', played again'}`,
        ...(serving && d.created && d.apiKey ? [`API key  ${d.apiKey}`] : []),
        serving
          ? `service  ${target.httpUrl}`
          : 'service  embedded, stopped with the replay (--keep-serving keeps it running)',
        // As the meter reports it [MC-7.7]: at its declared resolution, not the register's binary fraction.
        `energy   ${kwhText(energyKwhAtWh(r.energyMwms), RESOLUTIONS[trace.model].energy)}`,
        `balance  ${r.balance} paise (${r.mode})`,
        r.buffered > 0
          ? `the trace ends offline: ${r.buffered} samples stay in the meter's buffer`
          : r.verified
            ? 'history  the last sample reads back through the v2 API'
            : r.interrupted
              ? 'history  not checked (interrupted)'
              : 'history  not checked (no API key of the account)',
        ...(exported
          ? [
              `export   ${v.export}: ${exported.rows} rows at 15m${exported.from ? `, ${exported.from} to ${exported.to} (IST)` : ''}`,
            ]
          : []),
        '',
      ].join('\n'),
    );
    if (r.interrupted) {
      process.exitCode = 130;
      return;
    }
    if (v['keep-serving'] && !v.url) {
      process.stdout.write('serving; Ctrl-C stops\n');
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } catch (err) {
    if (!(err instanceof TraceError || err instanceof TargetError)) throw err;
    process.stderr.write(`meterstack replay: ${err.message}\n`);
    process.exitCode = err instanceof TraceError ? 2 : 1;
  } finally {
    await target?.close();
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: joinNegativeNumbers(argv),
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      url: { type: 'string' },
      'admin-token': { type: 'string' },
      db: { type: 'string' },
      'keep-serving': { type: 'boolean' },
      'mqtt-url': { type: 'string' },
      device: { type: 'string' },
      'mqtt-password': { type: 'string' },
      account: { type: 'string' },
      space: { type: 'string' },
      'api-key': { type: 'string' },
      'known-devices': { type: 'string' },
      mode: { type: 'string' },
      balance: { type: 'string' },
      'eb-tariff': { type: 'string' },
      'dg-tariff': { type: 'string' },
      'active-tariff': { type: 'string' },
      export: { type: 'string' },
      speed: { type: 'string' },
      instant: { type: 'boolean' },
      loop: { type: 'boolean' },
      loops: { type: 'string' },
      report: { type: 'string' },
    },
  });
}
