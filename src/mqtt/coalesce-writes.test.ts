// coalesceWrites on real loopback sockets, and under a real mqtt.js client taking QoS 1 from aedes.

import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { afterEach, describe, expect, it } from 'vitest';
import { coalesceWrites } from './coalesce-writes.ts';
import { connectMqtt } from './connect.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as { port: number }).port;
}

/** A server that sends `hello` on connect and hands every chunk it reads to `chunks`. */
async function peer(chunks: string[]): Promise<Socket> {
  const server = createServer((s) => {
    cleanups.push(() => void s.destroy());
    s.setEncoding('utf8').on('data', (d: string) => chunks.push(d));
    s.write('hello');
  });
  const port = await listen(server);
  const socket = coalesceWrites(createConnection({ port, host: '127.0.0.1', noDelay: true }));
  cleanups.push(() => void socket.destroy());
  return socket;
}

describe('coalesceWrites', () => {
  it('holds what is written while handling a read until the turn ends, then sends it in one write', async () => {
    const chunks: string[] = [];
    const socket = await peer(chunks);
    const during = await new Promise<{ corked: number; buffered: number }>((resolve) =>
      socket.once('data', () => {
        for (const ack of ['a', 'b', 'c']) socket.write(ack);
        resolve({ corked: socket.writableCorked, buffered: socket.writableLength });
      }),
    );
    expect(during).toEqual({ corked: 1, buffered: 3 });
    await new Promise((r) => setImmediate(r));
    expect(socket.writableCorked).toBe(0);
    while (chunks.join('') !== 'abc') await new Promise((r) => setTimeout(r, 5));
    expect(chunks).toEqual(['abc']);
  });

  it('leaves a write outside a read alone', async () => {
    const socket = await peer([]);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write('x');
    expect(socket.writableCorked).toBe(0);
  });

  it('a QoS 1 subscriber acknowledges every message, none before its handler took the message', async () => {
    const aedes = await Aedes.createBroker();
    cleanups.push(() => new Promise<void>((r) => aedes.close(() => r())));
    const port = await listen(createServer((s) => aedes.handle(s)));
    const url = `mqtt://127.0.0.1:${port}`;
    const taken = new Set<string>();
    // The n-th acknowledgement the broker gets is for a message the handler had taken: n <= taken.
    let acked = 0;
    let ackedAhead = 0;
    aedes.on('ack', (_packet, client) => {
      if (client?.id !== 'sub') return;
      acked++;
      if (acked > taken.size) ackedAhead++;
    });
    const sub = await connectMqtt({ url, clientId: 'sub', coalesceWrites: true, reconnectPeriod: 0 });
    cleanups.push(() => sub.endAsync());
    sub.on('message', (_topic, payload) => taken.add(String(payload)));
    await sub.subscribeAsync('t/#', { qos: 1 });
    const pub = await connectMqtt({ url, clientId: 'pub', reconnectPeriod: 0 });
    cleanups.push(() => pub.endAsync());
    const N = 500;
    await Promise.all(Array.from({ length: N }, (_, i) => pub.publishAsync('t/x', `m${i}`, { qos: 1 })));
    const deadline = Date.now() + 5_000;
    while (acked < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(taken.size).toBe(N);
    expect(acked).toBe(N);
    expect(ackedAhead).toBe(0);
  });
});
