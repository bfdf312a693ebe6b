import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allDevicesFilter,
  CHANNELS,
  DEVICE_ID_PATTERN,
  METER_PUBLISHES,
  METER_SUBSCRIBES,
  PUBLISH_OPTIONS,
  parseTopic,
  SERVICE_PUBLISHES,
  topicFor,
} from './topics.ts';

describe('topics', () => {
  it('[MC-1.1] builds and parses meterstack/v1/{device_id}/{channel}', () => {
    for (const channel of CHANNELS) {
      expect(topicFor('MTR-01', channel)).toBe(`meterstack/v1/MTR-01/${channel}`);
      expect(parseTopic(topicFor('MTR-01', channel))).toEqual({ deviceId: 'MTR-01', channel });
    }
  });

  it.each(['a', 'A-Z_0.9', 'x'.repeat(64)])('[MC-1.2] accepts the device id %s', (id) => {
    expect(DEVICE_ID_PATTERN.test(id)).toBe(true);
  });

  it.each(['', 'x'.repeat(65), 'a/b', 'a+b', 'a#', 'a b', 'mé'])(
    '[MC-1.2] rejects the device id "%s"',
    (id) => {
      expect(DEVICE_ID_PATTERN.test(id)).toBe(false);
    },
  );

  it.each([
    'meterstack/v1/m/state/',
    '/meterstack/v1/m/state',
    'meterstack/V1/m/state',
    'meterstack/v1/m/State',
  ])('[MC-1.3] does not parse %s', (topic) => {
    expect(parseTopic(topic)).toBeNull();
  });

  it('[MC-1.1] [MC-1.3] parses as splitting on every / would, whatever the topic', () => {
    // The rule as first written: exactly four levels, the root's two, a device id, a channel.
    const bySplit = (topic: string) => {
      const parts = topic.split('/');
      if (parts.length !== 4 || `${parts[0]}/${parts[1]}` !== 'meterstack/v1') return null;
      const [, , deviceId, channel] = parts as [string, string, string, string];
      const known = (CHANNELS as readonly string[]).includes(channel);
      return DEVICE_ID_PATTERN.test(deviceId) && known ? { deviceId, channel } : null;
    };
    const level = fc.oneof(
      fc.constantFrom(
        'meterstack',
        'v1',
        'V1',
        '',
        'meterstack/v1',
        'x'.repeat(64),
        'x'.repeat(65),
        ...CHANNELS,
      ),
      fc.string({ maxLength: 8 }),
      fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/),
    );
    const topic = fc.array(level, { minLength: 0, maxLength: 6 }).map((levels) => levels.join('/'));
    fc.assert(
      fc.property(
        fc.oneof(
          topic,
          topic.map((t) => `meterstack/v1/${t}`),
        ),
        (t) => {
          expect(parseTopic(t)).toEqual(bySplit(t));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('[MC-2.1] [MC-2.2] [MC-2.3] every channel has exactly one publisher side', () => {
    expect([...METER_PUBLISHES, ...SERVICE_PUBLISHES].sort()).toEqual([...CHANNELS].sort());
    expect(METER_SUBSCRIBES).toEqual(SERVICE_PUBLISHES);
    expect(allDevicesFilter('telemetry')).toBe('meterstack/v1/+/telemetry');
  });

  it('[MC-4.1] [MC-5.1] [MC-6.1] [MC-7.1] [MC-8.1] only info, state and availability are retained; all QoS 1', () => {
    expect(CHANNELS.filter((c) => PUBLISH_OPTIONS[c].retain)).toEqual(['info', 'state', 'availability']);
    expect(CHANNELS.every((c) => PUBLISH_OPTIONS[c].qos === 1)).toBe(true);
  });
});
