// telemetry.summary (issue 9 §1): telemetry never costs an event per sample. 100 meters publishing
// many samples through a real broker to real twins give at most one event a second, whose counts add
// up to what was sent and which hold each meter's newest sample; nothing comes when nothing is sent.

import { createServer } from 'node:net';
import { Aedes } from 'aedes';
import { connectAsync } from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { TwinRegistry } from '../../src/devices/twins.ts';
import { EventBus } from '../../src/events/bus.ts';
import { Collected } from './collect.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function plainBroker(): Promise<string> {
  const aedes = await Aedes.createBroker();
  const server = createServer((s) => aedes.handle(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(async () => {
    await new Promise<void>((r) => aedes.close(() => r()));
    await new Promise<void>((r) => server.close(() => r()));
  });
  return `mqtt://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const METERS = 100;
const MESSAGES = 12;
const PER_MESSAGE = 5;

describe('telemetry.summary', () => {
  it('100 meters × 60 samples each → ≤ 1 event a second, counts right, newest values per meter', async () => {
    const url = await plainBroker();
    const now = Date.UTC(2026, 10, 23, 12, 0);
    const bus = new EventBus({ now: () => now });
    const seen = new Collected(bus);
    const twins = new TwinRegistry({
      mqttUrl: url,
      username: 'svc',
      password: 'x',
      devicePk: () => 1,
      ingest: async () => undefined,
      now: () => now,
      bus,
    });
    cleanups.push(() => twins.stop());
    await twins.start();
    const pub = await connectAsync(url, { clientId: 'many-meters' });
    cleanups.push(() => pub.endAsync());

    const start = Date.now();
    const t0 = now - 3_600_000;
    const newest = new Map<string, { ts: number; energy: number; active_power: number }>();
    for (let m = 0; m < MESSAGES; m++) {
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < METERS; i++) {
        const id = `MTR-${i}`;
        const samples = Array.from({ length: PER_MESSAGE }, (_, k) => {
          const n = m * PER_MESSAGE + k;
          return {
            ts: t0 + n * 1000,
            energy: n / 1000,
            active_power: i * 10 + n,
            voltage: 230,
            balance: 500 - n,
          };
        });
        newest.set(id, samples[PER_MESSAGE - 1]!);
        sends.push(
          pub.publishAsync(topicFor(id, 'telemetry'), JSON.stringify({ v: 1, samples }), { qos: 1 }),
        );
      }
      await Promise.all(sends);
      // Spread over more than a second, so more than one summary comes.
      await new Promise((r) => setTimeout(r, 120));
    }
    await twins.settled();
    const counted = () => seen.of('telemetry.summary').reduce((n, e) => n + e.data.messages, 0);
    for (let i = 0; counted() < METERS * MESSAGES && i < 300; i++)
      await new Promise((r) => setTimeout(r, 10));
    const elapsed = Date.now() - start;

    const summaries = seen.of('telemetry.summary');
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    expect(summaries.length).toBeLessThanOrEqual(Math.ceil(elapsed / 1000) + 1);
    for (let i = 1; i < summaries.length; i++)
      expect(summaries[i]!.wt - summaries[i - 1]!.wt).toBeGreaterThanOrEqual(900);
    expect(counted()).toBe(METERS * MESSAGES);
    expect(summaries.reduce((n, e) => n + e.data.samples, 0)).toBe(METERS * MESSAGES * PER_MESSAGE);
    // Each meter's newest values: the last summary that names it holds its last sample.
    const lastSeen = new Map<string, { ts: number; energy: number; active_power: number }>();
    for (const e of summaries) for (const m of e.data.meters) lastSeen.set(m.device_id, m);
    expect(lastSeen.size).toBe(METERS);
    for (const [id, s] of newest)
      expect(lastSeen.get(id)).toMatchObject({ ts: s.ts, energy: s.energy, active_power: s.active_power });
    // Never one event per sample: nothing else was emitted for telemetry.
    expect(seen.events.filter((e) => e.type !== 'telemetry.summary')).toEqual([]);

    // Nothing sent: no summary.
    const before = summaries.length;
    await new Promise((r) => setTimeout(r, 1_300));
    expect(seen.of('telemetry.summary').length).toBe(before);
    expect(seen.invalid).toEqual([]);
  });
});
