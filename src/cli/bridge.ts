// `meterstack bridge`: a meter on a serial port <-> the MQTT contract. The line protocol bridge lives in
// src/bridge/; `--modbus <model>` hands over to the Modbus bridge in src/bridge/modbus/.

import { DEFAULT_BAUD } from '../../firmware-protocol/serial/frames.ts';
import { Bridge } from '../bridge/bridge.ts';
import { DLMS_DEFAULTS, parseServerAddress, runDlmsBridge } from '../bridge/dlms/index.ts';
import { runModbusBridge, SDM120_DEFAULTS } from '../bridge/modbus/index.ts';
import { brokerUrlProblem } from '../bridge/mqtt-log.ts';
import { Recorder } from '../serial/recorder.ts';
import { DLMS_FLEET_FLAGS, startDlmsFleetFromCli } from './bridge-dlms-fleet.ts';
import { IEC_BRIDGE_FLAGS, IEC_BRIDGE_OPTIONS, iecOnlyFlag, runIecFromCli } from './bridge-iec.ts';
import { applyLogLevel, LOG_LEVEL_OPTIONS, log, logLevelHelp, onSignals } from './log.ts';
import { positiveInt, usage } from './usage.ts';

export const BRIDGE_HELP = `usage: meterstack bridge --serial <path> [flags]
       meterstack bridge --dlms (--serial <path> | --tcp <host:port>) [flags]
       meterstack bridge --dlms --meters <file.json> [flags]

Connects one meter on a serial port to the MQTT broker, speaking the line protocol of
firmware-protocol/serial/PROTOCOL.md (or Modbus RTU with --modbus, or DLMS/COSEM with --dlms:
HDLC on the serial port, the wrapper over TCP). Runs until stopped (Ctrl-C):
the serial port and the broker are reopened whenever they go away (the broker after 1 s, 2 s, 4 s
... at most every 30 s). It says "connected to meterstack" once the service's announcement came
(CONTRACT.md MC-12), and warns when the broker it reached is not meterstack. A broker that refuses
the login (wrong password, unknown device) ends the bridge with exit code 2 and the reason.

  --serial <path>       serial device, e.g. /dev/ttyUSB0 (required)
  --baud <n>            baud rate (default ${DEFAULT_BAUD}, or ${SDM120_DEFAULTS.baud} with --modbus; 8N1)
  --broker <url>        the meterstack MQTT broker, mqtt://host:port as \`npm start\` prints it
                        (required, or METERSTACK_BROKER): no default, so a bridge never reports a
                        meter online through whatever other broker happens to listen on :1883
  --username <id>       the meter's MQTT username = its device id (required)
  --password <secret>   the meter's MQTT password (or METERSTACK_BRIDGE_PASSWORD)
  --record <file>       append the session to <file> as JSON Lines, one line per frame
  --modbus <model>      poll a Modbus RTU meter instead (model: sdm120)
  --unit-id <n>         Modbus unit id (default ${SDM120_DEFAULTS.unitId})
  --poll-ms <n>         Modbus poll period in ms
  --dlms                read a DLMS/COSEM meter (IS 15959 Part 2; firmware-protocol/dlms/CLIENT.md)
  --tcp <host:port>     with --dlms: the meter's TCP address (wrapper; DLMS port 4059), not --serial
  --client <sap>        with --dlms: client SAP (default ${DLMS_DEFAULTS.client}, the meter reader; 16 public)
  --server <addr>       with --dlms: HDLC server address U or U/L (upper/lower; default 1/16), or
                        the meter's wPort over TCP (default 1)
  --password <lls>      with --dlms: the association's LLS password (or METERSTACK_DLMS_PASSWORD);
                        required for client 32. The MQTT password is then METERSTACK_BRIDGE_PASSWORD
  --poll-s <n>          with --dlms: seconds between polls (default ${DLMS_DEFAULTS.pollMs / 1000})
  --state-file <file>   with --dlms: recharge ids and profile cursor (default ./dlms-<device id>.json)
  --iec-mode-e          with --dlms --serial: an optical probe; IEC 62056-21 mode E sign-on at 300 Bd
                        (ACK 2 Z 2) before each association, then HDLC at up to --baud (IEC-10)
${DLMS_FLEET_FLAGS}${IEC_BRIDGE_FLAGS}${logLevelHelp(24)}`;

const cli = usage('bridge', BRIDGE_HELP);
const usageError = cli.error;

function intOption(name: string, text: string | undefined, fallback: number): number | null {
  const n = cli.number(name, text, positiveInt, 'must be a positive integer');
  return n === undefined ? fallback : n;
}

export async function runBridge(argv: string[]): Promise<void> {
  const values = cli.flags(argv, {
    serial: { type: 'string' },
    baud: { type: 'string' },
    broker: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    record: { type: 'string' },
    modbus: { type: 'string' },
    'unit-id': { type: 'string' },
    'poll-ms': { type: 'string' },
    dlms: { type: 'boolean' },
    'iec-mode-e': { type: 'boolean' },
    tcp: { type: 'string' },
    client: { type: 'string' },
    server: { type: 'string' },
    'state-file': { type: 'string' },
    meters: { type: 'string' },
    'state-dir': { type: 'string' },
    ...IEC_BRIDGE_OPTIONS,
    ...LOG_LEVEL_OPTIONS,
  });
  if (values === null) return;
  const str = (k: string) => values[k] as string | undefined;
  if (!applyLogLevel(values, usageError)) return;
  if (values['meters'] !== undefined || values['state-dir'] !== undefined) {
    if (values['dlms'] !== true)
      return usageError(`--${values['meters'] !== undefined ? 'meters' : 'state-dir'} needs --dlms`);
    const fleet = await startDlmsFleetFromCli({ values, cli });
    if (fleet === null) return;
    onSignals(async (signal) => {
      log('info', `${signal}: stopping the bridge`);
      await fleet.close();
    });
    return;
  }
  const serial = str('serial');
  // `--device` names the meter as `--username` does (the MQTT username is the device id).
  const username = str('username') ?? str('device');
  if (str('device') !== undefined && username !== str('device')) {
    return usageError('--device and --username name the same thing: give one, or the same id');
  }
  const dlms = values['dlms'] === true;
  // With --dlms, --password is the meter's LLS secret; the MQTT password comes from the environment.
  const password = (dlms ? undefined : str('password')) ?? process.env['METERSTACK_BRIDGE_PASSWORD'] ?? '';
  if (dlms && serial && str('tcp')) return usageError('--dlms takes --serial or --tcp, not both');
  if (!serial && !(dlms && str('tcp')))
    return usageError(dlms ? '--serial or --tcp is required' : '--serial is required');
  if (values['iec-mode-e'] === true && !(dlms && serial))
    return usageError("--iec-mode-e needs --dlms --serial: mode E is an optical port's sign-on");
  for (const flag of ['tcp', 'client', 'server', 'state-file']) {
    if (!dlms && values[flag] !== undefined) return usageError(`--${flag} needs --dlms`);
  }
  if (!username) return usageError('--username (the device id) is required');
  // [SP-7.5] No default broker: one on :1883 may be a system Mosquitto, not meterstack.
  const url = str('broker') ?? process.env['METERSTACK_BROKER'];
  if (!url) return usageError('--broker (or METERSTACK_BROKER) is required: the meterstack broker URL');
  // Checked here, not where the client opens: a TypeError from there was a stack trace, not a usage error.
  const brokerProblem = brokerUrlProblem(url);
  if (brokerProblem) return usageError(`--broker ${brokerProblem}`);
  const baud = intOption('baud', str('baud'), DEFAULT_BAUD);
  if (baud === null) return;
  const broker = { url, username, password };

  let closer: { close(): Promise<void> } | undefined;
  // [SP-7.5] A refused login is not retried: say why and exit 2.
  const onFatal = (reason: string) => {
    log('error', `bridge: ${reason}; stopping (exit 2)`);
    process.exitCode = 2;
    void (closer?.close() ?? Promise.resolve()).finally(() => process.exit(2));
  };
  const modbus = str('modbus');
  if (dlms) {
    if (modbus !== undefined || values['iec62056-21'] === true)
      return usageError('--dlms, --modbus and --iec62056-21 exclude each other: a meter speaks one of them');
    const started = await startDlms(
      str,
      serial,
      baud,
      values['iec-mode-e'] === true,
      username,
      broker,
      onFatal,
    );
    if (started === null) return;
    closer = started;
  } else if (values['iec62056-21'] === true) {
    if (modbus !== undefined) return usageError('--iec62056-21 and --modbus: a meter speaks one of them');
    if (serial === undefined) return usageError('--serial is required');
    const started = await runIecFromCli({ values, serial, broker, deviceId: username, cli, onFatal });
    if (started === null) return;
    closer = started;
  } else if (iecOnlyFlag(values) !== null) {
    return usageError(`--${iecOnlyFlag(values)} is an --iec62056-21 flag`);
  } else if (modbus !== undefined) {
    if (modbus !== 'sdm120') return usageError(`--modbus: unknown model ${modbus} (known: sdm120)`);
    const unitId = intOption('unit-id', str('unit-id'), SDM120_DEFAULTS.unitId);
    const pollMs = intOption('poll-ms', str('poll-ms'), 0);
    if (unitId === null || pollMs === null) return;
    if (serial === undefined) return usageError('--serial is required');
    try {
      closer = await runModbusBridge({
        serial,
        // The SDM120's factory rate unless told: the line protocol's 115200 would never reach it.
        baud: str('baud') === undefined ? SDM120_DEFAULTS.baud : baud,
        unitId,
        model: 'sdm120',
        broker,
        deviceId: username,
        ...(pollMs ? { pollMs } : {}),
        log,
        onFatal,
      });
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      return usageError(err.message);
    }
  } else {
    const record = str('record');
    if (serial === undefined) return usageError('--serial is required');
    const bridge = new Bridge({
      serial,
      baud,
      broker,
      log,
      recorder: record ? new Recorder(record) : undefined,
      onFatal,
    });
    bridge.start();
    closer = bridge;
  }
  onSignals(async (signal) => {
    log('info', `${signal}: stopping the bridge`);
    await closer.close();
  });
}

/** `--dlms`: checks its flags (usage errors, exit 2) and starts the DLMS bridge; null after a usage error. */
async function startDlms(
  str: (k: string) => string | undefined,
  serial: string | undefined,
  baud: number,
  modeE: boolean,
  deviceId: string,
  broker: { url: string; username: string; password: string },
  onFatal: (reason: string) => void,
): Promise<{ close(): Promise<void> } | null> {
  const client = intOption('client', str('client'), DLMS_DEFAULTS.client);
  const pollS = intOption('poll-s', str('poll-s'), DLMS_DEFAULTS.pollMs / 1000);
  if (client === null || pollS === null) return null;
  const tcp = str('tcp');
  let link: Parameters<typeof runDlmsBridge>[0]['link'];
  if (tcp !== undefined) {
    const m = /^(.+):(\d{1,5})$/.exec(tcp);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535) {
      usageError(`--tcp ${tcp}: expected host:port, e.g. 10.0.0.5:4059`);
      return null;
    }
    link = { kind: 'tcp', host: m[1]!.replace(/^\[|\]$/g, ''), port };
  } else {
    // IS 15959 optical ports and RS-485 run at 9600 baud unless told; the line protocol's rate would not.
    link = {
      kind: 'serial',
      path: serial!,
      baud: str('baud') === undefined ? DLMS_DEFAULTS.baud : baud,
      modeE,
    };
  }
  const serverText = str('server') ?? (tcp !== undefined ? '1' : '1/16');
  const server = parseServerAddress(serverText);
  if (server === null) {
    usageError(
      `--server ${serverText}: expected U or U/L, e.g. 1 or 1/16 (upper 1..127 alone; 0..16383 with a lower)`,
    );
    return null;
  }
  const password = str('password') ?? (process.env['METERSTACK_DLMS_PASSWORD'] || undefined);
  if (client === 32 && password === undefined) {
    usageError('--password (or METERSTACK_DLMS_PASSWORD) is required for client 32, the meter reader (LLS)');
    return null;
  }
  const stateFile = str('state-file');
  try {
    return await runDlmsBridge({
      link,
      client,
      server,
      ...(password === undefined ? {} : { password }),
      broker,
      deviceId,
      pollMs: pollS * 1000,
      ...(stateFile === undefined ? {} : { stateFile }),
      log,
      onFatal,
    });
  } catch (err) {
    if (!(err instanceof TypeError) && !/state file/.test((err as Error).message)) throw err;
    usageError((err as Error).message);
    return null;
  }
}
