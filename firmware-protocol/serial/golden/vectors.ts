// The golden vector files of the line protocol, typed: what the TypeScript codec tests, the C reference's
// generated header and firmware authors all read.

import { readFileSync } from 'node:fs';
import type { Frame } from '../frames.ts';

export interface ValidVector {
  name: string;
  line: string;
  frame: Frame;
  /** True when `line` is exactly what formatFrame writes for `frame`. */
  canonical: boolean;
}

export interface InvalidVector {
  name: string;
  line: string;
  code: string;
  rule: string;
}

/** Reads valid.json and invalid.json from `dir` (default: this folder). */
export function loadVectors(dir: URL = new URL('./', import.meta.url)): {
  valid: ValidVector[];
  invalid: InvalidVector[];
} {
  const load = <T>(file: string): T[] => JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as T[];
  return { valid: load<ValidVector>('valid.json'), invalid: load<InvalidVector>('invalid.json') };
}
