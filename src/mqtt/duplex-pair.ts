// Two connected in-memory streams: what one side writes, the other reads. Node 22 has
// `stream.duplexPair`; Node 20 (our floor) does not, and its semantics on destroy differ from a socket's,
// so this one is ours. It behaves as a TCP connection does where MQTT code can tell:
// - bytes arrive in order, on the writer's stack (mqtt-packet already batches a tick's packets into one
//   `writev`), and the write callback waits while the reader's buffer is over its high-water mark;
// - `end()` is a FIN: the peer reads what was sent, then 'end';
// - `destroy()` on one side ends the other after it has read what was already delivered (a clean
//   DISCONNECT written just before must still be read), then destroys it; what the survivor writes
//   after that goes nowhere, as bytes sent to a closed socket do.

import { Duplex } from 'node:stream';

/** One end of an in-memory connection. `remoteAddress` names it in logs, where a socket has an IP. */
export class DuplexSide extends Duplex {
  readonly remoteAddress: string;
  readonly remotePort = undefined;
  #peer: DuplexSide | null = null;
  /** The write callback held until the peer reads below its high-water mark. */
  #blocked: ((err?: Error | null) => void) | null = null;

  constructor(remoteAddress: string) {
    super({ allowHalfOpen: true });
    this.remoteAddress = remoteAddress;
  }

  /** Joins two sides; called once, by `duplexPair`. */
  static join(a: DuplexSide, b: DuplexSide): void {
    a.#peer = b;
    b.#peer = a;
  }

  override _read(): void {
    const peer = this.#peer;
    if (peer === null) return;
    const blocked = peer.#blocked;
    if (blocked) {
      peer.#blocked = null;
      blocked();
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.#deliver([chunk], callback);
  }

  override _writev(
    chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>,
    callback: (err?: Error | null) => void,
  ): void {
    this.#deliver(
      chunks.map((c) => c.chunk),
      callback,
    );
  }

  #deliver(chunks: Buffer[], callback: (err?: Error | null) => void): void {
    const peer = this.#peer;
    // The peer is gone: like bytes sent to a closed socket, nobody reads them.
    if (peer === null || peer.destroyed || peer.readableEnded) {
      callback();
      return;
    }
    let room = true;
    for (const chunk of chunks) room = peer.push(chunk);
    if (room) callback();
    else this.#blocked = callback;
  }

  override _final(callback: (err?: Error | null) => void): void {
    const peer = this.#peer;
    if (peer !== null && !peer.destroyed) peer.push(null);
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const peer = this.#peer;
    this.#peer = null;
    this.#release();
    callback(err);
    // Never on the destroyer's stack, as a socket's close never is: a side refused as it is made has
    // listeners by the next tick.
    if (peer !== null) process.nextTick(() => peer.#peerGone());
  }

  /** The other side was destroyed: read what it delivered, then end and close. */
  #peerGone(): void {
    this.#peer = null;
    this.#release();
    if (this.destroyed) return;
    if (this.readableEnded) {
      this.destroy();
      return;
    }
    this.once('end', () => this.destroy());
    this.push(null);
    // Nobody reading (paused, no listener): 'end' would never come, so close now.
    if (this.readableFlowing !== true && this.listenerCount('readable') === 0) this.destroy();
  }

  #release(): void {
    const blocked = this.#blocked;
    this.#blocked = null;
    blocked?.();
  }
}

/** A connected pair `[a, b]`; `remoteAddress` names the peer of either side in log lines. */
export function duplexPair(remoteAddress = 'in-process'): [DuplexSide, DuplexSide] {
  const client = new DuplexSide(remoteAddress);
  const server = new DuplexSide(remoteAddress);
  DuplexSide.join(client, server);
  return [client, server];
}
