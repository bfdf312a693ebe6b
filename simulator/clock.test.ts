import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.ts';

function fakeWall(start = 1_000_000) {
  let t = start;
  return { wall: () => t, tick: (ms: number) => (t += ms) };
}

describe('VirtualClock', () => {
  it('follows wall time at speed 1', () => {
    const w = fakeWall();
    const clock = new VirtualClock({ wall: w.wall, start: 5_000 });
    w.tick(250);
    expect(clock.now()).toBe(5_250);
  });

  it('runs N times faster with speed N, and a speed change keeps time continuous', () => {
    const w = fakeWall();
    const clock = new VirtualClock({ wall: w.wall, start: 0, speed: 60 });
    w.tick(1_000);
    expect(clock.now()).toBe(60_000);
    clock.setSpeed(1);
    w.tick(1_000);
    expect(clock.now()).toBe(61_000);
  });

  it('speed 0 freezes it; advance still moves it', async () => {
    const w = fakeWall();
    const clock = new VirtualClock({ wall: w.wall, start: 0, speed: 0 });
    w.tick(10_000);
    expect(clock.now()).toBe(0);
    await clock.advance(3_600_000);
    expect(clock.now()).toBe(3_600_000);
  });

  it('advance waits for every listener and serializes concurrent jumps', async () => {
    const w = fakeWall();
    const clock = new VirtualClock({ wall: w.wall, start: 0, speed: 0 });
    const seen: string[] = [];
    clock.onAdvance(async (from, to) => {
      await new Promise((r) => setTimeout(r, 5));
      seen.push(`${from}->${to}`);
    });
    const a = clock.advance(10);
    const b = clock.advance(20);
    await Promise.all([a, b]);
    expect(seen).toEqual(['0->10', '10->30']);
    expect(clock.now()).toBe(30);
  });

  it('reads `jumping` while the listeners live through a jump, and not after, even when one throws', async () => {
    const clock = new VirtualClock({ start: 0, speed: 0 });
    const during: boolean[] = [];
    let fail = false;
    clock.onAdvance(async () => {
      during.push(clock.jumping);
      await new Promise((r) => setImmediate(r));
      during.push(clock.jumping);
      if (fail) throw new Error('listener failed');
    });
    expect(clock.jumping).toBe(false);
    await clock.advance(60_000);
    expect(clock.jumping).toBe(false);
    fail = true;
    await expect(clock.advance(60_000)).rejects.toThrow('listener failed');
    expect(clock.jumping).toBe(false);
    expect(during).toEqual([true, true, true, true]);
  });

  it('rejects bad speeds and negative or fractional advances with a TypeError', () => {
    expect(() => new VirtualClock({ speed: -1 })).toThrow(TypeError);
    const clock = new VirtualClock();
    expect(() => clock.advance(-5)).toThrow(TypeError);
    expect(() => clock.advance(1.5)).toThrow(TypeError);
  });
});

describe('wallShift [MC-11.2]', () => {
  it('moves with start, advance and set, never with the speed or the passing of wall time', async () => {
    let wall = 1_000_000;
    const clock = new VirtualClock({ wall: () => wall, speed: 0 });
    expect(clock.wallShift()).toBe(0);
    wall += 60_000; // frozen world, wall time passes: offset() falls, the shift does not
    expect(clock.offset()).toBe(-60_000);
    expect(clock.wallShift()).toBe(0);
    await clock.advance(6 * 3_600_000);
    expect(clock.wallShift()).toBe(6 * 3_600_000);
    clock.setSpeed(60);
    wall += 1_000;
    expect(clock.wallShift()).toBe(6 * 3_600_000);
    await clock.set(wall - 86_400_000, 1); // a snapshot of yesterday restored
    expect(clock.wallShift()).toBe(-86_400_000);
    wall += 5_000;
    expect(clock.wallShift()).toBe(clock.offset()); // at speed 1 the two agree
    expect(new VirtualClock({ wall: () => wall, start: wall + 42 }).wallShift()).toBe(42);
  });
});
