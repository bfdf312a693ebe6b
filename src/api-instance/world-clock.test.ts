// An API instance's clock follows the world's stored line (spec-decisions 90).

import { afterEach, describe, expect, it } from 'vitest';
import { CLOCK_ANCHOR_SETTING, FOLLOWERS_SEEN_SETTING } from '../world/clock-anchor.ts';
import { WorldClock } from './world-clock.ts';

const clocks: WorldClock[] = [];
afterEach(() => {
  for (const c of clocks.splice(0)) c.stop();
});

function fixture(anchor: object | null) {
  const settings = new Map<string, string>();
  if (anchor) settings.set(CLOCK_ANCHOR_SETTING, JSON.stringify(anchor));
  let wall = 1_000_000;
  const store = {
    getSetting: async (k: string) => settings.get(k) ?? null,
    setSetting: async (k: string, v: string) => void settings.set(k, v),
  };
  return {
    settings,
    store,
    wall: () => wall,
    tick: (ms: number) => {
      wall += ms;
    },
  };
}

describe('WorldClock', () => {
  it("runs on the world's line: vt + (wall - wt) × speed", async () => {
    const f = fixture({ vt: 5_000_000, wt: 1_000_000, speed: 10 });
    const clock = await WorldClock.open({ store: f.store, wall: f.wall, pollMs: 60_000 });
    clocks.push(clock);
    expect(clock.now()).toBe(5_000_000);
    f.tick(100);
    expect(clock.now()).toBe(5_001_000);
    expect(clock.speed).toBe(10);
  });

  it('takes a new line (an advance) at refresh, and never goes backwards', async () => {
    const f = fixture({ vt: 5_000_000, wt: 1_000_000, speed: 1 });
    const clock = await WorldClock.open({ store: f.store, wall: f.wall, pollMs: 60_000 });
    clocks.push(clock);
    f.settings.set(CLOCK_ANCHOR_SETTING, JSON.stringify({ vt: 9_000_000, wt: 1_000_000, speed: 0 }));
    expect(clock.now()).toBe(5_000_000);
    await clock.refresh();
    expect(clock.now()).toBe(9_000_000);
    f.settings.set(CLOCK_ANCHOR_SETTING, JSON.stringify({ vt: 8_000_000, wt: 1_000_000, speed: 0 }));
    await clock.refresh();
    expect(clock.now()).toBe(9_000_000);
  });

  it('without a world yet: wall time at speed 1; a broken row is passed over', async () => {
    const f = fixture(null);
    f.settings.set(CLOCK_ANCHOR_SETTING, '{"vt":"x"}');
    const clock = await WorldClock.open({ store: f.store, wall: f.wall, pollMs: 60_000 });
    clocks.push(clock);
    expect(clock.now()).toBe(1_000_000);
    expect(clock.speed).toBe(1);
  });

  it('polls on its own', async () => {
    const f = fixture({ vt: 5_000_000, wt: 1_000_000, speed: 0 });
    const clock = await WorldClock.open({ store: f.store, wall: f.wall, pollMs: 10 });
    clocks.push(clock);
    f.settings.set(CLOCK_ANCHOR_SETTING, JSON.stringify({ vt: 6_000_000, wt: 1_000_000, speed: 0 }));
    for (let i = 0; clock.now() < 6_000_000 && i < 100; i++) await new Promise((r) => setTimeout(r, 10));
    expect(clock.now()).toBe(6_000_000);
    // and tells the world a follower reads its clock
    expect(f.settings.get(FOLLOWERS_SEEN_SETTING)).toBe(String(1_000_000));
  });
});
