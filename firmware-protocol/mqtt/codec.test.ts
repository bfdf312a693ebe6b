import { describe, expect, it } from 'vitest';
import { decode, decodeMessage, encode, MAX_PAYLOAD_BYTES } from './codec.ts';
import type { SamplePayload } from './schemas.ts';
import { topicFor } from './topics.ts';

const sample = (ts: number, energy = 1): SamplePayload => ({
  ts,
  energy,
  active_power: 100,
  voltage: 230,
  balance: 0,
});
const telemetry = (n: number) =>
  JSON.stringify({ v: 1, samples: Array.from({ length: n }, (_, i) => sample(i)) });
const info = {
  v: 1,
  device_id: 'm-1',
  model: 'basic',
  firmware: '1.0.0',
  has_relay: true,
  telemetry_period_s: 60,
  properties: [
    { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
    { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
    { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
  ],
} as const;

describe('payload encoding', () => {
  it('[MC-3.1] decodes a Buffer exactly like the same text', () => {
    const text = JSON.stringify({ v: 1, online: true, ts: 5 });
    expect(decode('availability', Buffer.from(text))).toEqual(decode('availability', text));
  });

  it('[MC-3.1] rejects a payload that is not valid UTF-8', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"v":1,"online":true,"x":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    expect(decode('availability', bytes)).toEqual({
      ok: false,
      error: { rule: 'MC-3.1', message: 'payload is not valid UTF-8' },
    });
  });

  it('[MC-3.1] accepts multi-byte UTF-8 text', () => {
    const payload = Buffer.from(
      '{"v":1,"id":"c-1","op":"set_wifi","ssid":"घर का वाईफ़ाई","password":"पासवर्ड"}',
    );
    expect(decode('cmd', payload)).toMatchObject({ ok: true, value: { ssid: 'घर का वाईफ़ाई' } });
  });

  it('[MC-3.1] rejects a byte order mark', () => {
    expect(decode('availability', '\uFEFF{"v":1,"online":true}')).toMatchObject({
      ok: false,
      error: { rule: 'MC-3.1' },
    });
  });

  it('[MC-3.1] rejects payloads over MAX_PAYLOAD_BYTES, counting UTF-8 bytes of strings', () => {
    const big = `{"v":1,"online":true,"pad":"${'x'.repeat(MAX_PAYLOAD_BYTES)}"}`;
    expect(decode('availability', big)).toMatchObject({ ok: false, error: { rule: 'MC-3.1' } });
    expect(decode('availability', Buffer.from(big))).toMatchObject({ ok: false, error: { rule: 'MC-3.1' } });
    // Fewer characters than the limit, but three bytes each.
    const wide = `{"v":1,"online":true,"pad":"${'€'.repeat(MAX_PAYLOAD_BYTES / 2)}"}`;
    expect(wide.length).toBeLessThan(MAX_PAYLOAD_BYTES);
    expect(decode('availability', wide)).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('larger') },
    });
  });

  it('[MC-3.3] names both versions when v differs', () => {
    expect(decode('availability', '{"v":2,"online":true}')).toEqual({
      ok: false,
      error: { rule: 'MC-3.3', message: 'v: unsupported contract version 2; this receiver speaks v1' },
    });
  });

  it('[MC-3.6] drops unknown fields from the decoded value', () => {
    expect(decode('availability', '{"v":1,"online":true,"extra":{"a":1}}')).toEqual({
      ok: true,
      value: { v: 1, online: true },
    });
  });

  it('[MC-9.3] never throws, whatever the bytes', () => {
    const sources = [
      telemetry(3),
      JSON.stringify(info),
      '{"v":1,"id":"c-1","op":"recharge","amount":5,"transaction_id":"t"}',
    ];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (const source of sources) {
      for (let cut = 0; cut <= source.length; cut++) {
        for (const channel of ['info', 'state', 'availability', 'telemetry', 'cmd', 'reply'] as const) {
          expect(() => decode(channel, source.slice(0, cut))).not.toThrow();
        }
      }
      for (let i = 0; i < 200; i++) {
        const bytes = Buffer.from(source);
        bytes[random() % bytes.length] = random() % 256;
        expect(() => decode('telemetry', bytes)).not.toThrow();
      }
    }
  });
});

describe('telemetry batches', () => {
  it('[MC-7.2] accepts 1000 samples and rejects 1001', () => {
    expect(decode('telemetry', telemetry(1000)).ok).toBe(true);
    expect(decode('telemetry', telemetry(1001))).toMatchObject({
      ok: false,
      error: { rule: 'MC-7.2', message: expect.stringContaining('samples: Too big') },
    });
  });

  it('[MC-7.2] a full batch of samples with every field fits in MAX_PAYLOAD_BYTES', () => {
    const full = { ...sample(1_732_270_000_000, 123456.123456), current: 12.345678, power_factor: -0.987654 };
    const payload = { v: 1, samples: Array.from({ length: 1000 }, (_, i) => ({ ...full, ts: full.ts + i })) };
    const text = JSON.stringify({
      ...payload,
      samples: payload.samples.map((s) => ({ ...s, apparent_power: 2999.99, reactive_power: -1234.5678 })),
    });
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_PAYLOAD_BYTES);
  });

  it('[MC-7.4] rejects a sample that is not an object without tripping the order check', () => {
    const text = JSON.stringify({ v: 1, samples: [sample(1), 42, sample(0)] });
    expect(decode('telemetry', text)).toMatchObject({
      ok: false,
      error: { rule: 'MC-7.4', message: expect.stringMatching(/^samples\.1: /) },
    });
  });

  it('[MC-7.3] reports the first out-of-order sample by index', () => {
    const text = JSON.stringify({ v: 1, samples: [sample(1), sample(2), sample(2), sample(1)] });
    expect(decode('telemetry', text)).toMatchObject({
      ok: false,
      error: { rule: 'MC-7.3', message: expect.stringMatching(/^samples\.2\.ts: /) },
    });
  });
});

describe('info properties', () => {
  const withProps = (properties: unknown[]) => JSON.stringify({ ...info, properties });

  it('[MC-4.3] accepts a property id it does not know, even one named like an Object member', () => {
    const extra = { property_id: 'constructor', context_type: 'instantaneous', unit: 'Hz' };
    expect(decode('info', withProps([...info.properties, extra])).ok).toBe(true);
  });

  it('[MC-4.3] rejects a malformed property item without tripping the name checks', () => {
    expect(decode('info', withProps(['energy', ...info.properties]))).toMatchObject({
      ok: false,
      error: { rule: 'MC-4.3', message: expect.stringMatching(/^properties\.0: /) },
    });
  });
});

describe('decodeMessage', () => {
  it('[MC-1.1] returns the device id and channel from the topic', () => {
    const result = decodeMessage(topicFor('m-1', 'availability'), '{"v":1,"online":false}');
    expect(result).toEqual({
      ok: true,
      value: { deviceId: 'm-1', channel: 'availability', payload: { v: 1, online: false } },
    });
  });

  it.each([
    'meterstack/v2/m-1/state',
    'meterstack/v1/m-1/state/extra',
    'meterstack/v1/m-1/status',
    'meterstack/v1/m+1/state',
    'other/v1/m-1/state',
  ])('[MC-1.3] rejects the topic %s', (topic) => {
    expect(decodeMessage(topic, '{"v":1}')).toMatchObject({ ok: false, error: { rule: 'MC-1.3' } });
  });

  it('[MC-1.4] rejects info whose device_id differs from the topic', () => {
    expect(decodeMessage(topicFor('m-2', 'info'), JSON.stringify(info))).toMatchObject({
      ok: false,
      error: { rule: 'MC-1.4' },
    });
    expect(decodeMessage(topicFor('m-1', 'info'), JSON.stringify(info)).ok).toBe(true);
  });
});

describe('encode', () => {
  it('[MC-3.6] writes only known keys, in schema order', () => {
    const value = { online: true, extra: 1, v: 1 } as unknown as { v: 1; online: boolean };
    expect(encode('availability', value)).toBe('{"v":1,"online":true}');
  });

  it('[MC-7.3] throws a TypeError citing the rule rather than publish an invalid payload', () => {
    const value = { v: 1 as const, samples: [sample(2), sample(1)] };
    expect(() => encode('telemetry', value)).toThrow(TypeError);
    expect(() => encode('telemetry', value)).toThrow(/\[MC-7\.3\] samples\.1\.ts/);
  });
});
