// The bridge's repeated lines summed up (decision 171): a clock passed in, so the window is exact.
import { describe, expect, it } from 'vitest';
import { RepeatedLines } from './repeats.ts';

function lines(windowMs = 60_000) {
  const out: string[] = [];
  let now = 0;
  const r = new RepeatedLines((level, msg) => out.push(`${level} ${msg}`), { windowMs, now: () => now });
  return { out, r, at: (ms: number) => (now = ms) };
}

describe('RepeatedLines', () => {
  it('writes the first of a kind and sums the rest up when something else is said', () => {
    const { out, r, at } = lines();
    r.note('warn', 'down', 'down; retrying in 1 s');
    at(1_000);
    r.note('warn', 'down', 'down; retrying in 2 s');
    at(3_000);
    r.note('warn', 'down', 'down; retrying in 4 s');
    r.note('info', 'up', 'up');
    expect(out).toEqual(['warn down; retrying in 1 s', 'warn down (repeated 2 times in 3 s)', 'info up']);
  });

  it('a window passed while repeats go on writes their sum, then holds again', () => {
    const { out, r, at } = lines(60_000);
    r.note('warn', 'down', 'down');
    for (let t = 10_000; t <= 60_000; t += 10_000) {
      at(t);
      r.note('warn', 'down', 'down');
    }
    expect(out).toEqual(['warn down', 'warn down (repeated 6 times in 60 s)']);
    at(70_000);
    r.note('warn', 'down', 'down');
    r.flush();
    expect(out.at(-1)).toBe('warn down (repeated once more in 10 s)');
  });

  it('a flush with nothing held back writes nothing, and the next line is written', () => {
    const { out, r } = lines();
    r.note('warn', 'down', 'down');
    r.flush();
    r.note('warn', 'down', 'down');
    expect(out).toEqual(['warn down', 'warn down']);
  });
});
