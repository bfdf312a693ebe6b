import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuietTimer } from './quiet-timer.ts';

describe('QuietTimer [HD-8.3, AS-8.2]', () => {
  let now = 0;
  let quiet = 0;
  const timer = () =>
    new QuietTimer(
      25,
      () => quiet++,
      () => now,
    );
  beforeEach(() => {
    vi.useFakeTimers();
    now = 0;
    quiet = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('[HD-8.3] on time: quiet once 25 ms pass with no byte', () => {
    const t = timer();
    t.arm();
    now = 24;
    vi.advanceTimersByTime(24);
    expect(quiet).toBe(0);
    now = 25;
    vi.advanceTimersByTime(1);
    expect(quiet).toBe(1);
  });

  it('[HD-8.3] a byte restarts the spell', () => {
    const t = timer();
    t.arm();
    now = 20;
    vi.advanceTimersByTime(20);
    t.arm();
    now = 40;
    vi.advanceTimersByTime(20);
    expect(quiet).toBe(0);
    now = 45;
    vi.advanceTimersByTime(5);
    expect(quiet).toBe(1);
  });

  it('[AS-8.2] a timer that fires late (the process was held off the CPU) waits once more: the bytes waiting in the port are read first', () => {
    const t = timer();
    t.arm();
    now = 200; // woke 175 ms late: the rest of the frame may be waiting unread
    vi.advanceTimersByTime(25);
    expect(quiet).toBe(0);
    t.arm(); // the waiting bytes were read
    now = 225;
    vi.advanceTimersByTime(25);
    expect(quiet).toBe(1);
  });

  it('a process late every time still flushes after a few waits (bounded)', () => {
    const t = timer();
    t.arm();
    for (let i = 0; i < 10 && quiet === 0; i++) {
      now += 1000;
      vi.advanceTimersByTime(25);
    }
    expect(quiet).toBe(1);
  });

  it('clear: no call', () => {
    const t = timer();
    t.arm();
    t.clear();
    now = 100;
    vi.advanceTimersByTime(100);
    expect(quiet).toBe(0);
  });
});
