// Issue 23 §1, Speed: the HTML report of a 19-scenario run (fixtures/scenarios) written in ≤ 1 s and
// weighing ≤ 2 MB. Runs every fixture scenario in this process with the report's collector (the
// scenarios' own time is not the report's), then builds and writes the page `--rounds` times and
// prints the size, the median and the worst. `--check` exits 1 when a target is missed.
//
// Run: npx tsx bench/report.ts [--rounds 5] [--check] [--keep out.html]

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunData } from '../src/qa/report/model.ts';
import { ScenarioCollector } from '../src/qa/report/scenario-collect.ts';
import { sourceHref, writeReport } from '../src/qa/report/write.ts';
import { loadScenario } from '../src/qa/scenario/load.ts';
import { runScenario } from '../src/qa/scenario/run.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: { rounds: { type: 'string' }, check: { type: 'boolean' }, keep: { type: 'string' } },
});
const rounds = Number(values.rounds ?? 5);
process.chdir(ROOT);
const dir = 'fixtures/scenarios';
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
  .map((f) => join(dir, f));
const scratch = mkdtempSync(join(tmpdir(), 'meterstack-report-bench-'));
const out = values.keep ?? join(scratch, 'report.html');
const runs: RunData[] = [];
const t0 = performance.now();
for (const file of files) {
  const collector = new ScenarioCollector();
  const report = await runScenario(file, await loadScenario(file), collector);
  runs.push(collector.result(report, sourceHref(out, file)));
}
const runMs = performance.now() - t0;
const times: number[] = [];
let bytes = 0;
for (let i = 0; i < rounds; i++) {
  const start = performance.now();
  bytes = await writeReport(out, {
    kind: 'scenario',
    title: dir,
    writtenAt: Date.now(),
    wallMs: runMs,
    runs,
  });
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;
const worst = times.at(-1)!;
const samples = runs.reduce((n, r) => n + r.meters.reduce((k, m) => k + m.t.length, 0), 0);
console.log(
  `${files.length} scenarios (${(runMs / 1000).toFixed(1)} s to run), ${runs.reduce((n, r) => n + r.meters.length, 0)} meter charts, ${samples} samples, ${runs.reduce((n, r) => n + r.checks.length, 0)} expectations`,
);
console.log(
  `report: ${(bytes / 1e6).toFixed(3)} MB (target ≤ 2 MB); built and written in ${median.toFixed(1)} ms median, ${worst.toFixed(1)} ms worst of ${rounds} (target ≤ 1000 ms; the first includes reading uPlot)`,
);
if (!values.keep) rmSync(scratch, { recursive: true, force: true });
if (values.check && (bytes > 2e6 || worst > 1000)) process.exitCode = 1;
