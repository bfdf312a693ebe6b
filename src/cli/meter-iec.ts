// `meterstack meter --protocol iec62056-21`: a virtual meter answering an IEC 62056-21 mode C readout on
// a serial device (simulator/iec-meter.ts). Its clock is real time.

import { type BaudChar, MODE_C_BAUDS } from '../../firmware-protocol/iec62056-21/chars.ts';
import { DEVICE_ADDRESS } from '../../firmware-protocol/iec62056-21/codec.ts';
import { type MeterModel, MODELS, MODES, type Mode } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { VirtualClock } from '../../simulator/clock.ts';
import { DEFAULT_REACTION_MS, IecMeter } from '../../simulator/iec-meter.ts';
import { createMeter } from '../../simulator/meter/index.ts';
import { applyLogLevel, LOG_LEVEL_OPTIONS, log, logLevelHelp, onSignals } from './log.ts';
import { usage } from './usage.ts';

const BAUDS = Object.values(MODE_C_BAUDS);

export const IEC_METER_HELP = `usage: meterstack meter --protocol iec62056-21 --serial <path> --device <id> [flags]

Runs one virtual meter (the simulator's state machine) behind an IEC 62056-21 optical port, protocol
mode C (firmware-protocol/iec62056-21/PROTOCOL.md): it answers the sign-on /?! at 300 Bd 7E1, switches
to the rate the reader selects and sends its readout of OBIS-coded values (energy 1.8.0, power 1.7.0,
voltage 32.7.0, ...), then returns to 300 Bd. Read it with \`meterstack bridge --iec62056-21\`, a D0
reader such as smartmeter-obis, or a hand-held unit.

  --serial <path>             serial device (required)
  --device <id>               device id (required)
  --max-baud <n>              fastest rate offered: ${BAUDS.join(', ')} (default 9600)
  --address <text>            device address the meter also answers /?<address>! to (default none)
  --parity-bit7               the port runs 8N1 and bit 7 carries the even parity (default: 7E1)
  --reaction-ms <ms>          reaction time before each answer, 200..1500 (default 500)
  --model basic|full          (default full)
  --mode <mode>               prepaid|postpaid|measurement|relay_off (default measurement)
  --balance <paise>           opening balance (default 0)
  --load-watts <w>            constant load (default 0)
  --energy-kwh <kwh>          opening energy register (default 0)
${logLevelHelp(30)}`;

const cli = usage('meter', IEC_METER_HELP);
const usageError = cli.error;

/** The value of `--protocol` in argv (either `--protocol x` or `--protocol=x`), or undefined. */
export function protocolArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--protocol') return argv[i + 1];
    if (a.startsWith('--protocol=')) return a.slice('--protocol='.length);
  }
  return undefined;
}

export async function runIecMeter(argv: string[]): Promise<void> {
  const values = cli.flags(argv, {
    protocol: { type: 'string' },
    serial: { type: 'string' },
    device: { type: 'string' },
    'max-baud': { type: 'string' },
    address: { type: 'string' },
    'parity-bit7': { type: 'boolean' },
    'reaction-ms': { type: 'string' },
    model: { type: 'string' },
    mode: { type: 'string' },
    balance: { type: 'string' },
    'load-watts': { type: 'string' },
    'energy-kwh': { type: 'string' },
    ...LOG_LEVEL_OPTIONS,
  });
  if (values === null) return;
  const str = (k: string) => values[k] as string | undefined;
  if (!applyLogLevel(values, usageError)) return;
  const serial = str('serial');
  const deviceId = str('device');
  if (!serial) return usageError('--serial is required');
  if (!deviceId) return usageError('--device is required');
  const model = str('model') ?? 'full';
  const mode = str('mode') ?? 'measurement';
  if (!MODELS.includes(model as MeterModel)) return usageError(`--model must be one of ${MODELS.join(', ')}`);
  if (!MODES.includes(mode as Mode)) return usageError(`--mode must be one of ${MODES.join(', ')}`);
  const address = str('address') ?? '';
  if (!DEVICE_ADDRESS.test(address)) {
    return usageError('--address is up to 32 of 0-9, A-Z, a-z and space (IEC-2.1)');
  }
  const maxBaud = cli.number(
    'max-baud',
    str('max-baud'),
    (n) => BAUDS.includes(n as never),
    `one of ${BAUDS.join(', ')}`,
  );
  const reactionMs = cli.number(
    'reaction-ms',
    str('reaction-ms'),
    (n) => Number.isInteger(n) && n >= 200 && n <= 1500,
    'an integer 200..1500',
  );
  const balance = cli.number('balance', str('balance'), Number.isSafeInteger);
  const watts = cli.number('load-watts', str('load-watts'), (n) => n >= 0 && n <= 1e6);
  const energy = cli.number('energy-kwh', str('energy-kwh'), (n) => n >= 0);
  if ([maxBaud, reactionMs, balance, watts, energy].includes(null)) return;
  const baudChar = (Object.keys(MODE_C_BAUDS) as BaudChar[]).find(
    (c) => MODE_C_BAUDS[c] === (maxBaud ?? 9600),
  )!;

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
        firmware: 'meterstack-iec62056-21/1.0.0',
      },
      clock.now(),
    );
  } catch (err) {
    return usageError((err as Error).message);
  }
  const meter = new IecMeter({
    state,
    serial,
    now: () => clock.now(),
    log,
    baudChar,
    address,
    parityInBit7: values['parity-bit7'] === true,
    reactionMs: reactionMs ?? DEFAULT_REACTION_MS,
  });
  log('info', `meter ${deviceId} (${model}) on ${serial}: IEC 62056-21 mode C, up to ${maxBaud ?? 9600} Bd`);
  meter.start();
  onSignals(async (signal) => {
    log('info', `${signal}: meter stopping`);
    await meter.stop();
  });
}
