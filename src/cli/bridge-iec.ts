// `meterstack bridge --iec62056-21`: its flags, checked in the Modbus bridge's style (a usage error is
// exit 2), handed to src/bridge/iec62056-21/.

import { type BaudChar, MODE_C_BAUDS } from '../../firmware-protocol/iec62056-21/chars.ts';
import { DEFAULT_POLL_S, runIecBridge } from '../bridge/iec62056-21/index.ts';
import { log } from './log.ts';
import type { Usage } from './usage.ts';

const BAUDS = Object.values(MODE_C_BAUDS);

/** The help lines of the IEC flags, inside `meterstack bridge --help`. */
export const IEC_BRIDGE_FLAGS = `  --iec62056-21         read an IEC 62056-21 (mode C) optical port instead: --serial, --device
                        (or --username), --broker; the meter is offered as one without a relay
  --poll-s <s>          IEC readout period in seconds, 1..86400 (default ${DEFAULT_POLL_S})
  --device <id>         the device id (the same as --username)
  --max-baud <n>        IEC: fastest rate to switch to, ${BAUDS.join(', ')} (default 9600)
  --address <text>      IEC: the meter's device address, asked as /?<address>! (default none)
  --parity-bit7         IEC: the port runs 8N1 and bit 7 carries the even parity (default 7E1)
`;

export const IEC_BRIDGE_OPTIONS = {
  'iec62056-21': { type: 'boolean' },
  'poll-s': { type: 'string' },
  device: { type: 'string' },
  'max-baud': { type: 'string' },
  address: { type: 'string' },
  'parity-bit7': { type: 'boolean' },
} as const;

/** The first flag given that only `--iec62056-21` takes, or null. */
export function iecOnlyFlag(values: Record<string, string | boolean | undefined>): string | null {
  for (const flag of ['poll-s', 'max-baud', 'address', 'parity-bit7']) {
    if (values[flag] !== undefined) return flag;
  }
  return null;
}

export interface IecCliInput {
  values: Record<string, string | boolean | undefined>;
  serial: string;
  broker: { url: string; username: string; password: string };
  deviceId: string;
  cli: Usage;
  onFatal: (reason: string) => void;
}

/** Starts the IEC bridge, or reports a usage error and returns null. */
export async function runIecFromCli(input: IecCliInput): Promise<{ close(): Promise<void> } | null> {
  const { values, cli } = input;
  const str = (k: string) => values[k] as string | undefined;
  for (const modbusOnly of ['unit-id', 'poll-ms', 'baud', 'record']) {
    if (str(modbusOnly) !== undefined) {
      cli.error(
        `--${modbusOnly} is not an --iec62056-21 flag (the rate is agreed with the meter: --max-baud)`,
      );
      return null;
    }
  }
  const pollS = cli.number(
    'poll-s',
    str('poll-s'),
    (n) => n >= 1 && n <= 86_400,
    'a number of seconds 1..86400',
  );
  const maxBaud = cli.number(
    'max-baud',
    str('max-baud'),
    (n) => BAUDS.includes(n as never),
    `one of ${BAUDS.join(', ')}`,
  );
  if (pollS === null || maxBaud === null) return null;
  const maxBaudChar = (Object.keys(MODE_C_BAUDS) as BaudChar[]).find(
    (c) => MODE_C_BAUDS[c] === (maxBaud ?? 9600),
  )!;
  try {
    return await runIecBridge({
      serial: input.serial,
      broker: input.broker,
      deviceId: input.deviceId,
      ...(pollS === undefined ? {} : { pollS }),
      maxBaudChar,
      address: str('address') ?? '',
      parityInBit7: values['parity-bit7'] === true,
      log,
      onFatal: input.onFatal,
    });
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    cli.error(err.message);
    return null;
  }
}
