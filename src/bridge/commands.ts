// The CMDs the bridge has in flight to its meter [SP-5.5]: each seq with the command's id and op, so an
// ACK or NAK counts only when it names all three of the CMD it answers [SP-5.10]. Bounded: at most
// MAX_COMMANDS_IN_FLIGHT at once, each forgotten after the reply deadline.

import type { CommandOp } from '../../firmware-protocol/mqtt/schemas.ts';
import type { AckFrame, NakFrame } from '../../firmware-protocol/serial/frames.ts';

/** [SP-5.5] How long the bridge waits for the ACK/NAK of a CMD. */
export const COMMAND_TIMEOUT_MS = 10_000;
/** [SP-5.5] CMDs sent and not yet answered; a command beyond them is answered `busy` by the bridge. */
export const MAX_COMMANDS_IN_FLIGHT = 8;
const MAX_SEQ = 65_535;

export interface PendingCommand {
  seq: number;
  id: string;
  op: CommandOp;
  /** Who asked: the service over MQTT (answered on `reply`), or the bridge itself [SP-5.13]. */
  from: 'service' | 'bridge';
}

export type Match = { ok: true; command: PendingCommand } | { ok: false; rule: string; message: string };

export interface CommandTableOptions {
  timeoutMs?: number;
  maxInFlight?: number;
  /** A CMD went unanswered for timeoutMs; it is forgotten. */
  onTimeout: (command: PendingCommand, afterMs: number) => void;
}

export class CommandTable {
  readonly #timeoutMs: number;
  readonly #max: number;
  readonly #onTimeout: CommandTableOptions['onTimeout'];
  readonly #pending = new Map<number, PendingCommand & { timer: NodeJS.Timeout }>();
  #seq = 0;

  constructor(opts: CommandTableOptions) {
    this.#timeoutMs = opts.timeoutMs ?? COMMAND_TIMEOUT_MS;
    this.#max = opts.maxInFlight ?? MAX_COMMANDS_IN_FLIGHT;
    if (!(this.#timeoutMs > 0)) throw new TypeError(`CommandTable: timeoutMs must be > 0`);
    if (!Number.isInteger(this.#max) || this.#max < 1 || this.#max >= MAX_SEQ) {
      throw new TypeError(`CommandTable: maxInFlight must be an integer in 1..${MAX_SEQ - 1}`);
    }
    this.#onTimeout = opts.onTimeout;
  }

  get size(): number {
    return this.#pending.size;
  }

  get full(): boolean {
    return this.#pending.size >= this.#max;
  }

  /** The next free seq, 1..65535 then 1 again [SP-5.5]; call add() once its CMD is on the wire. */
  nextSeq(): number {
    do this.#seq = (this.#seq % MAX_SEQ) + 1;
    while (this.#pending.has(this.#seq));
    return this.#seq;
  }

  add(command: PendingCommand): void {
    const timer = setTimeout(() => {
      this.#pending.delete(command.seq);
      this.#onTimeout(command, this.#timeoutMs);
    }, this.#timeoutMs);
    this.#pending.set(command.seq, { ...command, timer });
  }

  /** [SP-5.10] Takes the command a reply answers, or says why the reply answers none. */
  match(frame: AckFrame | NakFrame): Match {
    const pending = this.#pending.get(frame.seq);
    if (!pending) {
      return { ok: false, rule: 'SP-5.10', message: `no CMD seq=${frame.seq} in flight` };
    }
    if (pending.id !== frame.id) {
      return {
        ok: false,
        rule: 'SP-5.10',
        message: `CMD seq=${frame.seq} has id ${pending.id}, not ${frame.id}`,
      };
    }
    if (frame.type === 'ACK' && frame.op !== pending.op) {
      return {
        ok: false,
        rule: 'SP-5.10',
        message: `CMD seq=${frame.seq} is op ${pending.op}, not ${frame.op}`,
      };
    }
    clearTimeout(pending.timer);
    this.#pending.delete(frame.seq);
    const { timer: _t, ...command } = pending;
    return { ok: true, command };
  }

  clear(): void {
    for (const p of this.#pending.values()) clearTimeout(p.timer);
    this.#pending.clear();
  }
}
