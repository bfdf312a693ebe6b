// The test's end of a serial line: a scripted meter (or bridge) that writes raw bytes and frames and
// collects the frames that come back.

import { SerialPort } from 'serialport';
import { formatFrame, parseLine } from '../../firmware-protocol/serial/codec.ts';
import type { Frame } from '../../firmware-protocol/serial/frames.ts';
import { LineSplitter } from '../../firmware-protocol/serial/splitter.ts';
import { until } from './helpers.ts';

/**
 * The test's end of the wire: writes raw bytes, collects and parses what comes back. `from` counts
 * lines (`wire.lines.length` before the action), as a frame is looked for among the lines after it.
 */
export class Wire {
  readonly port: SerialPort;
  readonly lines: string[] = [];
  readonly #splitter = new LineSplitter();

  constructor(path: string) {
    this.port = new SerialPort({ path, baudRate: 115_200 });
    this.port.on('data', (chunk: Buffer) => {
      for (const p of this.#splitter.push(chunk)) if (p.kind === 'line') this.lines.push(p.line);
    });
  }
  write(raw: string | Buffer): void {
    this.port.write(raw, 'latin1');
  }
  send(...frames: Frame[]): void {
    this.write(frames.map((f) => `${formatFrame(f)}\n`).join(''));
  }
  frames(from = 0): Frame[] {
    return this.lines.slice(from).flatMap((l) => {
      const r = parseLine(l);
      return r.ok === true ? [r.frame] : [];
    });
  }
  async next<T extends Frame['type']>(type: T, from: number, timeoutMs = 3_000) {
    return this.nextWhere(type, from, () => true, timeoutMs);
  }
  /** The first `type` line since `from` that `where` accepts (a bridge's own reads may come first). */
  async nextWhere<T extends Frame['type']>(
    type: T,
    from: number,
    where: (f: Extract<Frame, { type: T }>) => boolean,
    timeoutMs = 3_000,
  ) {
    let found: Extract<Frame, { type: T }> | undefined;
    await until(
      () => {
        found = this.frames(from).find(
          (f) => f.type === type && where(f as Extract<Frame, { type: T }>),
        ) as typeof found;
        return found !== undefined;
      },
      timeoutMs,
      `a ${type} line`,
    );
    return found!;
  }
  close(): Promise<void> {
    return new Promise((r) => (this.port.isOpen ? this.port.close(() => r()) : r()));
  }
}
