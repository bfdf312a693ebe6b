import { describe, expect, it } from 'vitest';
import { RefusalLog } from './refusals.ts';

describe('[MC-9.5] RefusalLog', () => {
  it('counts every refusal by reason but logs only a few per interval, then one summary line', async () => {
    const lines: string[] = [];
    const log = new RefusalLog({ log: (_l, m) => lines.push(m), perInterval: 3, intervalMs: 50 });
    let built = 0;
    for (let i = 0; i < 1000; i++)
      log.refuse('unmatchedReply', () => {
        built++;
        return `reply r-${i}`;
      });
    log.refuse('tsInFuture', () => 'sample', 5);
    expect(log.counts.unmatchedReply).toBe(1000);
    expect(log.counts.tsInFuture).toBe(5);
    expect(built).toBe(3); // details are only built for lines that are written
    expect(lines).toEqual([
      'twins: refused reply r-0 [MC-8.9]',
      'twins: refused reply r-1 [MC-8.9]',
      'twins: refused reply r-2 [MC-8.9]',
    ]);
    await new Promise((r) => setTimeout(r, 120));
    expect(lines.slice(3)).toEqual([
      'twins: refused 1002 more not logged one by one in the last 0.05 s: 997 unmatchedReply [MC-8.9], 5 tsInFuture [MC-3.10]',
    ]);
    // A new interval logs in full again.
    log.refuse('staleState', () => 'state');
    expect(lines.at(-1)).toBe('twins: refused state [MC-5.1]');
    log.stop();
  });
});
