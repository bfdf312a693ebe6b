// `--record <file>`: the session as JSON Lines [SP-9], appended as it happens, for the QA replay feature.

import { createWriteStream, type WriteStream } from 'node:fs';

export type RecordEntry =
  | { dir: 'rx'; line: string | null; frame?: unknown; error?: unknown; bytes?: number }
  | { dir: 'tx'; line: string; frame: unknown }
  | { dir: 'mqtt'; topic: string; payload: unknown }
  | { dir: 'link'; event: string; [k: string]: unknown };

export const RECORDING_FORMAT = 'meterstack-bridge-recording/1';

export class Recorder {
  readonly #out: WriteStream;
  readonly #now: () => number;

  constructor(file: string, now: () => number = Date.now) {
    this.#out = createWriteStream(file, { flags: 'a' });
    this.#now = now;
  }

  write(entry: RecordEntry): void {
    this.#out.write(`${JSON.stringify({ ts: this.#now(), ...entry })}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#out.end(() => resolve()));
  }
}
