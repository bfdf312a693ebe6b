// The fleet lives a big jump through one meter per turn of the event loop, and its periodic tick stands
// aside meanwhile [spec-decisions 197]: a tick on the jump's end reached every meter not yet lived
// through in one synchronous loop (10,000 meters, six hours: ~9 s in which no HTTP request was read).
// Real virtual meters, offline (what they would publish waits in their outbox), on a real clock.

import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.ts';
import { createMeter } from './meter/index.ts';
import { Fleet } from './meter-fleet.ts';
import { VirtualMeter } from './virtual-meter.ts';

const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);
const SIX_HOURS = 6 * 3_600_000;
const N = 150;

function offlineMeter(i: number, clock: VirtualClock): VirtualMeter {
  return new VirtualMeter({
    state: createMeter(
      { deviceId: `FLT-${i}`, balance: 100_000, load: { kind: 'constant', watts: 500 + i } },
      T0,
    ),
    now: () => clock.now(),
    mqttUrl: 'mqtt://127.0.0.1:1', // never dialled: the meters stay offline
    password: 'unused',
    online: false,
  });
}

describe('Fleet: a clock jump', () => {
  it('reaches one meter per turn of the event loop, its 1 ms periodic tick standing aside, and bills each as a meter ticked alone', async () => {
    const clock = new VirtualClock({ start: T0, speed: 0 });
    const fleet = new Fleet({ clock, tickMs: 1 });
    for (let i = 0; i < N; i++) await fleet.add(offlineMeter(i, clock));
    fleet.start();
    const to = T0 + SIX_HOURS;
    const reached = () => [...fleet.meters()].filter((m) => m.state.lastTs === to).length;
    // Once a turn, how many meters reached the jump's end since the last turn.
    const steps: number[] = [];
    let last = 0;
    let done = false;
    const watch = () => {
      const now = reached();
      steps.push(now - last);
      last = now;
      if (!done) setImmediate(watch);
    };
    setImmediate(watch);
    await clock.advance(SIX_HOURS).finally(() => {
      done = true;
    });
    await fleet.stop();

    expect(reached()).toBe(N);
    // Living 150 meters through six hours takes far longer than 1 ms, so the periodic tick came due
    // many times; had it run, one turn would have taken every meter still waiting.
    expect(Math.max(...steps)).toBeLessThanOrEqual(2);
    expect(steps.filter((s) => s > 0).length).toBeGreaterThanOrEqual(N / 2);
    for (const [i, m] of [...fleet.meters()].entries()) {
      const alone = offlineMeter(i, clock);
      alone.tick(to);
      expect(m.state.balance).toBe(alone.state.balance);
      expect(m.pendingSamples).toBe(alone.pendingSamples);
      expect(m.pendingSamples).toBe(SIX_HOURS / 60_000);
    }
  });
});
