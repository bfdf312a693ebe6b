import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IndexedRetainedPersistence } from './retained-index.ts';

async function topics(stream: Readable): Promise<string[]> {
  const out: string[] = [];
  for await (const packet of stream) out.push((packet as { topic: string }).topic);
  return out.sort();
}

const packet = (topic: string, payload = '{"v":1}') => ({
  topic,
  payload: Buffer.from(payload),
  retain: true,
  qos: 1,
});

describe('IndexedRetainedPersistence', () => {
  it('answers an exact subscription from the index, and only with that topic', async () => {
    const p = new IndexedRetainedPersistence();
    await p.storeRetained(packet('meterstack/v1/A/state'));
    await p.storeRetained(packet('meterstack/v1/B/state'));
    expect(await topics(p.createRetainedStreamCombi(['meterstack/v1/A/state']))).toEqual([
      'meterstack/v1/A/state',
    ]);
    expect(await topics(p.createRetainedStream('meterstack/v1/C/state'))).toEqual([]);
  });

  it('[MQTT-3.3.1-10] an empty retained payload clears the topic from the index too', async () => {
    const p = new IndexedRetainedPersistence();
    await p.storeRetained(packet('meterstack/v1/A/state'));
    await p.storeRetained(packet('meterstack/v1/A/state', ''));
    expect(await topics(p.createRetainedStream('meterstack/v1/A/state'))).toEqual([]);
    expect(await topics(p.createRetainedStream('meterstack/v1/+/state'))).toEqual([]);
  });

  it('wildcard filters still match every retained topic they cover', async () => {
    const p = new IndexedRetainedPersistence();
    for (const t of ['meterstack/v1/A/state', 'meterstack/v1/B/state', 'meterstack/v1/A/info'])
      await p.storeRetained(packet(t));
    expect(await topics(p.createRetainedStream('meterstack/v1/+/state'))).toEqual([
      'meterstack/v1/A/state',
      'meterstack/v1/B/state',
    ]);
    expect(
      await topics(p.createRetainedStreamCombi(['meterstack/v1/A/info', 'meterstack/v1/#'])),
    ).toHaveLength(4);
  });
});
