// Two connected in-memory streams: what one side writes, the other reads. Node 22 has
// `stream.duplexPair`; Node 20 (our floor) does not, and its semantics on destroy differ from a socket's,
// so this one is ours. It behaves as a TCP connection does where MQTT code can tell:
// - bytes arrive in order, a turn of the event loop later (setImmediate), as a socket's reads do. Were
//   they handed over on the writer's stack, a chain of round trips (publish, PUBACK, publish...) would
//   run in ticks and microtasks without ever letting the loop turn, and aedes, which routes a message to
//   subscribers on setImmediate after the PUBACK, would deliver to the service only after the meter
//   had moved on: a meter's acknowledged message must reach the twins before the meter's next HTTP call
//   does, as it did over TCP (docs/spec-decisions.md 267);
// - the write callback comes at once, as a socket's does once the kernel has the bytes, and waits while
//   the reader's buffer plus what is on its way is over the reader's high-water mark;
// - `end()` is a FIN: the peer reads what was sent, then 'end';
// - `destroy()` on one side hands the other what was written, and a tick later ends it after it has read
//   that (a clean DISCONNECT written just before must still be read), then destroys it; a paused
//   survivor keeps its unread bytes until it is resumed, as a socket does; what the survivor writes
//   after that goes nowhere, as bytes sent to a closed socket do.

import { Duplex } from 'node:stream';

type Callback = (err?: Error | null) => void;

/** One end of an in-memory connection. `remoteAddress` names it in logs, where a socket has an IP. */
export class DuplexSide extends Duplex {
  readonly remoteAddress: string;
  readonly remotePort = undefined;
  #peer: DuplexSide | null = null;
  /** Written, not yet handed to the peer: goes at the next turn of the loop. */
  #outbox: Buffer[] = [];
  #outboxBytes = 0;
  #scheduled = false;
  /** The write callback held until the peer reads below its high-water mark. */
  #blocked: Callback | null = null;

  constructor(remoteAddress: string) {
    super({ allowHalfOpen: true });
    this.remoteAddress = remoteAddress;
  }

  /** Joins two sides; called once, by `duplexPair`. */
  static join(a: DuplexSide, b: DuplexSide): void {
    a.#peer = b;
    b.#peer = a;
  }

  // The reader wants more: let a held writer go. (Called from read() before the bytes are taken out of
  // the buffer, so the buffer's length here says nothing.)
  override _read(): void {
    const peer = this.#peer;
    if (peer !== null) peer.#release();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: Callback): void {
    this.#deliver([chunk], callback);
  }

  override _writev(chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>, callback: Callback): void {
    this.#deliver(
      chunks.map((c) => c.chunk),
      callback,
    );
  }

  #deliver(chunks: Buffer[], callback: Callback): void {
    const peer = this.#peer;
    // The peer is gone: like bytes sent to a closed socket, nobody reads them.
    if (peer === null || peer.destroyed || peer.readableEnded) {
      callback();
      return;
    }
    for (const chunk of chunks) {
      this.#outbox.push(chunk);
      this.#outboxBytes += chunk.length;
    }
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
    if (this.#roomAt(peer)) callback();
    else this.#blocked = callback;
  }

  /** Whether the peer's buffer and what is on its way to it leave room for more. */
  #roomAt(peer: DuplexSide): boolean {
    return peer.readableLength + this.#outboxBytes < peer.readableHighWaterMark;
  }

  /** Hands what was written to the peer. */
  #flush(): void {
    this.#scheduled = false;
    const out = this.#outbox;
    const bytes = this.#outboxBytes;
    this.#outbox = [];
    this.#outboxBytes = 0;
    const peer = this.#peer;
    if (peer === null || peer.destroyed || peer.readableEnded) {
      this.#release();
      return;
    }
    // One chunk a turn, as a socket's read hands over what arrived: the reader parses the packets of a
    // turn (a PUBLISH and a PUBACK, say) in one call instead of one 'data' event each.
    if (out.length === 1) peer.push(out[0]);
    else if (out.length > 1) peer.push(Buffer.concat(out, bytes));
    if (this.#roomAt(peer)) this.#release();
  }

  override _final(callback: Callback): void {
    this.#flush();
    const peer = this.#peer;
    if (peer !== null && !peer.destroyed) peer.push(null);
    callback();
  }

  override _destroy(err: Error | null, callback: Callback): void {
    this.#flush(); // what was written before the destroy is the peer's to read
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
    this.#outbox = [];
    this.#outboxBytes = 0;
    this.#release();
    if (this.destroyed) return;
    if (this.readableEnded) {
      this.destroy();
      return;
    }
    this.once('end', () => this.destroy());
    this.push(null);
    // A side nobody has ever read (no 'data' or 'readable' listener): 'end' would never come, close now.
    // A paused one is read again later (pipe() pauses a source while its destination is full): as a
    // paused socket keeps what the kernel holds, it keeps its unread bytes, and ends and closes once it
    // has read them. Destroying it here dropped the broker's last packets unread.
    if (this.readableFlowing === null && this.listenerCount('readable') === 0) this.destroy();
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
