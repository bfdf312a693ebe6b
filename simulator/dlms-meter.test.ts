// The DLMS meter answers from the present [AS-1.2]: between two telemetry boundaries it lives up to
// the request first, so a prepaid cut-off, a balance and the registers read mid-period are the
// instant's, not the last boundary's.

import { afterEach, describe, expect, it } from 'vitest';
import { DlmsMeter } from './dlms-meter.ts';
import { createMeter } from './meter/index.ts';

const T0 = Date.UTC(2026, 0, 15, 6, 30);

describe('DlmsMeter.view [AS-1.2]', () => {
  let meter: DlmsMeter | undefined;
  afterEach(() => meter?.stop());

  function start(balance: number) {
    let now = T0;
    const state = createMeter(
      {
        deviceId: 'MTR-DLMS-NOW',
        model: 'full',
        mode: 'prepaid',
        balance,
        load: { kind: 'constant', watts: 3_000 },
        telemetryPeriodMs: 60_000,
      },
      T0,
    );
    meter = new DlmsMeter({ state, now: () => now, log: () => undefined });
    meter.start();
    return { meter, at: (ms: number) => (now = T0 + ms) };
  }

  it('a prepaid cut-off between two boundaries is seen at once, not at the next boundary', () => {
    const { meter, at } = start(1); // 1 paisa: 3 kW spends it within a few seconds at any tariff
    expect(meter.view().snapshot.state.relay_state).toBe(true);
    at(30_000); // half-way to the first boundary
    const { state, sample } = meter.view().snapshot;
    expect(state.relay_state).toBe(false);
    expect(state.balance).toBeLessThanOrEqual(0);
    // No sample is invented between boundaries [M-2]: the last one is still the start's.
    expect(sample.ts).toBe(T0);
  });

  it('the balance read mid-period is the present one; the next boundary still takes its sample', () => {
    const { meter, at } = start(100_000);
    at(20_000);
    const b20 = meter.view().snapshot.state.balance;
    at(40_000);
    const b40 = meter.view().snapshot.state.balance;
    expect(b20).toBeLessThan(100_000);
    expect(b40).toBeLessThan(b20);
    at(60_000);
    const v = meter.view();
    expect(v.history.map((s) => s.ts)).toEqual([T0, T0 + 60_000]);
    expect(v.snapshot.sample.energy).toBeGreaterThan(0);
  });
});
