// The golden vectors of the IEC 62056-21 codec, typed: what the codec tests, the fuzz tests and anyone
// writing a reader or a meter read. Bytes are hex of the 7-bit characters (parity stripped, IEC-1.2).

import { readFileSync } from 'node:fs';
import type { ErrorCode, Message } from '../codec.ts';

export interface ValidVector {
  name: string;
  hex: string;
  decoded: Message;
  /** Where the bytes come from: a public project's test or capture, or `meterstack`. */
  source: string;
  /** True when encodeMessage(decoded) gives exactly these bytes. */
  canonical: boolean;
}

export interface InvalidVector {
  name: string;
  hex: string;
  code: ErrorCode;
  rule: string;
  source: string;
}

/** Reads valid.json and invalid.json from `dir` (default: this folder). */
export function loadVectors(dir: URL = new URL('./', import.meta.url)): {
  valid: ValidVector[];
  invalid: InvalidVector[];
} {
  const load = <T>(file: string): T[] => JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as T[];
  return { valid: load<ValidVector>('valid.json'), invalid: load<InvalidVector>('invalid.json') };
}

export const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
