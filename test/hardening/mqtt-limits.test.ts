// issue 8 item 7: the broker drops oversized packets from their fixed header, before buffering them
// [MC-10.1] [MC-10.2], bounds new connections per second [MC-10.3] and open ones [MC-10.4], and logs a
// login flood as one summary line per interval [MC-10.5]. A real aedes broker on an ephemeral port,
// raw TCP sockets for what no MQTT library would send, mqtt.js for the good clients.

import { generate } from 'mqtt-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { Principal } from '../../src/broker/access.ts';
import { type Broker, type BrokerOptions, startBroker } from '../../src/broker/index.ts';
import { closed, TestClients } from '../../src/broker/test-helpers.ts';
import { type RawClient, rawConnect, until, within } from './raw-socket.ts';

const METER = { clientId: 'MTR-1', username: 'MTR-1', password: 'meter-secret' };

/** Meters MTR-0 … MTR-9, all with the same password. */
function authenticate(username: string, password: string): Principal | null {
  return /^MTR-\d$/.test(username) && password === METER.password
    ? { kind: 'meter', deviceId: username }
    : null;
}

const meterNo = (i: number) => ({ ...METER, clientId: `MTR-${i}`, username: `MTR-${i}` });

/** The MQTT remaining-length varint. */
function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

function connectPacket(username: string, password: string, clientId = username): Buffer {
  return generate({
    cmd: 'connect',
    clientId,
    username,
    password: Buffer.from(password),
    keepalive: 30,
    protocolVersion: 4,
    clean: true,
  });
}

describe('broker limits (issue 8 item 7)', () => {
  let broker: Broker | undefined;
  let clients: TestClients | undefined;
  let raw: RawClient[] = [];
  let logs: string[] = [];

  async function start(opts: Partial<BrokerOptions> = {}): Promise<Broker> {
    logs = [];
    broker = await startBroker({ port: 0, authenticate, log: (l, m) => logs.push(`${l} ${m}`), ...opts });
    clients = new TestClients(broker.url);
    return broker;
  }

  afterEach(async () => {
    for (const c of raw) c.socket.destroy();
    raw = [];
    await clients?.endAll();
    await broker?.close();
    broker = undefined;
  });

  it('[MC-10.2] a CONNECT declaring 250 MB is closed from its header, without buffering what follows', async () => {
    const b = await start();
    const c = await rawConnect(b.url);
    raw.push(c);
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    c.socket.write(Buffer.from([0x10, ...varint(250_000_000)]));
    // Keep sending what the header promised, 1 MiB at a time, up to 64 MiB or until closed.
    const mib = Buffer.alloc(1024 * 1024, 0x41);
    let sent = 0;
    while (!c.isClosed() && sent < 64) {
      if (!c.socket.write(mib)) await Promise.race([new Promise((r) => c.socket.once('drain', r)), c.closed]);
      sent++;
    }
    await within(c.closed, 5_000, 'the oversized CONNECT closed');
    const grown = (process.memoryUsage().rss - rss0) / 1024 / 1024;
    console.log(
      `[MC-10.2] 250 MB CONNECT: closed after the client had queued ${sent} MiB; RSS grew ${grown.toFixed(1)} MiB`,
    );
    expect(sent).toBeLessThan(64);
    expect(grown).toBeLessThan(32);
    expect(b.refusals().connections['CONNECT too large']).toBe(1);
    expect(
      logs.some((l) => l.includes('CONNECT declares 250,000,000 bytes') && l.includes('[MC-10.2]')),
    ).toBe(true);
  });

  it('[MC-10.1] a logged-in meter publishing 10 MB is disconnected; 256 KiB (MC-3.1) still goes through', async () => {
    const b = await start();
    const meter = await clients!.connect(METER);
    const telemetry = topicFor('MTR-1', 'telemetry');
    await meter.publishAsync(telemetry, Buffer.alloc(262_144, 0x20), { qos: 1 }); // PUBACK: accepted
    expect(meter.connected).toBe(true);
    meter.publish(telemetry, Buffer.alloc(10 * 1024 * 1024, 0x20), { qos: 1 });
    await closed(meter, 5_000);
    expect(b.refusals().connections['packet too large']).toBe(1);
    expect(logs.some((l) => l.includes('declares 10,485,') && l.includes('[MC-10.1]'))).toBe(true);
  });

  it('[MC-10.3] connections beyond the rate are closed at once; a good client gets in once the rate allows', async () => {
    const b = await start({ limits: { connectRate: 20 } });
    const opened = await Promise.all(Array.from({ length: 60 }, () => rawConnect(b.url)));
    raw.push(...opened);
    await until(() => opened.filter((c) => c.isClosed()).length >= 30, 5_000, '30 over the rate closed');
    expect(b.refusals().connections['over the connection rate']).toBeGreaterThanOrEqual(30);
    // The bucket refills at 20 per second: a client that retries after a second gets in.
    await new Promise((r) => setTimeout(r, 1_100));
    const meter = await clients!.connect(METER);
    expect(meter.connected).toBe(true);
  });

  it('[MC-10.4] at the cap a new client evicts the oldest one not logged in; with all logged in it is refused', async () => {
    const b = await start({ limits: { maxConnections: 5 } });
    for (let i = 0; i < 5; i++) raw.push(await rawConnect(b.url)); // never send CONNECT
    const meter = await clients!.connect(METER); // the 6th: takes the oldest silent one's place
    await within(raw[0]!.closed, 5_000, 'oldest silent connection evicted');
    expect(raw.slice(1).every((c) => !c.isClosed())).toBe(true);
    expect(b.refusals().connections['evicted before login at the connection cap']).toBe(1);
    expect(meter.connected).toBe(true);
    // Fill the cap with logged-in meters: a newcomer now has nobody to evict and is refused.
    for (const c of raw) c.socket.destroy();
    for (let i = 2; i <= 5; i++) await clients!.connect(meterNo(i));
    expect(b.connectedClients()).toBe(5);
    const late = await rawConnect(b.url);
    raw.push(late);
    await within(late.closed, 5_000, 'newcomer refused at a full cap');
    expect(b.refusals().connections['at the connection cap']).toBe(1);
    expect(b.connectedClients()).toBe(5);
  });

  it('[MC-10.4] a connection that sends no CONNECT within the connect timeout is closed', async () => {
    const b = await start({ limits: { connectTimeoutMs: 500 } });
    const c = await rawConnect(b.url);
    raw.push(c);
    await within(c.closed, 5_000, 'silent connection closed'); // aedes' default is 30 s
  });

  it('[MC-10.5] a login flood is logged as one summary line per interval; good clients still connect', async () => {
    const b = await start({ limits: { refusalSummaryMs: 1_000 } });
    const flood = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const c = await rawConnect(b.url);
        c.socket.write(connectPacket(`intruder${i % 3}`, 'guess'));
        return c;
      }),
    );
    raw.push(...flood);
    const meter = await clients!.connect(METER); // in the middle of the flood
    expect(meter.connected).toBe(true);
    await until(() => (b.refusals().logins['bad username or password'] ?? 0) === 300, 10_000, '300 refused');
    await until(
      () => logs.some((l) => /refused \d[\d,]* logins in the last 1 s/.test(l)),
      5_000,
      'summary line',
    );
    const summary = logs.filter((l) => l.includes('logins in the last'));
    const single = logs.filter((l) => l.startsWith('info refused '));
    console.log(`[MC-10.5] ${single.length} single lines, summary: ${summary.join(' | ')}`);
    expect(summary.join('\n')).toMatch(
      /bad username or password \(users intruder\d, intruder\d, intruder\d\)/,
    );
    // The flood took at most a few intervals: a handful of single lines each, nowhere near 300.
    expect(single.length).toBeLessThanOrEqual(5 * (summary.length + 1));
    expect(logs.filter((l) => l.includes('Bad username or password')).length).toBe(0); // no second line per refusal
  });
});
