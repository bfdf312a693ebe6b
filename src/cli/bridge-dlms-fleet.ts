// `meterstack bridge --dlms --meters <file.json>`: many DLMS meters over TCP in one bridge process
// (src/bridge/dlms/fleet.ts, rules CL-11 in firmware-protocol/dlms/CLIENT.md). The flags only this mode
// has, the meters file read and checked (each problem a usage error naming the entry and field, exit 2).

import { readFileSync } from 'node:fs';
import { runDlmsFleet } from '../bridge/dlms/fleet.ts';
import { DLMS_DEFAULTS } from '../bridge/dlms/index.ts';
import { MAX_FLEET_METERS, parseMetersFile } from '../bridge/dlms/meters-file.ts';
import { brokerUrlProblem } from '../bridge/mqtt-log.ts';
import { log } from './log.ts';
import { positiveInt, type Usage } from './usage.ts';

export const DLMS_FLEET_FLAGS = `  --meters <file.json>  with --dlms: many meters over TCP in this one process, a JSON list of
                        {"device", "tcp": "host:port", "client"?, "server"?, "password"?,
                        "mqttPassword"?, "stateFile"?} (at most ${MAX_FLEET_METERS.toLocaleString('en')}); --client, --password
                        and --poll-s are the defaults for entries without their own; each meter
                        logs in to MQTT as its device with its mqttPassword or METERSTACK_BRIDGE_PASSWORD
  --state-dir <dir>     with --meters: where dlms-<device id>.json state files go (default .)
`;

/** Flags a meters file replaces, or that name one meter's link. */
const NOT_WITH_METERS = ['serial', 'tcp', 'username', 'device', 'state-file', 'server', 'baud', 'record'];

/** Problems shown of a meters file with many; the count says how many more. */
const SHOWN_PROBLEMS = 20;

export async function startDlmsFleetFromCli(input: {
  values: Record<string, string | boolean | undefined>;
  cli: Usage;
}): Promise<{ close(): Promise<void> } | null> {
  const { values, cli } = input;
  const str = (k: string) => values[k] as string | undefined;
  const file = str('meters');
  if (file === undefined) {
    cli.error('--state-dir needs --meters');
    return null;
  }
  for (const flag of NOT_WITH_METERS) {
    if (values[flag] !== undefined) {
      cli.error(`--${flag} names one meter: with --meters, each meter's entry in the file says it`);
      return null;
    }
  }
  for (const flag of ['modbus', 'iec62056-21', 'unit-id', 'poll-ms', 'max-baud', 'address', 'parity-bit7']) {
    if (values[flag] !== undefined) {
      cli.error(`--${flag} is not a --dlms --meters flag`);
      return null;
    }
  }
  const url = str('broker') ?? process.env['METERSTACK_BROKER'];
  if (!url) {
    cli.error('--broker (or METERSTACK_BROKER) is required: the meterstack broker URL');
    return null;
  }
  const brokerProblem = brokerUrlProblem(url);
  if (brokerProblem) {
    cli.error(`--broker ${brokerProblem}`);
    return null;
  }
  const client = cli.number('client', str('client'), positiveInt, 'must be a positive integer');
  const pollS = cli.number('poll-s', str('poll-s'), positiveInt, 'must be a positive integer');
  if (client === null || pollS === null) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    cli.error(
      `--meters ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
    return null;
  }
  const parsed = parseMetersFile(text);
  if ('problems' in parsed) {
    const p = parsed.problems;
    const more = p.length > SHOWN_PROBLEMS ? `\n  … and ${p.length - SHOWN_PROBLEMS} more` : '';
    cli.error(`--meters ${file}:\n  ${p.slice(0, SHOWN_PROBLEMS).join('\n  ')}${more}`);
    return null;
  }
  const password = str('password') ?? (process.env['METERSTACK_DLMS_PASSWORD'] || undefined);
  const onFatal = (reason: string) => {
    log('error', `bridge: ${reason}; stopping (exit 2)`);
    process.exitCode = 2;
    void fleet.close().finally(() => process.exit(2));
  };
  let fleet: ReturnType<typeof runDlmsFleet>;
  try {
    fleet = runDlmsFleet({
      meters: parsed.meters,
      brokerUrl: url,
      mqttPassword: process.env['METERSTACK_BRIDGE_PASSWORD'] ?? '',
      client: client ?? DLMS_DEFAULTS.client,
      ...(password === undefined ? {} : { password }),
      pollMs: (pollS ?? DLMS_DEFAULTS.pollMs / 1000) * 1000,
      stateDir: str('state-dir') ?? process.cwd(),
      log,
      onFatal,
    });
  } catch (err) {
    if (!(err instanceof TypeError) && !/state file/.test((err as Error).message)) throw err;
    cli.error(`--meters ${file}: ${(err as Error).message}`);
    return null;
  }
  return fleet;
}
