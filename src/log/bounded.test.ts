import { describe, expect, it } from 'vitest';
import { BoundedLog, type Tally } from './bounded.ts';

function make(perInterval: number, namesPerKey = 2, intervalMs = 10_000) {
  const summaries: Map<string, Tally>[] = [];
  const log = new BoundedLog<string>({
    perInterval,
    intervalMs,
    namesPerKey,
    summarize: (counted) => summaries.push(new Map(counted)),
  });
  return { log, summaries };
}

describe('[MC-9.5][MC-10.5] BoundedLog', () => {
  it('[MC-9.5][MC-10.5] tells the first few of an interval, counts the rest by key and name, totals all', () => {
    const { log, summaries } = make(2);
    const told = [
      log.note('bad', 'a'),
      log.note('bad', 'a'),
      log.note('bad', 'a', 3),
      log.note('late', 'b'),
      log.note('bad', 'c'),
    ];
    expect(told).toEqual([true, true, false, false, false]);
    expect(log.mayTell()).toBe(false);
    expect(Object.fromEntries(log.totals)).toEqual({ bad: 6, late: 1 });
    expect(summaries).toEqual([]);
    log.flush();
    expect(summaries).toHaveLength(1);
    expect([...summaries[0]!.keys()]).toEqual(['bad', 'late']); // first counted first
    expect(summaries[0]!.get('bad')).toEqual({
      n: 4,
      byName: new Map([
        ['a', 3],
        ['c', 1],
      ]),
      untracked: 0,
    });
    expect(summaries[0]!.get('late')).toEqual({ n: 1, byName: new Map([['b', 1]]), untracked: 0 });
    // A new interval tells again; totals go on.
    expect(log.mayTell()).toBe(true);
    expect(log.note('bad')).toBe(true);
    expect(log.totals.get('bad')).toBe(7);
    log.flush();
    expect(summaries).toHaveLength(1); // nothing was only counted: no summary
  });

  it('[MC-9.5] names past the bound are counted as untracked, so memory stays bounded whoever floods', () => {
    const { log, summaries } = make(0, 2);
    for (const name of ['x', 'y', 'z', 'w', 'x']) log.note('bad', name);
    log.note('bad'); // no name: counted, not named
    log.flush();
    expect(summaries[0]!.get('bad')).toEqual({
      n: 6,
      byName: new Map([
        ['x', 2],
        ['y', 1],
      ]),
      untracked: 2,
    });
  });

  it('[MC-10.5] the interval ends by itself: the summary comes without a flush', async () => {
    const { log, summaries } = make(1, 2, 30);
    log.note('bad', 'a');
    log.note('bad', 'a');
    for (let i = 0; i < 200 && summaries.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.get('bad')!.n).toBe(1);
    expect(log.mayTell()).toBe(true);
  });

  it("budget 'key': each key tells its own share, so a flood of one never hides another (issue 9 §2)", () => {
    const summaries: Map<string, Tally>[] = [];
    const log = new BoundedLog<string>({
      perInterval: 2,
      intervalMs: 10_000,
      namesPerKey: 2,
      budget: 'key',
      summarize: (counted) => summaries.push(new Map(counted)),
    });
    const told = ['flood', 'flood', 'flood', 'flood', 'other', 'other', 'other'].map((k) => log.note(k));
    expect(told).toEqual([true, true, false, false, true, true, false]);
    log.flush();
    expect([...summaries[0]!].map(([k, t]) => [k, t.n])).toEqual([
      ['flood', 2],
      ['other', 1],
    ]);
    expect(log.note('flood')).toBe(true); // a new interval, a new share
  });
});
