// The fixed-header scanner of [MC-10.1] and [MC-10.2], on byte streams cut at every possible place.

import { generate } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_PACKET_BYTES,
  MAX_CONNECT_BYTES,
  MAX_PAYLOAD_BYTES,
  PacketScanner,
} from './packet-limit.ts';

/** MQTT's remaining-length varint [MQTT-2.2.3]. */
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

const header = (type: number, length: number) => Buffer.from([type << 4, ...varint(length)]);

function publish(payloadBytes: number, qos: 0 | 1 = 1): Buffer {
  return generate({
    cmd: 'publish',
    topic: `meterstack/v1/${'M'.repeat(64)}/availability`,
    payload: Buffer.alloc(payloadBytes, 0x20),
    qos,
    messageId: qos > 0 ? 1 : undefined,
    retain: false,
    dup: false,
  });
}

/** Feeds `bytes` in pieces of `size`; the first refusal, or ok. */
function scan(bytes: Buffer, size: number, max = DEFAULT_MAX_PACKET_BYTES) {
  const s = new PacketScanner(max);
  for (let i = 0; i < bytes.length; i += size) {
    const v = s.feed(bytes.subarray(i, i + size));
    if (!v.ok) return v;
  }
  return { ok: true as const };
}

describe('PacketScanner [MC-10.1] [MC-10.2]', () => {
  const connect = generate({
    cmd: 'connect',
    clientId: 'MTR-000123',
    username: 'MTR-000123',
    password: Buffer.from('mqs_secret'),
    keepalive: 30,
    protocolVersion: 4,
    clean: true,
    will: {
      topic: 'meterstack/v1/MTR-000123/availability',
      payload: Buffer.from('{"v":1,"online":false}'),
      qos: 1,
      retain: true,
    },
  });
  const stream = Buffer.concat([
    connect,
    publish(10),
    publish(MAX_PAYLOAD_BYTES),
    generate({ cmd: 'pingreq' }),
    publish(0, 0),
  ]);

  it('[MC-10.1] lets a stream of valid packets through, the largest MC-3.1 payload included, however it is cut', () => {
    for (const size of [1, 2, 3, 7, 100, 4096, stream.length])
      expect(scan(stream, size)).toEqual({ ok: true });
  });

  it('[MC-10.1] refuses a packet one byte over the limit, from its header alone', () => {
    const v = new PacketScanner(1000).feed(Buffer.concat([connect, header(3, 1001)]));
    expect(v).toMatchObject({ ok: false, rule: 'MC-10.1' });
    expect(new PacketScanner(1000).feed(Buffer.concat([connect, header(3, 1000)]))).toEqual({ ok: true });
  });

  it('[MC-10.1] refuses a 10 MB PUBLISH after a valid stream, the length cut between chunks', () => {
    const bytes = Buffer.concat([stream, header(3, 10_000_000)]);
    for (const size of [1, 2, 5, 1000])
      expect(scan(bytes, size)).toMatchObject({ ok: false, rule: 'MC-10.1' });
  });

  it('[MC-10.2] refuses a CONNECT over 16 KiB (250 MB declared) before anything else', () => {
    expect(new PacketScanner(DEFAULT_MAX_PACKET_BYTES).feed(header(1, 250_000_000))).toMatchObject({
      ok: false,
      rule: 'MC-10.2',
      reason: 'CONNECT declares 250,000,000 bytes, more than 16,384',
    });
    expect(new PacketScanner(DEFAULT_MAX_PACKET_BYTES).feed(header(1, MAX_CONNECT_BYTES))).toEqual({
      ok: true,
    });
    expect(new PacketScanner(DEFAULT_MAX_PACKET_BYTES).feed(header(1, MAX_CONNECT_BYTES + 1))).toMatchObject({
      ok: false,
    });
  });

  it('[MQTT-2.2.3] refuses a remaining length of more than 4 bytes', () => {
    expect(new PacketScanner(1000).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]))).toMatchObject({
      ok: false,
      rule: 'MQTT-2.2.3',
    });
  });

  it('rejects a nonsensical limit', () => {
    expect(() => new PacketScanner(0)).toThrow(TypeError);
  });
});
