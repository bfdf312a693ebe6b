// The golden vectors of the A-XDR data and APDU codecs, typed. In the JSON, bytes are written
// {"$hex": "..."} and 64-bit integers {"$bigint": "..."}, so every decoded value is plain JSON.

import { readFileSync } from 'node:fs';
import { fromHex, toHex } from '../axdr.ts';

export interface ValidVector<T = unknown> {
  name: string;
  /** The bytes, hex. */
  hex: string;
  decoded: T;
  /** Where the bytes come from: a public reference, or "meterstack" for our own. */
  source: string;
}

export interface InvalidVector {
  name: string;
  hex: string;
  /** `data` for decodeData, `apdu` for decodeApdu, `date-time` for decodeDateTime. */
  decoder: 'data' | 'apdu' | 'date-time';
  code: string;
  rule: string;
  source: string;
}

/** JSON.parse reviver: {"$hex"} to Uint8Array, {"$bigint"} to bigint. */
export function revive(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (typeof o['$hex'] === 'string' && Object.keys(o).length === 1) return fromHex(o['$hex']);
    if (typeof o['$bigint'] === 'string' && Object.keys(o).length === 1) return BigInt(o['$bigint']);
  }
  return value;
}

/** JSON.stringify replacer, the inverse of revive. */
export function replace(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $hex: toHex(value) };
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  return value;
}

const dir = new URL('./', import.meta.url);
const load = <T>(file: string): T => JSON.parse(readFileSync(new URL(file, dir), 'utf8'), revive) as T;

export function loadVectors(): { data: ValidVector[]; apdu: ValidVector[]; invalid: InvalidVector[] } {
  return { data: load('data.json'), apdu: load('apdu.json'), invalid: load('invalid.json') };
}
