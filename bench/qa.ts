// QA speed figures (issue "QA: trace replay and declarative scenarios"):
//   1. the two-day UCI trace (2,880 samples) with --instant, end to end with history: in process
//      (start a service, load, provision, publish, read back the v2 history) and as the CLI;
//   2. a synthetic year of one-minute samples (525,600) for one meter, generated, parsed, replayed and
//      read back;
//   3. every fixture scenario, as `meterstack scenario run`.
// Run: npx tsx bench/qa.ts

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replay } from '../src/qa/replay/replay.ts';
import { embeddedTarget } from '../src/qa/replay/target.ts';
import { loadTrace, parseTrace } from '../src/qa/traces/load.ts';
import { syntheticCsv } from '../src/qa/traces/synthetic.ts';

const UCI = 'fixtures/traces/uci-household-2007-02-01.csv';
const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-qa-'));
const line = (what: string, s: number, extra = '') =>
  console.log(`${what.padEnd(58)} ${s.toFixed(2).padStart(6)} s ${extra}`);

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await run();
  return [value, (performance.now() - t) / 1000];
}

try {
  // 1. UCI, in process: everything from starting the service to the history read back.
  const [uci, uciS] = await timed(async () => {
    const target = await embeddedTarget({ db: join(dir, 'uci.db') });
    try {
      return await replay({
        trace: await loadTrace(UCI),
        target,
        device: {},
        pace: { kind: 'instant' },
        loops: 1,
        meter: {},
      });
    } finally {
      await target.close();
    }
  });
  line('UCI 2 days, 2,880 samples, --instant, in process', uciS, `(history verified: ${uci.verified})`);

  const cliStart = performance.now();
  const cli = spawnSync(process.execPath, ['bin/meterstack.js', 'replay', '--instant', UCI], {
    encoding: 'utf8',
  });
  const reported = /in ([\d.]+) s/.exec(cli.stdout)?.[1];
  const cliS = (performance.now() - cliStart) / 1000;
  line(
    'UCI as `meterstack replay --instant`: the replay, as it reports',
    Number(reported),
    cli.status === 0 ? '' : `exit ${cli.status}`,
  );
  line('  the whole process (tsx start, service up and down)', cliS);

  // 2. A synthetic year for one meter.
  const [year, yearS] = await timed(async () => {
    const target = await embeddedTarget({ db: join(dir, 'year.db') });
    try {
      const text = syntheticCsv({ start: Date.parse('2025-01-01T00:00:00+05:30'), days: 365 });
      return await replay({
        trace: parseTrace('year.csv', text),
        target,
        device: {},
        pace: { kind: 'instant' },
        loops: 1,
        meter: {},
      });
    } finally {
      await target.close();
    }
  });
  line(
    `synthetic year, ${year.samples.toLocaleString('en')} samples: generate, parse, replay, verify`,
    yearS,
    `(history verified: ${year.verified})`,
  );

  // 3. Every fixture scenario.
  const files = readdirSync('fixtures/scenarios')
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .map((f) => `fixtures/scenarios/${f}`);
  const t = performance.now();
  const run = spawnSync(process.execPath, ['bin/meterstack.js', 'scenario', 'run', ...files], {
    encoding: 'utf8',
  });
  const summary = run.stdout.trim().split('\n').at(-1);
  line(
    `${files.length} fixture scenarios, \`meterstack scenario run\` (process)`,
    (performance.now() - t) / 1000,
    `(${summary})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
