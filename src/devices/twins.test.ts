// The twins behind a broker that does not enforce meterstack's rules (any MQTT broker may stand in for
// the embedded one): they must refuse by themselves what the contract forbids.

import { createServer } from 'node:net';
import { Aedes } from 'aedes';
import { connectAsync } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { Metrics } from '../events/metrics.ts';
import type { SampleRow } from '../store/types.ts';
import { TWIN_METRICS } from './channels/context.ts';
import { TwinRegistry } from './twins.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function plainBroker(onAedes?: (aedes: Aedes) => void): Promise<string> {
  const aedes = await Aedes.createBroker();
  onAedes?.(aedes);
  const server = createServer((s) => aedes.handle(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(async () => {
    await new Promise<void>((r) => aedes.close(() => r()));
    await new Promise<void>((r) => server.close(() => r()));
  });
  const { port } = server.address() as { port: number };
  return `mqtt://127.0.0.1:${port}`;
}

describe('TwinRegistry on a broker that lets anything through', () => {
  it('[MC-2.7] ignores retained telemetry and replies and counts them', async () => {
    const url = await plainBroker();
    const meter = await connectAsync(url, { clientId: 'M1' });
    cleanups.push(() => meter.endAsync());
    const sample = { ts: NOW, energy: 1, active_power: 1, voltage: 230, balance: 0 };
    await meter.publishAsync(topicFor('M1', 'telemetry'), JSON.stringify({ v: 1, samples: [sample] }), {
      qos: 1,
      retain: true,
    });
    await meter.publishAsync(topicFor('M1', 'reply'), JSON.stringify({ v: 1, id: 'r-1', ok: true }), {
      qos: 1,
      retain: true,
    });

    const stored: SampleRow[] = [];
    const twins = new TwinRegistry({
      mqttUrl: url,
      username: 'svc',
      password: 'x',
      devicePk: () => 1,
      ingest: async (rows) => void stored.push(...rows),
      now: () => NOW,
    });
    cleanups.push(() => twins.stop());
    await twins.start(); // the broker hands over both retained messages on subscribe
    for (let i = 0; twins.refused.retained < 2 && i < 300; i++) await new Promise((r) => setTimeout(r, 10));
    expect(twins.refused.retained).toBe(2);
    expect(twins.refused.unmatchedReply).toBe(0);
    await twins.settled();
    expect(stored).toEqual([]);
    expect(twins.get('M1')?.latest ?? null).toBeNull();

    // The same sample, not retained, is taken.
    await meter.publishAsync(topicFor('M1', 'telemetry'), JSON.stringify({ v: 1, samples: [sample] }), {
      qos: 1,
    });
    for (let i = 0; stored.length === 0 && i < 300; i++) await new Promise((r) => setTimeout(r, 10));
    expect(stored.map((r) => r.ts)).toEqual([NOW]);
  });
});

describe('TwinRegistry and zero-length payloads', () => {
  it('[MC-9.6] an empty telemetry or reply is malformed (MC-3.1), counted and logged; an empty retained topic is cleared [MC-2.4]', async () => {
    const url = await plainBroker();
    const lines: string[] = [];
    const metrics = new Metrics();
    const twins = new TwinRegistry({
      mqttUrl: url,
      username: 'svc',
      password: 'x',
      devicePk: () => 1,
      ingest: async () => {},
      now: () => NOW,
      metrics,
      log: (_level, line) => void lines.push(line),
    });
    cleanups.push(() => twins.stop());
    await twins.start();
    const meter = await connectAsync(url, { clientId: 'M3' });
    cleanups.push(() => meter.endAsync());
    for (const channel of ['info', 'state', 'availability'] as const)
      await meter.publishAsync(topicFor('M3', channel), '', { qos: 1, retain: true });
    await meter.publishAsync(topicFor('M3', 'telemetry'), '', { qos: 1 });
    await meter.publishAsync(topicFor('M3', 'reply'), Buffer.alloc(0), { qos: 1 });
    for (let i = 0; metrics.value(TWIN_METRICS.malformed)! < 2 && i < 300; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(metrics.value(TWIN_METRICS.malformed)!).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(
        /dropped malformed message on meterstack\/v1\/M3\/telemetry: empty payload \[MC-3\.1\]$/,
      ),
      expect.stringMatching(
        /dropped malformed message on meterstack\/v1\/M3\/reply: empty payload \[MC-3\.1\]$/,
      ),
    ]);
  });
});

describe('TwinRegistry and a flood of malformed messages', () => {
  it('[MC-9.7] counts every one; logs the first five one by one and the rest in one summary line', async () => {
    const url = await plainBroker();
    const lines: string[] = [];
    const metrics = new Metrics();
    const twins = new TwinRegistry({
      mqttUrl: url,
      username: 'svc',
      password: 'x',
      now: () => NOW,
      metrics,
      log: (_level, line) => void lines.push(line),
    });
    await twins.start();
    const meter = await connectAsync(url, { clientId: 'M4' });
    cleanups.push(() => meter.endAsync());
    for (let i = 0; i < 20; i++) await meter.publishAsync(topicFor('M4', 'telemetry'), '', { qos: 1 });
    for (let i = 0; metrics.value(TWIN_METRICS.malformed)! < 20 && i < 300; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(metrics.value(TWIN_METRICS.malformed)!).toBe(20);
    await twins.stop(); // ends the interval: its summary is written
    expect(lines.filter((l) => l.includes('dropped malformed message on'))).toHaveLength(5);
    expect(lines).toContain(
      'twins: dropped 15 more malformed message(s) not logged one by one in the last 10 s: 15 [MC-3.1] (from M4: 15)',
    );
  });
});

describe('TwinRegistry beside other service processes (issue 11 §4)', () => {
  it("[MC-8.9] a reply to a peer's command is ignored silently; the sender takes it; a guess is still refused", async () => {
    const url = await plainBroker();
    const meter = await connectAsync(url, { clientId: 'M2' });
    cleanups.push(() => meter.endAsync());
    const bMetrics = new Metrics();
    const registry = (metrics?: Metrics) =>
      new TwinRegistry({ mqttUrl: url, username: 'svc', password: 'x', now: () => NOW, metrics });
    const [a, b] = [registry(), registry(bMetrics)];
    cleanups.push(
      () => a.stop(),
      () => b.stop(),
    );
    await a.start();
    await b.start();
    await meter.subscribeAsync(topicFor('M2', 'cmd'));
    meter.on('message', (_t, payload) => {
      const { id } = JSON.parse(String(payload)) as { id: string };
      void meter.publishAsync(topicFor('M2', 'reply'), JSON.stringify({ v: 1, id, ok: true, data: {} }));
    });
    await meter.publishAsync(
      topicFor('M2', 'availability'),
      JSON.stringify({ v: 1, online: true, ts: NOW }),
      { retain: true, qos: 1 },
    );
    for (let i = 0; !(a.get('M2')?.online && b.get('M2')?.online) && i < 300; i++)
      await new Promise((r) => setTimeout(r, 10));

    expect(await a.command('M2', { op: 'set_relay', on: true })).toMatchObject({ ok: true });
    for (let i = 0; bMetrics.value(TWIN_METRICS.peerReplies)! < 1 && i < 300; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(bMetrics.value(TWIN_METRICS.peerReplies)!).toBe(1);
    expect(b.refused.unmatchedReply + b.refused.forgedReply).toBe(0);

    // A reply in no service's shape is a meter's guess: refused as before, by both.
    await meter.publishAsync(topicFor('M2', 'reply'), JSON.stringify({ v: 1, id: 'guess-1', ok: true }));
    for (let i = 0; b.refused.unmatchedReply < 1 && i < 300; i++) await new Promise((r) => setTimeout(r, 10));
    expect([a.refused.unmatchedReply, b.refused.unmatchedReply]).toEqual([1, 1]);
  });
});

describe('TwinRegistry: the QoS of its subscriptions [MC-2.3]', () => {
  /** The filters the service subscribed with and the QoS each was granted, as the broker saw them. */
  async function subscribed(telemetryQos?: 0 | 1) {
    const granted = new Map<string, number>();
    const url = await plainBroker((aedes) =>
      aedes.on('subscribe', (subs) => {
        for (const sub of subs) granted.set(sub.topic, sub.qos);
      }),
    );
    const stored: SampleRow[] = [];
    const twins = new TwinRegistry({
      mqttUrl: url,
      username: 'svc',
      password: 'x',
      devicePk: () => 1,
      ingest: async (rows) => void stored.push(...rows),
      now: () => NOW,
      telemetryQos,
    });
    cleanups.push(() => twins.stop());
    await twins.start();
    return { url, granted, stored };
  }

  it('takes telemetry at QoS 1 by default, state and reply at QoS 0', async () => {
    const { granted } = await subscribed();
    expect(Object.fromEntries(granted)).toEqual({
      'meterstack/v1/+/info': 1,
      'meterstack/v1/+/availability': 1,
      'meterstack/v1/+/telemetry': 1,
      'meterstack/v1/+/state': 0,
      'meterstack/v1/+/reply': 0,
    });
  });

  it('takes telemetry at QoS 0 when told (the embedded broker): the meter still gets its PUBACK, the reading is stored', async () => {
    const { url, granted, stored } = await subscribed(0);
    expect(granted.get('meterstack/v1/+/telemetry')).toBe(0);
    expect(granted.get('meterstack/v1/+/info')).toBe(1);
    const meter = await connectAsync(url, { clientId: 'M5' });
    cleanups.push(() => meter.endAsync());
    const sample = { ts: NOW, energy: 1, active_power: 1, voltage: 230, balance: 0 };
    // A QoS 1 publish resolves once its PUBACK came.
    await meter.publishAsync(topicFor('M5', 'telemetry'), JSON.stringify({ v: 1, samples: [sample] }), {
      qos: 1,
    });
    for (let i = 0; stored.length === 0 && i < 300; i++) await new Promise((r) => setTimeout(r, 10));
    expect(stored.map((r) => r.ts)).toEqual([NOW]);
  });
});
