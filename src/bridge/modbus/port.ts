// One Modbus RTU serial line, through the modbus-serial library (which uses serialport 13): open, read
// input register blocks one request at a time, and report every failure as a tagged result, never a throw.

import modbusSerial from 'modbus-serial';
import { type BlockWords, hex, type ReadBlock } from './registers.ts';

// modbus-serial is CommonJS: its class is module.exports, which TypeScript sees as the default's `default`.
const ModbusRTU = modbusSerial.default;
type ModbusClient = InstanceType<typeof ModbusRTU>;

export interface ModbusPortOptions {
  path: string;
  baud: number;
  unitId: number;
  /** How long to wait for each answer. */
  timeoutMs: number;
}

export type ReadResult =
  | { ok: true; words: BlockWords }
  /** `port_gone`: the port could not be opened or closed under us; `failure`: no or a bad answer. */
  | { ok: false; kind: 'port_gone' | 'failure'; message: string };

export class ModbusPort {
  readonly #opts: ModbusPortOptions;
  #client: ModbusClient | null = null;
  /** Requests run one at a time: RTU is half duplex and the library keeps one transaction per unit. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(opts: ModbusPortOptions) {
    this.#opts = opts;
  }

  get isOpen(): boolean {
    return this.#client?.isOpen ?? false;
  }

  /** Reads every block, opening the port first when it is not open. */
  read(blocks: readonly ReadBlock[]): Promise<ReadResult> {
    const run = this.#queue.then(() => this.#read(blocks));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Opens the port if it is not open; the error message when it cannot. */
  open(): Promise<string | null> {
    const run = this.#queue.then(() => this.#open());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    await this.#drop();
  }

  async #read(blocks: readonly ReadBlock[]): Promise<ReadResult> {
    const openError = await this.#open();
    if (openError !== null) return { ok: false, kind: 'port_gone', message: openError };
    const client = this.#client!;
    const words = new Map<number, readonly number[]>();
    for (const block of blocks) {
      try {
        const answer = await client.readInputRegisters(block.start, block.count);
        words.set(block.start, answer.data);
      } catch (err) {
        const gone = !client.isOpen;
        // Start the next request on a fresh port: a late answer to this one must not be taken for it.
        await this.#drop();
        const message = `reading ${block.count} registers at ${hex(block.start)}: ${errorMessage(err)}`;
        return { ok: false, kind: gone ? 'port_gone' : 'failure', message };
      }
    }
    return { ok: true, words };
  }

  async #open(): Promise<string | null> {
    if (this.#closed) return 'closed';
    if (this.#client?.isOpen) return null;
    await this.#drop();
    const client = new ModbusRTU();
    // Without a listener an 'error' (e.g. the USB adapter unplugged) would be thrown by the emitter.
    client.on('error', () => undefined);
    try {
      await client.connectRTUBuffered(this.#opts.path, {
        baudRate: this.#opts.baud,
        dataBits: 8,
        parity: 'none',
        stopBits: 1,
      });
    } catch (err) {
      return errorMessage(err);
    }
    client.setID(this.#opts.unitId);
    client.setTimeout(this.#opts.timeoutMs);
    this.#client = client;
    return null;
  }

  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    if (!client?.isOpen) return;
    await new Promise<void>((resolve) => client.close(() => resolve()));
  }
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err) return String(err.message);
  return String(err);
}
