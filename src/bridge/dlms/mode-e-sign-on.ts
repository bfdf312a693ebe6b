// [IEC-10.3, IEC-10.4] The reader's half of IEC 62056-21 protocol mode E on an optical probe, before HDLC:
// at 300 Bd 7E1 the request `/?!`, the meter's identification (it must offer `\2`), the option select
// `ACK 2 Z 2`; then the port is closed and the caller opens it at Z's rate 8N1 for SNRM. The choices are
// firmware-protocol/iec62056-21/mode-e.ts's; this file owns the port and the time.

import { SerialPort } from 'serialport';
import { type BaudChar, INITIAL_BAUD } from '../../../firmware-protocol/iec62056-21/chars.ts';
import { decodeMessage, encodeMessage } from '../../../firmware-protocol/iec62056-21/codec.ts';
import { chooseModeE } from '../../../firmware-protocol/iec62056-21/mode-e.ts';
import { wireMs } from '../../../firmware-protocol/iec62056-21/server.ts';
import { Splitter } from '../../../firmware-protocol/iec62056-21/splitter.ts';

/** [IEC-8.2] The identification must come this long after the request has left. */
export const ANSWER_TIMEOUT_MS = 3_000;
/** [IEC-8.3] The reader's reaction time before its option select. */
export const REACTION_MS = 200;
/** [IEC-10.4] After the option select is on the wire: the meter's time to reopen its port at Z 8N1. */
export const SWITCH_SETTLE_MS = 500;

export interface ModeESignOnOptions {
  path: string;
  /** [IEC-10.3] The fastest rate this reader takes; default '5' (9600 Bd). */
  maxBaudChar?: BaudChar;
  answerTimeoutMs?: number;
  settleMs?: number;
  /** The port; a real SerialPort unless a test gives another with the same surface. */
  createPort?: (settings: PortSettings) => ModeEPort;
}

type PortSettings = ConstructorParameters<typeof SerialPort>[0];
/** What the sign-on uses of a serial port. */
export type ModeEPort = Pick<SerialPort, 'open' | 'on' | 'off' | 'write' | 'drain' | 'close' | 'isOpen'>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Signs on in mode E; resolves with the HDLC rate, or rejects naming the rule that stopped it. */
export async function signOnModeE(o: ModeESignOnOptions): Promise<number> {
  const settings: PortSettings = {
    path: o.path,
    baudRate: INITIAL_BAUD,
    dataBits: 7,
    parity: 'even',
    stopBits: 1,
    autoOpen: false,
  };
  const port = o.createPort ? o.createPort(settings) : new SerialPort(settings);
  // [IEC-10.3] A serial error during the sign-on rejects it (the bridge retries the association); without
  // a listener it would be an unhandled 'error' that ends the process, a whole fleet with it.
  let onError: (err: Error) => void = () => undefined;
  const broken = new Promise<never>((_, reject) => {
    onError = (err: Error) => reject(new Error(`the port failed during the sign-on: ${err.message}`));
  });
  broken.catch(() => undefined); // awaited below in races; never an unhandled rejection on its own
  port.on('error', onError);
  const guard = <T>(p: Promise<T>): Promise<T> => Promise.race([p, broken]);
  try {
    await guard(new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve()))));
    const splitter = new Splitter({ side: 'reader' });
    const identified = new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no identification within ${o.answerTimeoutMs ?? ANSWER_TIMEOUT_MS} ms [IEC-8.2]`),
          ),
        (o.answerTimeoutMs ?? ANSWER_TIMEOUT_MS) + wireMs(5, INITIAL_BAUD),
      );
      port.on('data', (chunk: Buffer) => {
        for (const piece of splitter.push(new Uint8Array(chunk), Date.now())) {
          if (piece.kind !== 'message') continue;
          const m = decodeMessage(piece.bytes);
          if (m.ok && m.message.kind === 'identification') {
            clearTimeout(timer);
            resolve(piece.bytes);
          }
        }
      });
    });
    // Awaited below; an earlier failure must not leave its timeout an unhandled rejection.
    identified.catch(() => undefined);
    await guard(write(port, encodeMessage({ kind: 'request', address: '' })));
    const d = decodeMessage(await guard(identified));
    if (!d.ok || d.message.kind !== 'identification') throw new Error('identification lost');
    const choice = chooseModeE(d.message, o.maxBaudChar ?? '5');
    if (!choice.ok) throw new Error(`${choice.reason} [${choice.rule}]`);
    await guard(sleep(REACTION_MS));
    await guard(write(port, choice.optionSelect));
    await guard(sleep(o.settleMs ?? SWITCH_SETTLE_MS));
    return choice.baud;
  } finally {
    if (port.isOpen) await new Promise<void>((r) => port.close(() => r()));
    port.off('error', onError);
    // The port is done with: a late error (a pending write cancelled by the close) is noise, not a crash.
    port.on('error', () => undefined);
  }
}

/** [IEC-9.1] Written, drained and given its wire time at 300 Bd (a pty drains at once). */
async function write(port: ModeEPort, bytes: Uint8Array): Promise<void> {
  const began = Date.now();
  // The write's own callback: a port that cannot take the bytes rejects the sign-on, not the process.
  const written = new Promise<void>((resolve, reject) =>
    port.write(Buffer.from(bytes), (err) => (err ? reject(err) : resolve())),
  );
  written.catch(() => undefined); // awaited below, after the drain
  await new Promise<void>((resolve, reject) => port.drain((err) => (err ? reject(err) : resolve())));
  await written;
  const left = wireMs(bytes.length, INITIAL_BAUD) - (Date.now() - began);
  if (left > 0) await sleep(left);
}
