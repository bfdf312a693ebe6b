// Commands in, replies out [MC-8]: a cmd payload decoded, handed to the adapter, and its answer published
// once [MC-8.5]; a malformed one answered as MC-9 says. For a meter that cannot remember replies itself
// (a bridged device that only measures), a repeated id is answered again from memory [MC-8.8].

import { commandFromWire, type WireReply } from '../../firmware-protocol/mqtt/codec.ts';
import type { ReplyPayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { MeterCommand } from '../../firmware-protocol/mqtt/vocabulary.ts';
import type { LinkEvent } from './events.ts';

/** An answer now, one later (a promise), or none: the adapter answers with `MeterLink.reply()`, or never. */
export type Answer = WireReply | Promise<WireReply> | undefined;

export interface CommandsOptions {
  answer: (id: string, command: MeterCommand) => Answer;
  /** Keep this many newest replies by id (0: the meter remembers them itself). */
  remember: number;
  reply: (id: string, reply: WireReply) => void;
  /** [MC-9.1] the codec's rejection of a command whose id it could read. */
  reject: (payload: ReplyPayload) => void;
  emit: (event: LinkEvent) => void;
}

export class Commands {
  readonly #o: CommandsOptions;
  readonly #memory = new Map<string, Promise<WireReply>>();

  constructor(opts: CommandsOptions) {
    if (!Number.isInteger(opts.remember) || opts.remember < 0)
      throw new TypeError(`rememberReplies must be an integer ≥ 0, got ${opts.remember}`);
    this.#o = opts;
  }

  /** A cmd payload delivered without the retain flag [MC-8.1]. */
  receive(payload: Buffer): void {
    const parsed = commandFromWire(payload);
    if (!parsed.ok) {
      this.#o.emit({ type: 'bad_command', error: parsed.error });
      // [MC-9.1] a readable id gets the codec's rejection; [MC-9.2] otherwise nothing is published.
      if (parsed.reply) this.#o.reject(parsed.reply);
      return;
    }
    const { id, command } = parsed;
    const remembered = this.#memory.get(id);
    if (remembered) this.#o.emit({ type: 'repeated', id, op: command.op });
    const answer = remembered ?? this.#o.answer(id, command);
    if (answer === undefined) return;
    if (!(answer instanceof Promise)) {
      this.#replied(id, command, answer);
      return;
    }
    if (!remembered) this.#remember(id, answer);
    answer.then(
      (reply) => this.#replied(id, command, reply),
      (error: unknown) => this.#o.emit({ type: 'command_failed', error: error as Error }),
    );
  }

  #replied(id: string, command: MeterCommand, reply: WireReply): void {
    this.#o.emit({ type: 'replied', id, op: command.op, reply });
    this.#o.reply(id, reply);
  }

  #remember(id: string, reply: Promise<WireReply>): void {
    if (this.#o.remember === 0) return;
    this.#memory.set(id, reply);
    if (this.#memory.size > this.#o.remember) this.#memory.delete(this.#memory.keys().next().value as string);
  }
}
