// The HTTP connection cap (decision 51) on a real server and real sockets: at the cap a newcomer evicts
// the connection least recently active that is not being answered.

import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { capConnections } from './limits.ts';

const servers: http.Server[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(max: number) {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (_req, res) => res.end('ok'));
  servers.push(server);
  const stats = capConnections(server, max);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return { port, stats };
}

/** A raw client: connected once the server has counted it; `closed` when the server closes it. */
async function client(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  let closed = false;
  let got = '';
  socket.on('close', () => {
    closed = true;
  });
  socket.on('data', (d) => {
    got += d.toString();
  });
  socket.on('error', () => {});
  await new Promise((r) => socket.once('connect', r));
  await new Promise((r) => setTimeout(r, 20));
  return {
    isClosed: () => closed,
    async get() {
      const before = got.length;
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      while (!got.slice(before).includes('ok')) await new Promise((r) => setTimeout(r, 5));
    },
  };
}

describe('capConnections', () => {
  it('at the cap evicts the least recently active idle connection, not the first one opened', async () => {
    const { port, stats } = await serve(2);
    const a = await client(port); // opened first ...
    const b = await client(port);
    await a.get(); // ... but active last: b is now the least recently active
    const c = await client(port);
    await new Promise((r) => setTimeout(r, 50));
    expect(b.isClosed()).toBe(true);
    expect(a.isClosed()).toBe(false);
    expect(c.isClosed()).toBe(false);
    expect(stats()).toEqual({ open: 2, evicted: 1, refused: 0 });
    await a.get(); // still served
  });
});
