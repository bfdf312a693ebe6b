// [SP-7.4][MC-7.3] The telemetry outbox: failed messages are retried whole and before newer samples, so
// every message the broker gets is ascending and every sample arrives once.
import { describe, expect, it } from 'vitest';
import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { TelemetryOutbox } from './outbox.ts';

const sample = (ts: number): SamplePayload => ({ ts, energy: ts, active_power: 0, voltage: 230, balance: 0 });

describe('[SP-7.4] TelemetryOutbox', () => {
  it('[MC-7.3] retries failed messages whole, oldest first: each message ascends, each sample once', async () => {
    const delivered: number[][] = [];
    let calls = 0;
    const pending: (() => void)[] = [];
    const outbox = new TelemetryOutbox({
      ready: () => true,
      log: () => undefined,
      publish: (samples, done) => {
        const n = calls++;
        // The broker acks out of order; the first two messages fail.
        pending.push(() => {
          if (n < 2) return done(new Error('broker away'));
          delivered.push(samples.map((s) => s.ts));
          done();
        });
      },
    });
    for (let ts = 1; ts <= 2500; ts++) outbox.push(sample(ts));
    await new Promise((r) => setImmediate(r));
    while (pending.length > 0) pending.splice(pending.length - 1, 1)[0]!();
    for (const m of delivered) expect(m).toEqual([...m].sort((a, b) => a - b));
    expect(delivered.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    expect(outbox.published).toBe(2500);
  });
});
