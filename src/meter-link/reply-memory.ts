// [MC-8.8] Replies kept by command id, for a meter that cannot remember them itself (a bridged device
// that only measures): a repeated id is answered again with the same reply, not applied twice.

import type { WireReply } from '../../firmware-protocol/mqtt/codec.ts';

export class ReplyMemory {
  readonly #size: number;
  readonly #replies = new Map<string, Promise<WireReply>>();

  /** Keeps the `size` newest ids (the contract asks for at least 64). */
  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new TypeError(`reply memory size must be ≥ 1, got ${size}`);
    this.#size = size;
  }

  get(id: string): Promise<WireReply> | undefined {
    return this.#replies.get(id);
  }

  set(id: string, reply: Promise<WireReply>): void {
    this.#replies.set(id, reply);
    if (this.#replies.size > this.#size) this.#replies.delete(this.#replies.keys().next().value as string);
  }
}
