// The ingest benches' publisher: QoS 1 single-sample telemetry as fast as a window of unacknowledged
// messages allows (bench/ingest.ts, bench/scale-ingest.ts).

import type { MqttClient } from 'mqtt';
import { encode } from '../../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';

/** Publishes `count` samples from `start`, one per `periodMs`, at most `window` unacknowledged at a time. */
export function publishAll(
  client: MqttClient,
  deviceId: string,
  start: number,
  count: number,
  opts: { window: number; periodMs: number },
): Promise<void> {
  const topic = topicFor(deviceId, 'telemetry');
  let sent = 0;
  let acked = 0;
  return new Promise((resolve, reject) => {
    const sendMore = () => {
      while (sent < count && sent - acked < opts.window) {
        const i = sent++;
        const sample = {
          ts: start + i * opts.periodMs,
          energy: i * 0.0125,
          active_power: 750 + (i % 50),
          voltage: 230.5,
          balance: 100_000 - i,
        };
        client.publish(topic, encode('telemetry', { v: 1, samples: [sample] }), { qos: 1 }, (err) => {
          if (err) return reject(err);
          acked++;
          if (acked === count) resolve();
          else sendMore();
        });
      }
    };
    sendMore();
  });
}
