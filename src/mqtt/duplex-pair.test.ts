// The in-memory connection the embedded broker gives clients of its own process: it must behave as a
// socket does wherever MQTT code can tell (order, FIN, close on either side, back-pressure).

import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { duplexPair } from './duplex-pair.ts';

function collect(side: NodeJS.ReadableStream): { text: () => string; ended: Promise<unknown> } {
  const chunks: Buffer[] = [];
  side.on('data', (c: Buffer) => chunks.push(c));
  return { text: () => Buffer.concat(chunks).toString(), ended: once(side, 'end') };
}

describe('duplexPair', () => {
  it('carries bytes both ways, in order, batched writes included', async () => {
    const [a, b] = duplexPair();
    const atB = collect(b);
    const atA = collect(a);
    a.cork();
    a.write('one ');
    a.write('two ');
    a.uncork();
    a.write('three');
    b.write('back');
    a.end();
    b.end();
    await Promise.all([atA.ended, atB.ended]);
    expect(atB.text()).toBe('one two three');
    expect(atA.text()).toBe('back');
    expect(a.remoteAddress).toBe('in-process');
  });

  it('end() is a FIN: the peer reads everything, then end, and can still write back', async () => {
    const [a, b] = duplexPair();
    const atB = collect(b);
    const atA = collect(a);
    a.end('last words');
    await atB.ended;
    expect(atB.text()).toBe('last words');
    b.end('reply');
    await atA.ended;
    expect(atA.text()).toBe('reply');
  });

  it('destroy() right after a write: the peer still reads what was delivered, then ends and closes', async () => {
    const [a, b] = duplexPair();
    const got: string[] = [];
    // A paused reader, as aedes reads: 'readable' + read().
    b.on('readable', () => {
      for (let chunk = b.read(); chunk !== null; chunk = b.read()) got.push(String(chunk));
    });
    a.write('DISCONNECT');
    a.destroy();
    await once(b, 'close');
    expect(got.join('')).toBe('DISCONNECT');
    expect(b.destroyed).toBe(true);
  });

  it('destroy() with the peer paused: it keeps what was written, and reads it, ends and closes once resumed, as a socket', async () => {
    const [a, b] = duplexPair();
    b.pause(); // as pipe() pauses a source whose destination is full
    a.write('PUBLISH ');
    a.write('DISCONNECT');
    a.destroy();
    // Several turns of the loop: the written bytes have arrived, the peer is gone, and nothing is lost.
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(b.destroyed).toBe(false);
    expect(b.readableLength).toBe('PUBLISH DISCONNECT'.length);
    const atB = collect(b);
    const closed = once(b, 'close');
    b.resume();
    await closed;
    expect(atB.text()).toBe('PUBLISH DISCONNECT');
  });

  it("closing is never on the destroyer's stack: a side refused as it is made closes a tick later", async () => {
    const [client, server] = duplexPair();
    server.destroy();
    expect(client.destroyed).toBe(false);
    await once(client, 'close');
  });

  it('a write to a destroyed peer goes nowhere, with no error, as to a closed socket', async () => {
    const [a, b] = duplexPair();
    const errors: Error[] = [];
    a.on('error', (e) => errors.push(e));
    const aClosed = once(a, 'close');
    b.destroy();
    const written = new Promise<Error | null | undefined>((resolve) => a.write('lost', resolve));
    expect(await written).toBeFalsy();
    await aClosed;
    expect(errors).toEqual([]);
  });

  it('holds the writer while the reader is over its high-water mark, and lets it go as it reads', async () => {
    const [a, b] = duplexPair();
    const big = Buffer.alloc(64 * 1024, 1);
    expect(a.write(big)).toBe(false); // over a's own high-water mark: the caller is told to wait
    let drained = false;
    a.once('drain', () => {
      drained = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(drained).toBe(false); // b holds 64 KiB unread: a's write is not done
    b.read();
    expect(drained).toBe(true);
  });
});
