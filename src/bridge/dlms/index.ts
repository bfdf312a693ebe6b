// `meterstack bridge --dlms`: a DLMS/COSEM meter on a serial port (HDLC) or at a TCP address (the
// wrapper) presented under the MQTT contract. See firmware-protocol/dlms/CLIENT.md (rules CL-x.y).

import { join } from 'node:path';
import { DEFAULT_SESSION } from '../../../firmware-protocol/dlms/client/session.ts';
import { IST_OFFSET_MIN } from '../../../firmware-protocol/dlms/cosem/rows.ts';
import type { HdlcAddress } from '../../../firmware-protocol/dlms/hdlc/frame.ts';
import { DEVICE_ID_PATTERN } from '../../../firmware-protocol/mqtt/topics.ts';
import type { Log } from '../modbus/mqtt-meter.ts';
import { DlmsBridge } from './bridge.ts';
import { HdlcSerialTransport } from './hdlc-serial.ts';
import { BridgeStateFile } from './state-file.ts';
import { WrapperTcpTransport } from './wrapper-tcp.ts';

export { parseServerAddress } from './server-address.ts';

/** [CL-10.3] IS 15959's meter reader: client SAP 32 with an LLS password. */
export const DLMS_DEFAULTS = { client: 32, baud: 9600, pollMs: 60_000 } as const;

export interface DlmsBridgeOptions {
  /** `modeE`: an optical port signed on in IEC 62056-21 mode E before each association [IEC-10.6]. */
  link:
    | { kind: 'serial'; path: string; baud: number; modeE?: boolean }
    | { kind: 'tcp'; host: string; port: number };
  client: number;
  /** HDLC server address, or the wrapper's destination wPort (its upper, logical device, address). */
  server: HdlcAddress;
  password?: string;
  broker: { url: string; username: string; password: string };
  deviceId: string;
  pollMs?: number;
  /** [CL-9.6] Where the recharge ids and the profile cursor live; default `./dlms-<device id>.json`. */
  stateFile?: string;
  /** [CL-3.1] How long one request waits for its answer. */
  timeoutMs?: number;
  log: Log;
  onFatal?: (reason: string) => void;
  now?: () => number;
}

/** Starts at once and resolves: the meter and the broker may both be missing at first. */
export async function runDlmsBridge(
  opts: DlmsBridgeOptions,
): Promise<{ close(): Promise<void>; bridge: DlmsBridge }> {
  checkDlmsOptions(opts);
  const bridge = startDlmsBridge(opts, loadStateFile(opts));
  return { close: () => bridge.close(), bridge };
}

/** [CL-9.6] The meter's state file, default `./dlms-<device id>.json`; throws when it cannot be read. */
export function loadStateFile(opts: Pick<DlmsBridgeOptions, 'stateFile' | 'deviceId'>): BridgeStateFile {
  return BridgeStateFile.load(opts.stateFile ?? join(process.cwd(), `dlms-${opts.deviceId}.json`));
}

/** Starts a bridge on options already checked (checkDlmsOptions) and its state file loaded. */
export function startDlmsBridge(opts: DlmsBridgeOptions, stateFile: BridgeStateFile): DlmsBridge {
  const pollMs = opts.pollMs ?? DLMS_DEFAULTS.pollMs;
  const link = opts.link;
  const wPort = opts.server.bytes === 1 ? opts.server.value : opts.server.upper;
  const transport =
    link.kind === 'serial'
      ? () =>
          new HdlcSerialTransport({
            path: link.path,
            baud: link.baud,
            modeE: link.modeE === true,
            client: opts.client,
            server: opts.server,
          })
      : () =>
          new WrapperTcpTransport({ host: link.host, port: link.port, client: opts.client, server: wPort });
  const where =
    link.kind === 'serial'
      ? `${link.path} (${link.modeE ? 'IEC 62056-21 mode E, then HDLC at up to' : 'HDLC,'} ${link.baud} baud)`
      : `${link.host}:${link.port} (wrapper)`;
  opts.log(
    'info',
    `${opts.deviceId}: dlms: reading ${where} as client ${opts.client}${opts.password === undefined ? '' : ' (LLS)'} every ${pollMs} ms; state in ${stateFile.path}`,
  );
  const bridge = new DlmsBridge({
    transport,
    session: {
      ...DEFAULT_SESSION,
      ...(opts.password === undefined ? {} : { password: opts.password }),
      timeoutMs: opts.timeoutMs ?? DEFAULT_SESSION.timeoutMs,
    },
    broker: opts.broker,
    deviceId: opts.deviceId,
    pollMs,
    offsetMin: IST_OFFSET_MIN,
    stateFile,
    log: opts.log,
    ...(opts.onFatal ? { onFatal: opts.onFatal } : {}),
    now: opts.now ?? Date.now,
  });
  bridge.start();
  return bridge;
}

/** Throws a TypeError for options that can never work. */
export function checkDlmsOptions(opts: DlmsBridgeOptions): void {
  const pollMs = opts.pollMs ?? DLMS_DEFAULTS.pollMs;
  if (!Number.isInteger(opts.client) || opts.client < 1 || opts.client > 0x7f)
    throw new TypeError(`client must be a client SAP 1..127, got ${opts.client}`);
  if (!DEVICE_ID_PATTERN.test(opts.deviceId))
    throw new TypeError(
      `deviceId must be 1-64 characters of A-Z a-z 0-9 _ . - [MC-1.2], got ${opts.deviceId}`,
    );
  if (!Number.isFinite(pollMs) || pollMs < 100 || pollMs > 86_400_000)
    throw new TypeError(`pollMs must be between 100 and 86400000, got ${pollMs}`);
  if (opts.password !== undefined && (opts.password.length === 0 || opts.password.length > 64))
    throw new TypeError('password must be 1..64 characters');
  if (
    opts.link.kind === 'tcp' &&
    (!Number.isInteger(opts.link.port) || opts.link.port < 1 || opts.link.port > 65535)
  )
    throw new TypeError(`port must be 1..65535, got ${opts.link.port}`);
}
