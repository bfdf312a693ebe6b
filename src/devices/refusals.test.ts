import { describe, expect, it } from 'vitest';
import { RefusalLog } from './refusals.ts';

describe('[MC-9.5] RefusalLog', () => {
  it('[MC-9.5] counts every refusal by reason but logs only a few per interval, each naming its reason, then one summary line', async () => {
    const lines: string[] = [];
    const log = new RefusalLog({ log: (_l, m) => lines.push(m), perInterval: 3, intervalMs: 50 });
    let built = 0;
    for (let i = 0; i < 1000; i++)
      log.refuse('unmatchedReply', i % 10 === 0 ? 'MTR-2' : 'MTR-1', () => {
        built++;
        return `reply r-${i}`;
      });
    log.refuse('tsInFuture', 'MTR-3', () => 'sample', 5);
    expect(log.counts.unmatchedReply).toBe(1000);
    expect(log.counts.tsInFuture).toBe(5);
    expect(built).toBe(3); // details are only built for lines that are written
    expect(lines).toEqual([
      'twins: refused unmatchedReply: reply r-0 [MC-8.9]',
      'twins: refused unmatchedReply: reply r-1 [MC-8.9]',
      'twins: refused unmatchedReply: reply r-2 [MC-8.9]',
    ]);
    await new Promise((r) => setTimeout(r, 120));
    expect(lines.slice(3)).toEqual([
      'twins: refused 1002 more not logged one by one in the last 0.05 s: ' +
        '997 unmatchedReply [MC-8.9] (from MTR-1: 898, MTR-2: 99), 5 tsInFuture [MC-3.10] (from MTR-3: 5)',
    ]);
    // A new interval logs in full again.
    log.refuse('staleState', 'MTR-1', () => 'state');
    expect(lines.at(-1)).toBe('twins: refused staleState: state [MC-5.1]');
    log.stop();
  });

  it('[MC-8.9][MC-9.5] a forged and an unmatched reply say which they are, though they share a rule (issue 8 item 1)', () => {
    const lines: string[] = [];
    const log = new RefusalLog({ log: (_l, m) => lines.push(m) });
    log.refuse('forgedReply', 'MTR-B', () => 'reply r-1 from MTR-B to a command sent to MTR-A');
    log.refuse('unmatchedReply', 'MTR-B', () => 'reply r-2 from MTR-B (no command waits for it)');
    expect(lines).toEqual([
      'twins: refused forgedReply: reply r-1 from MTR-B to a command sent to MTR-A [MC-8.9]',
      'twins: refused unmatchedReply: reply r-2 from MTR-B (no command waits for it) [MC-8.9]',
    ]);
    log.stop();
  });

  it('[MC-9.5] a flood from many devices names the three that sent most; memory per reason stays bounded', () => {
    const lines: string[] = [];
    const log = new RefusalLog({ log: (_l, m) => lines.push(m), perInterval: 0 });
    for (let d = 0; d < 1000; d++) log.refuse('energyBackwards', `M-${d}`, () => 'sample', d === 7 ? 50 : 1);
    log.refuse('energyBackwards', 'M-3', () => 'sample', 9);
    log.stop();
    expect(lines).toEqual([
      'twins: refused 1058 more not logged one by one in the last 10 s: ' +
        '1058 energyBackwards [MC-7.5] (from M-7: 50, M-3: 10, M-0: 1, 61+ more device(s))',
    ]);
  });
});
