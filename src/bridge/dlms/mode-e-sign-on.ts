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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Signs on in mode E; resolves with the HDLC rate, or rejects naming the rule that stopped it. */
export async function signOnModeE(o: ModeESignOnOptions): Promise<number> {
  const port = new SerialPort({
    path: o.path,
    baudRate: INITIAL_BAUD,
    dataBits: 7,
    parity: 'even',
    stopBits: 1,
    autoOpen: false,
  });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  try {
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
    await write(port, encodeMessage({ kind: 'request', address: '' }));
    const d = decodeMessage(await identified);
    if (!d.ok || d.message.kind !== 'identification') throw new Error('identification lost');
    const choice = chooseModeE(d.message, o.maxBaudChar ?? '5');
    if (!choice.ok) throw new Error(`${choice.reason} [${choice.rule}]`);
    await sleep(REACTION_MS);
    await write(port, choice.optionSelect);
    await sleep(o.settleMs ?? SWITCH_SETTLE_MS);
    return choice.baud;
  } finally {
    if (port.isOpen) await new Promise<void>((r) => port.close(() => r()));
  }
}

/** [IEC-9.1] Written, drained and given its wire time at 300 Bd (a pty drains at once). */
async function write(port: SerialPort, bytes: Uint8Array): Promise<void> {
  const began = Date.now();
  port.write(Buffer.from(bytes));
  await new Promise<void>((r) => port.drain(() => r()));
  const left = wireMs(bytes.length, INITIAL_BAUD) - (Date.now() - began);
  if (left > 0) await sleep(left);
}
