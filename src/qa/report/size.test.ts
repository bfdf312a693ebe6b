// Issue 23 §1, Speed, RP-3: a report of 19 scenarios weighs ≤ 2 MB (its ≤ 1 s: bench/report.ts). Here at
// the most the recorder keeps (two meters a run at just under a thinning, many checks and marks),
// which bounds a real run of the fixture scenarios from above (bench/report.ts measures that one).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReportData, RunData } from './model.ts';
import { POINTS, RunRecorder } from './recorder.ts';
import { writeReport } from './write.ts';

const dir = mkdtempSync(join(tmpdir(), 'meterstack-report-size-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(i: number): RunData {
  const r = new RunRecorder();
  const t0 = Date.parse('2026-01-05T00:00:00+05:30');
  for (const id of [`MTR-${i}-A`, `MTR-${i}-B`]) {
    // Just under a thinning: the most samples a meter is ever left with.
    for (let k = 0; k < 2 * POINTS - 1; k++)
      r.sample(id, {
        ts: t0 + k * 60_000,
        active_power: 1234.5 + (k % 97),
        energy: 1520.123 + k * 0.021,
        balance: 100_000 - k * 17,
      });
    for (let k = 0; k < 20; k++) r.relay(id, t0 + k * 3_600_000, k % 2 === 0);
  }
  for (let k = 0; k < 40; k++)
    r.mark({
      t: t0 + k * 60_000,
      kind: 'recharge',
      meter: null,
      text: `1000 paise, applied: balance ${k} paise`,
    });
  for (let k = 0; k < 60; k++)
    r.check({
      t: t0 + k * 60_000,
      meters: [],
      step: k,
      line: k + 10,
      label: 'meter MTR-1-A',
      what: 'balance 100',
      ok: k % 10 !== 0,
      failure: k % 10 ? null : 'expected 100, got 99',
      seen: k % 10 ? null : '{"balance":99,"relay":true}',
    });
  return r.result({
    file: `fixtures/scenarios/${i}.yaml`,
    href: `${i}.yaml`,
    name: `scenario ${i}`,
    seed: i,
    vtStart: t0,
    vtEnd: t0 + 2 * POINTS * 60_000,
    wallMs: 1000,
    setupError: null,
    notes: [],
  });
}

describe('a report of 19 scenarios at the recorder’s bounds', () => {
  // The time bound is bench/report.ts's to measure (a timed test fails on a busy machine, not on a slow
  // report); the size is deterministic, so it is checked here.
  it('weighs ≤ 2 MB', async () => {
    const data: ReportData = {
      kind: 'scenario',
      title: 'fixtures/scenarios',
      writtenAt: 0,
      wallMs: 1,
      runs: Array.from({ length: 19 }, (_, i) => run(i + 1)),
    };
    await writeReport(join(dir, 'warm.html'), data); // uPlot read once, as in a real run
    const bytes = await writeReport(join(dir, 'report.html'), data);
    expect(bytes).toBeLessThanOrEqual(2_000_000);
  });
});
