// Replay progress by trace time (every second, rate and ETA from the first sample) and Ctrl-C: the
// line itself, the reporter's timing, and `meterstack replay` as a real process stopped by SIGINT.

import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressLine, progressReporter, span } from '../../src/qa/replay/progress.ts';
import type { Progress } from '../../src/qa/replay/replay.ts';
import { REPO_ROOT } from '../helpers/child.ts';

const FIRST = Date.parse('2026-01-05T00:00:00+05:30');
const H = 3_600_000;
const at = (hours: number, samples: number, endTs: number | null = FIRST + 24 * H): Progress => ({
  loop: 0,
  done: samples,
  total: 1440,
  ts: FIRST + hours * H,
  samples,
  firstTs: FIRST,
  endTs,
});

describe('replay progress', () => {
  it('spans read as people say them', () => {
    expect([0, 42_000, 307_000, 10 * H + 5 * 60_000, 51 * H].map(span)).toEqual([
      '0s',
      '42s',
      '5m07s',
      '10h05m',
      '2d03h',
    ]);
  });

  it('says the trace time covered, the rate and the ETA, counted from the first sample', () => {
    // 6 of 24 h covered in 2 s of wall time, 360 samples after the first: 180 samples/s, 6 s to go.
    expect(progressLine(at(6, 361), { wall: 1000, samples: 1 }, 3000)).toBe(
      'replay  25.0%, trace time 2026-01-05T06:00+05:30 (6h00m of 1d00h), 180 samples/s, ETA 6s',
    );
    // Looping until stopped: no end, so no percentage and no ETA.
    expect(progressLine({ ...at(30, 1801, null), loop: 1 }, { wall: 0, samples: 0 }, 10_000)).toBe(
      'replay pass 2, trace time 2026-01-06T06:00+05:30 (+1d06h), 180 samples/s',
    );
  });

  it('prints every interval once the first sample is played, and where it ended', async () => {
    const out = new PassThrough();
    let text = '';
    out.setEncoding('utf8').on('data', (d: string) => (text += d));
    let now = 0;
    const r = progressReporter(out, { wall: () => now, everyMs: 20 });
    r.update({ ...at(0, 0) }); // provisioning done, no sample yet: the clock has not started
    await new Promise((res) => setTimeout(res, 60));
    expect(text).toBe('');
    now = 5000;
    r.update(at(0, 1));
    now = 6000;
    r.update(at(12, 721));
    await new Promise((res) => setTimeout(res, 50));
    now = 7000;
    r.update(at(24, 1441));
    r.end();
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe(
      'replay  50.0%, trace time 2026-01-05T12:00+05:30 (12h00m of 1d00h), 720 samples/s, ETA 1s',
    );
    expect(lines.at(-1)).toBe(
      'replay 100.0%, trace time 2026-01-06T00:00+05:30 (1d00h of 1d00h), 720 samples/s, ETA 0s',
    );
  });

  it('meterstack replay: progress lines every second, and Ctrl-C stops it cleanly with exit 130', async () => {
    const p = spawn(
      process.execPath,
      ['test/helpers/meterstack.js', 'replay', 'fixtures/traces/synthetic-week.csv', '--speed', '3600'],
      { cwd: REPO_ROOT },
    );
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const progressed = new Promise<void>((resolve) => {
      p.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        if ((stderr.match(/^replay /gm) ?? []).length >= 2) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => p.on('exit', (c) => resolve(c)));
    // A replay that ends before its second progress line fails here with what it said, not at the timeout.
    const first = await Promise.race([progressed.then(() => 'progressed' as const), exited]);
    expect(first, `the replay exited before two progress lines:\n${stderr}\n${stdout}`).toBe('progressed');
    p.kill('SIGINT');
    const code = await exited;
    expect(code).toBe(130);
    const lines = stderr.split('\n').filter((l) => l.startsWith('replay '));
    for (const l of lines)
      expect(l).toMatch(
        /^replay +\d+\.\d%, trace time 2026-\d\d-\d\dT\d\d:\d\d\+05:30 \(\S+ of 6d23h\), [\d,]+ samples\/s, ETA \S+$/,
      );
    expect(stderr).toContain('meterstack replay: interrupted; stopping');
    expect(stdout).toMatch(
      /^interrupted at trace time \S+, having played fixtures\/traces\/synthetic-week\.csv \(csv\): \d+ samples/,
    );
    expect(stdout).toContain('history  not checked (interrupted)');
  }, 60_000);
});
