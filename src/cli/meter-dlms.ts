// `meterstack meter --protocol dlms`: the flags only a DLMS meter has, and starting one on a serial port
// (HDLC) and/or a TCP port (the wrapper). The meter itself is simulator/dlms-meter.ts.

import type { HdlcAddress } from '../../firmware-protocol/dlms/hdlc/frame.ts';
import { DEFAULT_SERVER_CONFIG } from '../../firmware-protocol/dlms/server/view.ts';
import { MAX_WPDU_APDU } from '../../firmware-protocol/dlms/wrapper/codec.ts';
import { type BaudChar, MODE_C_BAUDS } from '../../firmware-protocol/iec62056-21/chars.ts';
import { HdlcMeterPort } from '../../simulator/dlms-hdlc.ts';
import { DlmsMeter } from '../../simulator/dlms-meter.ts';
import { ModeEMeterPort } from '../../simulator/dlms-mode-e.ts';
import { WrapperMeterServer } from '../../simulator/dlms-tcp.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import { log } from './log.ts';
import type { Usage } from './usage.ts';

/** [AS-8.1] Defaults: logical device 1 (management), physical 16, in a two-byte address (`02 21`). */
export const DLMS_DEFAULTS = { logical: 1, physical: 16, addressSize: 2, inactivityS: 120 } as const;

/** [AS-8.1] The usual speed of an IS 15959 meter's RS-485 port and of the optical port after mode E. */
export const DLMS_BAUD = 9600;

export const DLMS_HELP = `DLMS flags (--protocol dlms; give --serial, --tcp or both):
  --tcp <port>                wrapper (IEC 62056-47) on this TCP port, e.g. 4059
  --server-logical <n>        HDLC upper (logical device) address (default ${DLMS_DEFAULTS.logical})
  --server-physical <n>       HDLC lower (physical) address (default ${DLMS_DEFAULTS.physical})
  --address-size 1|2|4        bytes of the HDLC server address (default ${DLMS_DEFAULTS.addressSize}: 02 21)
  --password <text>           meter reader's LLS password, client 32 (default ${DEFAULT_SERVER_CONFIG.readerPassword})
  --inactivity-s <s>          HDLC inactivity timeout, 0 never (default ${DLMS_DEFAULTS.inactivityS})
  --iec-mode-e                the serial port is an optical port: IEC 62056-21 sign-on at 300 Bd 7E1 first,
                              HDLC after ACK 2 Z 2 at the --baud offered (IEC-10; also a mode C readout)
`;

export const DLMS_OPTIONS = {
  tcp: { type: 'string' },
  'server-logical': { type: 'string' },
  'server-physical': { type: 'string' },
  'address-size': { type: 'string' },
  password: { type: 'string' },
  'inactivity-s': { type: 'string' },
  'iec-mode-e': { type: 'boolean' },
} as const;

export interface DlmsFlags {
  tcp: number | undefined;
  address: HdlcAddress;
  password: string;
  inactivityS: number;
  /** [IEC-10.6] The serial port signs on as an IEC 62056-21 optical port first (mode E). */
  modeE: boolean;
}

type Values = Record<string, string | boolean | undefined>;

/** The DLMS flags checked; null after a usage error. */
export function dlmsFlags(values: Values, cli: Usage): DlmsFlags | null {
  const str = (k: string) => values[k] as string | undefined;
  const int = (lo: number, hi: number) => (n: number) => Number.isInteger(n) && n >= lo && n <= hi;
  const tcp = cli.number('tcp', str('tcp'), int(0, 65_535));
  const size = cli.number('address-size', str('address-size'), (n) => n === 1 || n === 2 || n === 4);
  if (tcp === null || size === null) return null;
  const bytes = (size ?? DLMS_DEFAULTS.addressSize) as 1 | 2 | 4;
  // [HD-3.1] 7 bits a part in one or two bytes, 14 in four; 0 is no-station, the top value all-station.
  const top = bytes === 4 ? 0x3ffd : 0x7d;
  const logical = cli.number('server-logical', str('server-logical'), int(1, top));
  const physical = cli.number('server-physical', str('server-physical'), int(bytes === 1 ? 0 : 1, top));
  const inactivity = cli.number('inactivity-s', str('inactivity-s'), int(0, 86_400));
  if (logical === null || physical === null || inactivity === null) return null;
  if (bytes === 1 && physical !== undefined) {
    cli.error('--server-physical needs --address-size 2 or 4: a one-byte address is the logical device only');
    return null;
  }
  const password = str('password') ?? DEFAULT_SERVER_CONFIG.readerPassword;
  if (password.length === 0 || password.length > 64 || !/^[\x20-\x7e]+$/.test(password)) {
    cli.error('--password must be 1 to 64 printable ASCII characters');
    return null;
  }
  const upper = logical ?? DLMS_DEFAULTS.logical;
  const lower = physical ?? DLMS_DEFAULTS.physical;
  const address: HdlcAddress = bytes === 1 ? { bytes: 1, value: upper } : { bytes, upper, lower };
  return {
    tcp,
    address,
    password,
    inactivityS: inactivity ?? DLMS_DEFAULTS.inactivityS,
    modeE: values['iec-mode-e'] === true,
  };
}

/** Starts the DLMS meter on its links; resolves with what stops it. */
export async function startDlmsMeter(o: {
  state: MeterState;
  now: () => number;
  serial: string | undefined;
  baud: number;
  flags: DlmsFlags;
}): Promise<{ stop: () => Promise<void>; tcpPort: number | undefined }> {
  const baudChar = (Object.keys(MODE_C_BAUDS) as BaudChar[]).find((c) => MODE_C_BAUDS[c] === o.baud);
  if (o.flags.modeE && baudChar === undefined)
    throw new TypeError(
      `--iec-mode-e offers one of ${Object.values(MODE_C_BAUDS).join(', ')} Bd, not --baud ${o.baud}`,
    );
  const meter = new DlmsMeter({
    state: o.state,
    now: o.now,
    log,
    server: {
      readerPassword: o.flags.password,
      maxReceivePduSize: Math.min(DEFAULT_SERVER_CONFIG.maxReceivePduSize, MAX_WPDU_APDU),
    },
  });
  meter.start();
  const hdlc =
    o.serial === undefined
      ? null
      : o.flags.modeE
        ? new ModeEMeterPort({
            meter,
            path: o.serial,
            address: o.flags.address,
            log,
            now: o.now,
            inactivityTimeoutMs: o.flags.inactivityS * 1000,
            baudChar: baudChar ?? '5',
          })
        : new HdlcMeterPort({
            meter,
            path: o.serial,
            baud: o.baud,
            address: o.flags.address,
            log,
            inactivityTimeoutMs: o.flags.inactivityS * 1000,
            now: o.now,
          });
  hdlc?.start();
  const tcp = o.flags.tcp === undefined ? null : new WrapperMeterServer({ meter, port: o.flags.tcp, log });
  const tcpPort = await tcp?.listen();
  const stop = async () => {
    meter.stop();
    await hdlc?.close();
    await tcp?.close();
  };
  return { stop, tcpPort };
}
