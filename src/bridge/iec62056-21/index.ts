// `meterstack bridge --iec62056-21`: a meter's IEC 62056-21 optical port (or an RS-485 / current-loop port
// speaking mode C) read every period and presented under the MQTT contract as a meter without a relay.
// See README.md for the OBIS map and firmware-protocol/iec62056-21/PROTOCOL.md (IEC-8, IEC-9).

import { type BaudChar, isBaudChar } from '../../../firmware-protocol/iec62056-21/chars.ts';
import { DEVICE_ADDRESS } from '../../../firmware-protocol/iec62056-21/codec.ts';
import { DEVICE_ID_PATTERN } from '../../../firmware-protocol/mqtt/topics.ts';
import type { Log } from '../modbus/mqtt-meter.ts';
import { IecBridge } from './bridge.ts';
import { IecSession } from './session.ts';

/** Seconds between readouts unless told; also the `telemetry_period_s` the meter declares [MC-4.2]. */
export const DEFAULT_POLL_S = 30;

export interface IecBridgeOptions {
  serial: string;
  broker: { url: string; username: string; password: string };
  deviceId: string;
  pollS?: number;
  /** [IEC-8.3] The fastest rate to switch to; default '5' (9600 Bd). */
  maxBaudChar?: BaudChar;
  /** [IEC-2.1] The device address to ask for; default none (`/?!`). */
  address?: string;
  /** [IEC-9.2] The port runs 8N1 and bit 7 carries the parity. */
  parityInBit7?: boolean;
  log: Log;
  onFatal?: (reason: string) => void;
}

/** Starts reading at once and resolves immediately; throws a TypeError for options that can never work. */
export async function runIecBridge(opts: IecBridgeOptions): Promise<{ close(): Promise<void> }> {
  const pollS = opts.pollS ?? DEFAULT_POLL_S;
  check(opts, pollS);
  const session = new IecSession({
    path: opts.serial,
    address: opts.address ?? '',
    maxBaudChar: opts.maxBaudChar ?? '5',
    parityInBit7: opts.parityInBit7 ?? false,
    log: opts.log,
    now: Date.now,
  });
  const where = opts.serial + (opts.address ? ` address ${opts.address}` : '');
  opts.log(
    'info',
    `${opts.deviceId}: iec62056-21: reading ${where} every ${pollS} s (mode C, 300 Bd 7E1 sign-on)`,
  );
  const bridge = new IecBridge({
    session,
    broker: opts.broker,
    deviceId: opts.deviceId,
    pollMs: Math.round(pollS * 1000),
    log: opts.log,
    onFatal: opts.onFatal,
    now: Date.now,
    where,
  });
  bridge.start();
  return { close: () => bridge.close() };
}

function check(opts: IecBridgeOptions, pollS: number): void {
  if (typeof opts.serial !== 'string' || opts.serial.length === 0) {
    throw new TypeError('serial must be the path of a serial device');
  }
  if (!DEVICE_ID_PATTERN.test(opts.deviceId)) {
    throw new TypeError(
      `device id must be 1-64 characters of A-Z a-z 0-9 _ . - [MC-1.2], got ${opts.deviceId}`,
    );
  }
  // A readout takes a second or two at 300 Bd: a shorter period just reads back to back.
  if (!Number.isFinite(pollS) || pollS < 1 || pollS > 86_400) {
    throw new TypeError(`poll period must be 1..86400 s, got ${pollS}`);
  }
  if (opts.maxBaudChar !== undefined && !isBaudChar(opts.maxBaudChar)) {
    throw new TypeError(`maxBaudChar must be 0..6, got ${opts.maxBaudChar}`);
  }
  if (opts.address !== undefined && !DEVICE_ADDRESS.test(opts.address)) {
    throw new TypeError('address is up to 32 of 0-9, A-Z, a-z and space (IEC-2.1)');
  }
}
