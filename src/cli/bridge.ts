// `meterstack bridge`: a meter on a serial port <-> the MQTT contract. The line protocol bridge lives in
// src/bridge/; `--modbus <model>` hands over to the Modbus bridge in src/bridge/modbus/.

import { parseArgs } from 'node:util';
import { DEFAULT_BAUD } from '../../firmware-protocol/serial/frames.ts';
import { Bridge } from '../bridge/bridge.ts';
import { runModbusBridge, SDM120_DEFAULTS } from '../bridge/modbus/index.ts';
import { brokerUrlProblem } from '../bridge/mqtt-log.ts';
import { Recorder } from '../serial/recorder.ts';
import { IEC_BRIDGE_FLAGS, IEC_BRIDGE_OPTIONS, iecOnlyFlag, runIecFromCli } from './bridge-iec.ts';
import { LOG_LEVEL_OPTIONS, log, logLevelHelp, logLevelOf, onSignals, setLogLevel } from './log.ts';
import { joinNegativeNumbers, positiveInt, usage } from './usage.ts';

export const BRIDGE_HELP = `usage: meterstack bridge --serial <path> [flags]

Connects one meter on a serial port to the MQTT broker, speaking the line protocol of
firmware-protocol/serial/PROTOCOL.md (or Modbus RTU with --modbus). Runs until stopped (Ctrl-C):
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
${IEC_BRIDGE_FLAGS}${logLevelHelp(24)}`;

const cli = usage('bridge', BRIDGE_HELP);
const usageError = cli.error;

function intOption(name: string, text: string | undefined, fallback: number): number | null {
  const n = cli.number(name, text, positiveInt, 'must be a positive integer');
  return n === undefined ? fallback : n;
}

export async function runBridge(argv: string[]): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      // `--baud -5` is a range error, not "ambiguous": a negative number is the flag's value.
      args: joinNegativeNumbers(argv),
      options: {
        serial: { type: 'string' },
        baud: { type: 'string' },
        broker: { type: 'string' },
        username: { type: 'string' },
        password: { type: 'string' },
        record: { type: 'string' },
        modbus: { type: 'string' },
        'unit-id': { type: 'string' },
        'poll-ms': { type: 'string' },
        ...IEC_BRIDGE_OPTIONS,
        ...LOG_LEVEL_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    return usageError((err as Error).message);
  }
  if (values['help']) {
    process.stdout.write(BRIDGE_HELP);
    return;
  }
  const str = (k: string) => values[k] as string | undefined;
  const level = logLevelOf(values);
  if (typeof level === 'object') return usageError(level.error);
  setLogLevel(level);
  const serial = str('serial');
  // `--device` names the meter as `--username` does (the MQTT username is the device id).
  const username = str('username') ?? str('device');
  if (str('device') !== undefined && username !== str('device')) {
    return usageError('--device and --username name the same thing: give one, or the same id');
  }
  const password = str('password') ?? process.env['METERSTACK_BRIDGE_PASSWORD'] ?? '';
  if (!serial) return usageError('--serial is required');
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
  if (values['iec62056-21'] === true) {
    if (modbus !== undefined) return usageError('--iec62056-21 and --modbus: a meter speaks one of them');
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
