// `meterstack bridge --modbus sdm120`: an off-the-shelf Modbus RTU meter presented as a `full` meter
// under the MQTT contract. See README.md for the register map, the fixed state and the refused operations.

import { DEVICE_ID_PATTERN } from '../../../firmware-protocol/mqtt/topics.ts';
import { ModbusBridge } from './bridge.ts';
import type { Log } from './mqtt-meter.ts';
import { ModbusPort } from './port.ts';
import { MODBUS_MODELS, type ModbusModel } from './profile.ts';
import { SDM120_REGISTERS } from './registers.ts';

export { MODBUS_MODELS, type ModbusModel, UNSUPPORTED } from './profile.ts';

/** The SDM120's factory serial settings: 2400 baud, 8 data bits, no parity, 1 stop bit, unit id 1. */
export const SDM120_DEFAULTS = { baud: 2400, unitId: 1 } as const;
/** Seconds between polls unless told; also the `telemetry_period_s` the meter declares [MC-4.2]. */
export const DEFAULT_POLL_MS = 10_000;
/** The SDM120 offers 1200 to 9600 baud; faster rates are for other meters of the same register map. */
const BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

export interface ModbusBridgeOptions {
  serial: string;
  baud: number;
  unitId: number;
  model: ModbusModel;
  broker: { url: string; username: string; password: string };
  deviceId: string;
  pollMs?: number;
  log: Log;
  /** [SP-7.5] The broker refused the login for good; the command line exits 2. */
  onFatal?: (reason: string) => void;
}

/**
 * Starts polling and publishing at once and resolves immediately: the port and the broker may both be
 * absent at first and come later. Throws a TypeError for options that can never work.
 */
export async function runModbusBridge(opts: ModbusBridgeOptions): Promise<{ close(): Promise<void> }> {
  const pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
  check(opts, pollMs);
  const timeoutMs = answerTimeoutMs(opts.baud, pollMs);
  const port = new ModbusPort({ path: opts.serial, baud: opts.baud, unitId: opts.unitId, timeoutMs });
  const where = `${opts.serial} unit ${opts.unitId}`;
  opts.log(
    'info',
    `${opts.deviceId}: modbus: polling ${opts.model} on ${where} at ${opts.baud} 8N1 every ${pollMs} ms`,
  );
  const bridge = new ModbusBridge({
    port,
    registers: SDM120_REGISTERS,
    broker: opts.broker,
    deviceId: opts.deviceId,
    pollMs,
    log: opts.log,
    onFatal: opts.onFatal,
    now: Date.now,
    where,
  });
  bridge.start();
  return { close: () => bridge.close() };
}

/**
 * How long to wait for an answer: at least the time the longest request and answer (8 + 69 bytes of
 * 10 bits) take on the wire plus 100 ms for the meter to turn round, else half a poll period up to 1 s.
 */
export function answerTimeoutMs(baud: number, pollMs: number): number {
  const wireMs = Math.ceil(((8 + 69) * 10 * 1000) / baud);
  return Math.max(wireMs + 100, Math.min(1_000, Math.floor(pollMs / 2)));
}

function check(opts: ModbusBridgeOptions, pollMs: number): void {
  if (!(MODBUS_MODELS as readonly string[]).includes(opts.model)) {
    throw new TypeError(`model must be one of ${MODBUS_MODELS.join(', ')}, got ${String(opts.model)}`);
  }
  if (typeof opts.serial !== 'string' || opts.serial.length === 0) {
    throw new TypeError('serial must be the path of a serial device');
  }
  if (!BAUD_RATES.includes(opts.baud)) {
    throw new TypeError(`baud must be one of ${BAUD_RATES.join(', ')} got ${opts.baud}`);
  }
  if (!Number.isInteger(opts.unitId) || opts.unitId < 1 || opts.unitId > 247) {
    throw new TypeError(`unitId must be a Modbus unit id 1..247, got ${opts.unitId}`);
  }
  if (!DEVICE_ID_PATTERN.test(opts.deviceId)) {
    throw new TypeError(
      `deviceId must be 1-64 characters of A-Z a-z 0-9 _ . - [MC-1.2], got ${opts.deviceId}`,
    );
  }
  if (!Number.isFinite(pollMs) || pollMs < 100 || pollMs > 86_400_000) {
    throw new TypeError(`pollMs must be between 100 and 86400000, got ${pollMs}`);
  }
}
