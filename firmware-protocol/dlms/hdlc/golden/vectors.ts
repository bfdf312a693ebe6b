// The HDLC golden vectors, typed: frames.json (bytes and the frame they are) and invalid.json (bytes and
// the error they give). Shared by the codec tests, the fuzz tests and anyone writing a meter's firmware.

import { readFileSync } from 'node:fs';
import type { Control, HdlcAddress, HdlcFrame } from '../frame.ts';
import type { LinkParams } from '../params.ts';

export interface FrameVector {
  name: string;
  /** The frame on the wire, flags included, as space-separated hex bytes. */
  hex: string;
  decoded: { segmented: boolean; dest: HdlcAddress; src: HdlcAddress; control: Control; info: string };
  /** What an SNRM's or UA's information field states [HD-6]. */
  params?: LinkParams;
  source: string;
}

export interface InvalidFrameVector {
  name: string;
  hex: string;
  code: string;
  rule: string;
  source: string;
}

export const fromHex = (hex: string): Uint8Array =>
  Uint8Array.from((hex.replace(/\s+/g, '').match(/../g) ?? []).map((b) => Number.parseInt(b, 16)));

export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');

export function frameFromVector(v: FrameVector): HdlcFrame {
  return { ...v.decoded, info: fromHex(v.decoded.info) };
}

export function loadFrameVectors(dir: URL = new URL('./', import.meta.url)): {
  frames: FrameVector[];
  invalid: InvalidFrameVector[];
} {
  const load = <T>(file: string): T[] => JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as T[];
  return { frames: load<FrameVector>('frames.json'), invalid: load<InvalidFrameVector>('invalid.json') };
}
