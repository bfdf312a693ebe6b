// `meterstack meter`: a virtual meter that speaks the serial line protocol on a serial device, as firmware
// would (simulator/serial-meter.ts), or DLMS/COSEM (`--protocol dlms`: HDLC on the serial device and/or
// the wrapper on a TCP port, simulator/dlms-meter.ts). Its clock is real time.

import { type MeterModel, MODELS, MODES, type Mode } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { DEFAULT_BAUD, DEFAULT_KEEPALIVE_S } from '../../firmware-protocol/serial/frames.ts';
import { VirtualClock } from '../../simulator/clock.ts';
import { createMeter } from '../../simulator/meter/index.ts';
import { SerialMeter } from '../../simulator/serial-meter.ts';
import { applyLogLevel, LOG_LEVEL_OPTIONS, log, logLevelHelp, onSignals } from './log.ts';
import {
  DLMS_BAUD,
  DLMS_HELP,
  DLMS_OPTIONS,
  type DlmsFlags,
  dlmsFlags,
  startDlmsMeter,
} from './meter-dlms.ts';
import { protocolArg, runIecMeter } from './meter-iec.ts';
import { positiveInt, usage } from './usage.ts';

export const METER_HELP = `usage: meterstack meter --serial <path> --device <id> [flags]
       meterstack meter --protocol dlms (--serial <path> | --tcp <port>) --device <id> [flags]
       meterstack meter --protocol iec62056-21 --serial <path> --device <id> [flags]

Runs one virtual meter (the simulator's state machine) on a serial device, speaking the line protocol
of firmware-protocol/serial/PROTOCOL.md (pair it with \`meterstack bridge\` on the other end), or
DLMS/COSEM as an IS 15959 Part 2 meter (firmware-protocol/dlms/SERVER.md): HDLC on the serial device,
the wrapper on a TCP port, or both. DLMS clients: 16 public (no password), 32 meter reader (LLS).
Or an IEC 62056-21 optical port, mode C (firmware-protocol/iec62056-21/PROTOCOL.md): its own flags are
listed by \`meterstack meter --protocol iec62056-21 --help\`.

  --protocol line|dlms|iec62056-21
                              what the meter speaks (default line)
  --serial <path>             serial device (required for line)
  --device <id>               device id (required)
  --baud <n>                  baud rate (default ${DEFAULT_BAUD}; dlms ${DLMS_BAUD})
  --model basic|full          (default basic)
  --mode <mode>               prepaid|postpaid|measurement|relay_off (default prepaid)
  --balance <paise>           opening balance (default 0)
  --load-watts <w>            constant load (default 0)
  --energy-kwh <kwh>          opening energy register (default 0)
  --telemetry-period-s <s>    seconds between samples (default 60)
  --keepalive-s <s>           PING period, 1..60 (default ${DEFAULT_KEEPALIVE_S}; line only)
  --firmware <text>           firmware version reported in HELLO (DLMS: 1.0.0.2.0.255)

${DLMS_HELP}${logLevelHelp(30)}`;

const cli = usage('meter', METER_HELP);
const usageError = cli.error;
const num = (name: string, text: string | undefined, check: (n: number) => boolean) =>
  cli.number(name, text, check);

export async function runMeter(argv: string[]): Promise<void> {
  // `--protocol iec62056-21`: the optical port's own command (meter-iec.ts) takes the flags.
  const protocol = protocolArg(argv);
  if (protocol === 'iec62056-21') return runIecMeter(argv);
  if (protocol !== undefined && protocol !== 'line' && protocol !== 'dlms') {
    return usageError(`--protocol must be one of line, dlms, iec62056-21, got ${protocol}`);
  }
  const values = cli.flags(argv, {
    protocol: { type: 'string' },
    serial: { type: 'string' },
    ...DLMS_OPTIONS,
    device: { type: 'string' },
    baud: { type: 'string' },
    model: { type: 'string' },
    mode: { type: 'string' },
    balance: { type: 'string' },
    'load-watts': { type: 'string' },
    'energy-kwh': { type: 'string' },
    'telemetry-period-s': { type: 'string' },
    'keepalive-s': { type: 'string' },
    firmware: { type: 'string' },
    ...LOG_LEVEL_OPTIONS,
  });
  if (values === null) return;
  const str = (k: string) => values[k] as string | undefined;
  if (!applyLogLevel(values, usageError)) return;
  const serial = str('serial');
  const deviceId = str('device');
  let dlms: DlmsFlags | null = null;
  if (protocol === 'dlms') {
    if (values['keepalive-s'] !== undefined) return usageError('--keepalive-s is for --protocol line');
    dlms = dlmsFlags(values, cli);
    if (dlms === null) return;
    if (!serial && dlms.tcp === undefined) return usageError('--protocol dlms needs --serial, --tcp or both');
    if (dlms.modeE && !serial)
      return usageError('--iec-mode-e is an optical port sign-on: it needs --serial');
  } else {
    const dlmsOnly = Object.keys(DLMS_OPTIONS).find((k) => values[k] !== undefined);
    if (dlmsOnly) return usageError(`--${dlmsOnly} is for --protocol dlms`);
    if (!serial) return usageError('--serial is required');
  }
  if (!deviceId) return usageError('--device is required');
  const model = str('model') ?? 'basic';
  const mode = str('mode') ?? 'prepaid';
  if (!MODELS.includes(model as MeterModel)) return usageError(`--model must be one of ${MODELS.join(', ')}`);
  if (!MODES.includes(mode as Mode)) return usageError(`--mode must be one of ${MODES.join(', ')}`);
  const baud = num('baud', str('baud'), positiveInt);
  const balance = num('balance', str('balance'), Number.isSafeInteger);
  const watts = num('load-watts', str('load-watts'), (n) => n >= 0 && n <= 1e6);
  const energy = num('energy-kwh', str('energy-kwh'), (n) => n >= 0);
  const period = num('telemetry-period-s', str('telemetry-period-s'), (n) => n > 0 && n <= 86_400);
  const keepalive = num('keepalive-s', str('keepalive-s'), (n) => Number.isInteger(n) && n >= 1 && n <= 60);
  if ([baud, balance, watts, energy, period, keepalive].includes(null)) return;

  const clock = new VirtualClock();
  let state: ReturnType<typeof createMeter>;
  try {
    state = createMeter(
      {
        deviceId,
        model: model as MeterModel,
        mode: mode as Mode,
        balance: balance ?? undefined,
        energyKwh: energy ?? undefined,
        load: { kind: 'constant', watts: watts ?? 0 },
        telemetryPeriodMs: period ? Math.round(period * 1000) : undefined,
        firmware: str('firmware') ?? (dlms ? 'meterstack-dlms/1.0.0' : 'meterstack-serial/1.0.0'),
      },
      clock.now(),
    );
  } catch (err) {
    return usageError((err as Error).message);
  }
  if (dlms !== null) {
    let started: Awaited<ReturnType<typeof startDlmsMeter>>;
    try {
      started = await startDlmsMeter({
        state,
        now: () => clock.now(),
        serial,
        baud: baud ?? DLMS_BAUD, // [AS-8.1] what --help promises, not the line protocol's rate
        flags: dlms,
      });
    } catch (err) {
      log('error', `meter ${deviceId}: ${(err as Error).message}`);
      process.exitCode = 1;
      return;
    }
    const where = [
      serial && (dlms.modeE ? `IEC 62056-21 mode E, then HDLC, on ${serial}` : `HDLC on ${serial}`),
      started.tcpPort !== undefined && `wrapper on TCP port ${started.tcpPort}`,
    ];
    log('info', `meter ${deviceId} (${model}) speaking DLMS: ${where.filter(Boolean).join(', ')}`);
    onSignals(async (signal) => {
      log('info', `${signal}: meter going away`);
      await started.stop();
    });
    return;
  }
  if (!serial) return;
  const meter = new SerialMeter({
    state,
    serial,
    baud: baud ?? DEFAULT_BAUD,
    now: () => clock.now(),
    log,
    keepaliveS: keepalive ?? DEFAULT_KEEPALIVE_S,
  });
  log('info', `meter ${deviceId} (${model}) on ${serial}`);
  meter.start();
  onSignals(async (signal) => {
    log('info', `${signal}: meter going away (BYE)`);
    await meter.stop();
  });
}
