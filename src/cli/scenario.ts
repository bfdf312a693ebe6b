// `meterstack scenario run <files or directories…>`: runs declarative scenarios (fixtures/README.md)
// against fresh embedded services and reports; exit 1 when any expectation failed, 2 when a file is
// invalid. A directory stands for its scenario files, in name order.

import { existsSync } from 'node:fs';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { didYouMean } from '../qa/did-you-mean.ts';
import type { RunData } from '../qa/report/model.ts';
import { ScenarioCollector } from '../qa/report/scenario-collect.ts';
import { reportPathProblem, sourceHref, writeReport } from '../qa/report/write.ts';
import { loadScenario, ScenarioError } from '../qa/scenario/load.ts';
import { junitReport, textReport } from '../qa/scenario/report.ts';
import { runScenario as runOne, type ScenarioReport } from '../qa/scenario/run.ts';
import { joinNegativeNumbers, usageError } from './usage.ts';

export const SCENARIO_HELP = `usage: meterstack scenario [run] <file.yaml|file.json|directory>... [flags]
       meterstack scenario init <name>   write <name>.yaml, a commented scenario to start from

Runs each scenario on its own embedded meterstack (in-memory store, virtual clock fixed at the
scenario's clock.start, moved only by the timeline) and prints one report. A directory runs every
*.yaml, *.yml and *.json file in it, in name order.

where:
  --junit <file>   also write JUnit XML there
  --seed <n>       override every scenario's seed
  --out <file>     write the text report there instead of stdout
  --report <file>  also write an HTML report there: each meter's power, energy, balance and relay
                   over virtual time, the events, and every expectation at its time (one file, no
                   network needed to open it)

exit status: 0 all expectations held, 1 one failed, 2 a file is invalid

Editors complete and check scenario files from the JSON Schema in the package,
schema/scenario.schema.json: name it on a file's first line with
  # yaml-language-server: $schema=<its path>
`;

export async function runScenario(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help) {
    process.stdout.write(SCENARIO_HELP);
    return;
  }
  if (positionals[0] === 'init') {
    const problem = await (await import('./scenario-init.ts')).scenarioInit(positionals.slice(1));
    return problem === null ? undefined : usage(problem);
  }
  // `run` may be left out: `meterstack scenario fixtures/scenarios`.
  const args = positionals[0] === 'run' ? positionals.slice(1) : positionals;
  if (args.length === 0) return usage('give at least one scenario file or directory');
  // A mistyped subcommand (`scenario inti x`) is not a missing file.
  const sub = args[0]!;
  const guess =
    args === positionals && !/[./\\]/.test(sub) && !existsSync(sub) ? didYouMean(sub, SUBCOMMANDS) : '';
  if (guess) return usage(`unknown subcommand '${sub}'${guess}`);
  const files: string[] = [];
  for (const arg of args) {
    const dir = await stat(arg).then(
      (st) => st.isDirectory(),
      () => false,
    );
    if (!dir) {
      files.push(arg);
      continue;
    }
    const inside = (await readdir(arg)).filter((f) => SCENARIO_FILE.test(f)).sort();
    if (inside.length === 0) return usage(`${arg}: no scenario files (*.yaml, *.yml, *.json) in it`);
    files.push(...inside.map((f) => join(arg, f)));
  }
  if (v.seed !== undefined && !/^\d+$/.test(v.seed)) return usage('--seed must be a whole number');
  const reportProblem = v.report === undefined ? null : await reportPathProblem(v.report);
  if (reportProblem) return usage(reportProblem);

  // Every file is validated before anything runs, so a typo in the tenth file costs no time.
  const scenarios = [];
  const problems: string[] = [];
  for (const file of files) {
    try {
      const s = await loadScenario(file);
      if (v.seed !== undefined) s.seed = Number(v.seed);
      scenarios.push({ file, s });
    } catch (err) {
      if (!(err instanceof ScenarioError)) throw err;
      problems.push(...err.problems);
    }
  }
  if (problems.length > 0) {
    process.stderr.write(
      `meterstack scenario: invalid scenario file(s):\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
    );
    process.exitCode = 2;
    return;
  }
  const reports: ScenarioReport[] = [];
  const runs: RunData[] = [];
  const started = performance.now();
  for (const { file, s } of scenarios) {
    const collector = v.report === undefined ? undefined : new ScenarioCollector();
    const report = await runOne(file, s, collector);
    reports.push(report);
    if (collector && v.report !== undefined) runs.push(collector.result(report, sourceHref(v.report, file)));
  }
  if (v.report !== undefined)
    await writeReport(v.report, {
      kind: 'scenario',
      title: args.join(' '),
      writtenAt: Date.now(),
      wallMs: performance.now() - started,
      runs,
    });
  const text = textReport(reports);
  if (v.out) await writeFile(v.out, text);
  else process.stdout.write(text);
  if (v.junit) await writeFile(v.junit, junitReport(reports));
  process.exitCode = reports.some((r) => r.failed > 0) ? 1 : 0;
}

const SCENARIO_FILE = /\.(ya?ml|json)$/i;
const SUBCOMMANDS = ['run', 'init'];

function usage(msg: string): void {
  usageError('scenario', msg, SCENARIO_HELP);
}

function parse(argv: string[]) {
  return parseArgs({
    args: joinNegativeNumbers(argv),
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      junit: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      report: { type: 'string' },
    },
  });
}
