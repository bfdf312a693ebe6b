// The meter's half of the contract, tested once against the link: a real aedes broker on an ephemeral
// port sees what the link sends (in order, with QoS and retain flags), and a real mqtt.js client plays
// the service. Each adapter's own tests cover only its translation.

import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WireReply } from '../../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand, Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import type { LinkEvent } from './events.ts';
import { type Answer, MeterLink, type MeterLinkOptions } from './link.ts';
import { testInfo, testState } from './test-helpers.ts';

const ID = 'MTR-LINK-1';
const T0 = 1_732_270_000_000;
const info = testInfo(ID);
const state = testState;
const sample = (ts: number): Sample => ({ ts, energy: ts / 1e9, active_power: 1, voltage: 230, balance: 0 });

/** What the broker saw, in order: `<client> <event> <topic> [retain] [payload]`. */
interface Seen {
  client: string;
  kind: 'subscribe' | 'publish';
  topic: string;
  retain: boolean;
  qos: number;
  json: Record<string, unknown> | null;
}

let aedes: Aedes;
let server: Server;
let sockets: Socket[];
let url: string;
let seen: Seen[];
const links: MeterLink[] = [];
const clients: MqttClient[] = [];

beforeEach(async () => {
  aedes = await Aedes.createBroker();
  seen = [];
  aedes.on('subscribe', (subs, client) => {
    for (const s of subs)
      seen.push({
        client: client.id,
        kind: 'subscribe',
        topic: s.topic,
        retain: false,
        qos: s.qos,
        json: null,
      });
  });
  aedes.on('publish', (packet, client) => {
    if (!client) return; // the broker's own $SYS and will messages are checked through a watcher
    const text = packet.payload.toString();
    const json = parse(text);
    seen.push({
      client: client.id,
      kind: 'publish',
      topic: packet.topic,
      retain: packet.retain,
      qos: packet.qos,
      json,
    });
  });
  sockets = [];
  server = createServer((socket) => {
    sockets.push(socket);
    aedes.handle(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  url = `mqtt://127.0.0.1:${address.port}`;
});

afterEach(async () => {
  await Promise.all(links.splice(0).map((l) => l.close({ goodbye: false })));
  await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  await new Promise<void>((resolve) => aedes.close(() => resolve()));
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function link(over: Partial<MeterLinkOptions> = {}, events: LinkEvent[] = []): MeterLink {
  let now = T0;
  const l = new MeterLink({
    url,
    deviceId: ID,
    password: 'x',
    now: () => now++,
    info: () => info,
    state,
    answer: () => ({ ok: true }),
    onEvent: (e) => events.push(e),
    ...over,
  });
  links.push(l);
  return l;
}

/** A service-side client (and watcher) with every message it gets. */
async function service(): Promise<{
  client: MqttClient;
  got: { topic: string; retain: boolean; json: unknown }[];
}> {
  const client = await connectAsync(url, { clientId: 'service', reconnectPeriod: 0 });
  clients.push(client);
  const got: { topic: string; retain: boolean; json: unknown }[] = [];
  client.on('message', (topic, payload, packet) =>
    got.push({ topic, retain: packet.retain, json: parse(payload.toString()) }),
  );
  await client.subscribeAsync(`meterstack/v1/${ID}/+`, { qos: 1 });
  return { client, got };
}

function parse(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function until(check: () => boolean, what: string, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const mine = () => seen.filter((s) => s.client === ID);
const channel = (topic: string) => topic.split('/')[3];

describe('[MC-6] connection and announcement', () => {
  it('[MC-6.2] [MC-6.3] [MC-6.7] subscribes to cmd, then info, state, online, buffered telemetry, then the present reading', async () => {
    const l = link({ onAnnounced: () => l.push(sample(T0 + 500)) });
    for (let i = 0; i < 3; i++) l.push(sample(T0 - 3000 + i));
    await l.connect();
    expect(l.connected).toBe(true);
    await until(() => mine().filter((s) => channel(s.topic) === 'telemetry').length >= 2, 'telemetry');
    const order = mine().map((s) => `${s.kind} ${channel(s.topic)}`);
    expect(order).toEqual([
      'subscribe cmd',
      'publish info',
      'publish state',
      'publish availability',
      'publish telemetry',
      'publish telemetry',
    ]);
    const [, i, s, a, buffered, present] = mine();
    // [MC-2.3] meters publish at QoS 1; [MC-4.1] [MC-5.1] [MC-6.1] retained; [MC-7.1] telemetry never
    expect([i, s, a, buffered].map((m) => [m!.qos, m!.retain])).toEqual([
      [1, true],
      [1, true],
      [1, true],
      [1, false],
    ]);
    expect(mine()[0]!.qos).toBe(1);
    expect(a!.json).toMatchObject({ v: 1, online: true, ts: expect.any(Number) });
    expect((buffered!.json as { samples: Sample[] }).samples.map((x) => x.ts)).toEqual([
      T0 - 3000,
      T0 - 2999,
      T0 - 2998,
    ]);
    expect((present!.json as { samples: Sample[] }).samples.map((x) => x.ts)).toEqual([T0 + 500]);
  });

  it('[MC-6.4] a goodbye says offline with a ts, then DISCONNECT discards the will', async () => {
    const { got } = await service();
    const l = link();
    await l.connect();
    await l.close();
    await new Promise((r) => setTimeout(r, 100));
    const availability = got.filter((m) => channel(m.topic) === 'availability').map((m) => m.json);
    expect(availability).toEqual([
      { v: 1, online: true, ts: expect.any(Number) },
      { v: 1, online: false, ts: expect.any(Number) },
    ]);
  });

  it('[MC-6.2] a link that drops fires the will (offline, no ts); [MC-7.6] what was in flight is sent again after the reconnection', async () => {
    const { got } = await service();
    const l = link();
    await l.connect();
    l.drop();
    await until(
      () => got.some((m) => channel(m.topic) === 'availability' && !(m.json as { online: boolean }).online),
      'the will',
    );
    expect(got.filter((m) => channel(m.topic) === 'availability').at(-1)!.json).toEqual({
      v: 1,
      online: false,
    });
    l.push(sample(T0 + 1)); // kept while not connected
    expect(l.pending).toBe(1);
    await l.connect();
    await l.drained();
    expect(l.pending).toBe(0);
    await until(() => got.some((m) => channel(m.topic) === 'telemetry'), 'the kept sample');
    expect(got.filter((m) => channel(m.topic) === 'telemetry').map((m) => m.json)).toEqual([
      { v: 1, samples: [sample(T0 + 1)] },
    ]);
  });

  it('reconnects by itself when the broker drops it, and announces again [MC-6.3]', async () => {
    const events: LinkEvent[] = [];
    const l = link({}, events);
    await l.connect();
    const infos = () => mine().filter((s) => s.kind === 'publish' && channel(s.topic) === 'info').length;
    expect(infos()).toBe(1);
    for (const socket of sockets) socket.destroy(); // the broker's side of the connection goes
    await until(() => infos() === 2, 'a second announcement', 5_000);
    expect(events.map((e) => e.type)).toEqual(['ready', 'announced', 'lost', 'ready', 'announced']);
    expect(events[2]).toMatchObject({ ready: true, announced: true });
  });

  it('[MC-6.1] availability follows setAvailable; telemetry waits while the meter is offline', async () => {
    const l = link({ available: false });
    await l.connect();
    l.push(sample(T0 + 1));
    l.setAvailable(true);
    await l.drained();
    const flow = mine()
      .filter((s) => ['availability', 'telemetry'].includes(channel(s.topic)!))
      .map((s) =>
        channel(s.topic) === 'telemetry' ? 'telemetry' : `online ${(s.json as { online: boolean }).online}`,
      );
    expect(flow).toEqual(['online false', 'online true', 'telemetry']);
  });

  it('does not announce while the meter is not known (info null), and announces when asked', async () => {
    let known = false;
    const l = link({ info: () => (known ? info : null) });
    void l.connect();
    await until(() => l.ready, 'subscribed');
    expect(mine().filter((s) => s.kind === 'publish')).toEqual([]);
    known = true;
    await l.announce(true);
    expect(
      mine()
        .filter((s) => s.kind === 'publish')
        .map((s) => channel(s.topic)),
    ).toEqual(['info', 'state', 'availability']);
  });
});

describe('[MC-8] commands and replies', () => {
  async function setup(
    answer: (id: string, c: MeterCommand) => Answer,
    over: Partial<MeterLinkOptions> = {},
  ) {
    const events: LinkEvent[] = [];
    const svc = await service();
    const l = link({ answer, ...over }, events);
    await l.connect();
    const send = (payload: unknown, retain = false) =>
      svc.client.publishAsync(
        topicFor(ID, 'cmd'),
        typeof payload === 'string' ? payload : JSON.stringify(payload),
        { qos: 1, retain },
      );
    const replies = () => svc.got.filter((m) => channel(m.topic) === 'reply');
    return { events, send, replies, svc };
  }

  it('[MC-8.5] one reply per command, with its id, QoS 1, not retained; [MC-8.1] a retained cmd is ignored', async () => {
    const asked: string[] = [];
    const early = await connectAsync(url, { clientId: 'early', reconnectPeriod: 0 });
    clients.push(early);
    // retained before the meter subscribes: the broker hands it over with the retain flag [MQTT-3.3.1-8]
    await early.publishAsync(
      topicFor(ID, 'cmd'),
      JSON.stringify({ v: 1, id: 'r-1', op: 'set_relay', on: false }),
      {
        qos: 1,
        retain: true,
      },
    );
    const { send, replies } = await setup((id) => {
      asked.push(id);
      return { ok: true };
    });
    await send({ v: 1, id: 'c-1', op: 'set_relay', on: false });
    await until(() => replies().length === 1, 'a reply');
    expect(asked).toEqual(['c-1']);
    expect(replies()[0]).toEqual({
      topic: topicFor(ID, 'reply'),
      retain: false,
      json: { v: 1, id: 'c-1', ok: true },
    });
    expect(mine().find((s) => channel(s.topic) === 'reply')).toMatchObject({ qos: 1, retain: false });
  });

  it('[MC-9.1] a command with a readable id that does not decode is answered bad_request; [MC-9.2] without one, nothing', async () => {
    const { send, replies, events } = await setup(() => ({ ok: true }));
    await send('{"v":1,"op":"set_relay"');
    await send({ v: 1, id: 'c-2', op: 'set_tariff', slot: 'eb', paise: 1.5 });
    await until(() => replies().length === 1, 'a reply');
    await new Promise((r) => setTimeout(r, 50));
    expect(replies()).toHaveLength(1);
    expect(replies()[0]!.json).toMatchObject({ id: 'c-2', ok: false, error: { code: 'bad_request' } });
    expect(events.filter((e) => e.type === 'bad_command')).toHaveLength(2);
  });

  it('an answer may come later (a promise) or from the adapter itself (undefined, then reply())', async () => {
    let later: (r: WireReply) => void = () => undefined;
    const { send, replies } = await setup((id, c) =>
      c.op === 'read'
        ? new Promise<WireReply>((resolve) => (later = resolve))
        : void links[0]!.reply(id, { ok: true }),
    );
    await send({ v: 1, id: 'c-3', op: 'read' });
    await send({ v: 1, id: 'c-4', op: 'set_gateway', enabled: true });
    await until(() => replies().length === 1, 'the adapter reply');
    later({ ok: false, error: { code: 'busy', message: 'later' } });
    await until(() => replies().length === 2, 'the later reply');
    expect(replies().map((m) => (m.json as { id: string }).id)).toEqual(['c-4', 'c-3']);
  });

  it('[MC-8.8] with rememberReplies a repeated id is answered again with the same reply, asked once', async () => {
    let asked = 0;
    const { send, replies, events } = await setup(
      async () => {
        asked++;
        return { ok: true, data: { applied: true, balance: 100 + asked } };
      },
      { rememberReplies: 2 },
    );
    const recharge = (id: string) => ({ v: 1, id, op: 'recharge', amount: 100, transaction_id: 't-1' });
    await send(recharge('c-5'));
    await send(recharge('c-5'));
    await until(() => replies().length === 2, 'two replies');
    expect(asked).toBe(1);
    expect(replies()[1]!.json).toEqual(replies()[0]!.json);
    expect(events.filter((e) => e.type === 'repeated')).toEqual([
      { type: 'repeated', id: 'c-5', op: 'recharge' },
    ]);
    await send(recharge('c-6'));
    await send(recharge('c-7'));
    await send(recharge('c-5')); // forgotten: only the 2 newest are kept
    await until(() => replies().length === 5, 'five replies');
    expect(asked).toBe(4);
  });
});

describe('[MC-7] telemetry', () => {
  it('[MC-7.2] [MC-7.3] [MC-7.6] a backlog goes out in ascending messages of at most 1000, all acknowledged', async () => {
    const { got } = await service();
    const l = link();
    for (let i = 0; i < 2500; i++) l.push(sample(T0 + i));
    l.push(sample(T0 + 10)); // late: a message of its own
    await l.connect();
    await l.drained();
    await until(() => got.filter((m) => channel(m.topic) === 'telemetry').length === 4, 'four messages');
    const messages = got
      .filter((m) => channel(m.topic) === 'telemetry')
      .map((m) => (m.json as { samples: Sample[] }).samples);
    expect(messages.map((m) => m.length)).toEqual([1000, 1000, 500, 1]);
    for (const m of messages)
      expect(m.map((s) => s.ts)).toEqual([...m.map((s) => s.ts)].sort((a, b) => a - b));
    expect(l.published).toBe(2501);
  });

  it('holdPartial sends only full messages until drained() asks for the rest', async () => {
    const { got } = await service();
    const l = link({ holdPartial: true, trustedSamples: true });
    await l.connect();
    for (let i = 0; i < 1200; i++) l.queue(sample(T0 + i));
    l.flush();
    await until(() => l.pending === 200, 'a full message acknowledged');
    await l.drained();
    await until(() => got.filter((m) => channel(m.topic) === 'telemetry').length === 2, 'two messages');
    const sizes = got
      .filter((m) => channel(m.topic) === 'telemetry')
      .map((m) => (m.json as { samples: Sample[] }).samples.length);
    expect(sizes).toEqual([1000, 200]);
  });

  it('a muted meter publishes nothing and is not connected, yet keeps its samples', async () => {
    let muted = true;
    const l = link({ muted: () => muted });
    await l.connect();
    l.push(sample(T0 + 1));
    expect(l.connected).toBe(false);
    expect(mine().filter((s) => s.kind === 'publish')).toEqual([]);
    muted = false;
    l.flush();
    await l.drained();
    expect(
      mine()
        .filter((s) => s.kind === 'publish')
        .map((s) => channel(s.topic)),
    ).toEqual(['telemetry']);
  });
});
