// Issue 20 §2 and §3, as the user hit them: a bridge pointed at a broker that is not meterstack (a
// machine's own Mosquitto on 1883, here a bare aedes on an ephemeral port that announces nothing) said
// "connected" and the meter never appeared; a bridge whose broker was down said the same warning every
// second, forever. Real brokers, the real `meterstack bridge` as a child process where the wait is short.

import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { afterEach, describe, expect, it } from 'vitest';
import { Bridge } from '../../src/bridge/bridge.ts';
import { skipWithoutMosquitto, startMosquitto } from '../helpers/mosquitto.ts';
import { newAccount, provision, startTestService } from '../helpers/service.ts';
import { CliProcess, until } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A bare aedes, no logins, no rules, no service announcement: "some other broker". */
async function bareAedes(port = 0): Promise<{ url: string; port: number }> {
  const aedes = await Aedes.createBroker();
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    aedes.handle(socket);
  });
  await listen(server, port);
  cleanups.push(async () => {
    // Stop accepting first: a client still retrying must not slip in while the rest closes.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    await closed;
  });
  const bound = portOf(server);
  return { url: `mqtt://127.0.0.1:${bound}`, port: bound };
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('issue 20: which broker the bridge reached', () => {
  it('[MC-12.2] a broker that accepts the login but announces no meterstack is named as not meterstack', async () => {
    const other = await bareAedes();
    const bridge = new CliProcess([
      'bridge',
      ...['--serial', '/nonexistent/tty', '--broker', other.url],
      ...['--username', 'MTR-ANY', '--password', 'anything'],
    ]);
    cleanups.push(() => bridge.stop());
    await until(() => bridge.output.includes('is not meterstack'), 15_000, 'the warning');
    expect(bridge.output).toContain(
      `${other.url} accepted the connection but is not meterstack: no service announcement on meterstack/v1/service within 3 s`,
    );
    expect(bridge.output).toContain(`mqtt ${other.url}: login accepted as MTR-ANY`);
    expect(bridge.output).not.toContain('connected to meterstack');
  });

  it('while the broker is down: waits that double, one line, then the sum once it is back (decision 171)', async () => {
    // Something listens and hangs up at once: every attempt fails alike, and the test counts them.
    let attempts = 0;
    const hangUp = createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await listen(hangUp, 0);
    const port = portOf(hangUp);
    const lines: string[] = [];
    const bridge = new Bridge({
      serial: '/nonexistent/tty',
      baud: 115_200,
      broker: { url: `mqtt://127.0.0.1:${port}`, username: 'MTR-DOWN', password: 'x' },
      log: (level, msg) => lines.push(`${level} ${msg}`),
      reconnect: { firstMs: 10, maxMs: 40 },
      awaitServiceMs: 60_000,
    });
    bridge.start();
    cleanups.push(() => bridge.close());
    await until(() => attempts >= 8, 10_000, 'eight attempts');
    await new Promise<void>((resolve) => hangUp.close(() => resolve()));
    await bareAedes(port); // the broker is back on its port
    await until(() => lines.some((l) => l.includes('login accepted')), 10_000, 'connected again');

    const about = lines.filter((l) => l.includes(`mqtt://127.0.0.1:${port}: connection closed`));
    expect(about[0]).toBe(
      `warn mqtt mqtt://127.0.0.1:${port}: connection closed; retrying in 10 ms, then less often`,
    );
    expect(about[1]).toMatch(
      /^warn mqtt mqtt:\/\/127\.0\.0\.1:\d+: connection closed \(repeated \d+ times in \d+ s\)$/,
    );
    expect(Number(/repeated (\d+) times/.exec(about[1]!)![1])).toBeGreaterThanOrEqual(7);
    expect(about).toHaveLength(2);
  });
});

describe.skipIf(skipWithoutMosquitto)(
  '[MC-12.1] on an external Mosquitto whose logins meterstack keeps (dynsec)',
  () => {
    it('the service announces itself there too, and the bridge says it reached meterstack', async () => {
      const mosquitto = await startMosquitto();
      cleanups.push(() => mosquitto.stop());
      const t = await startTestService({ broker: mosquitto.brokerUrl, demo: false });
      cleanups.push(() => t.close());
      const { account_id } = await newAccount(t.sim);
      const ext = await provision(t.sim, { account_id, external: true, device_id: 'MTR-DYNSEC-1' });
      const bridge = new CliProcess([
        'bridge',
        ...['--serial', '/nonexistent/tty', '--broker', ext.mqtt.url],
        ...['--username', ext.mqtt.username, '--password', ext.mqtt.password],
      ]);
      cleanups.push(() => bridge.stop());
      await until(() => bridge.output.includes('connected to meterstack'), 15_000, 'the announcement');
      expect(bridge.output).toContain(`at ${ext.mqtt.url} (HTTP ${t.svc.httpUrl})`);
    });
  },
);
