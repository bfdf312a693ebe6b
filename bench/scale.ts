// Issue 11's speed figures in one run: each part's bench as a child process, one after another (so they
// never compete for this machine's cores), its output passed through, its verdict lines gathered at the
// end. Every part runs its own peer in the same run; the targets are ratios to it.
//
//   ingest    bench/scale-ingest.ts: an external Mosquitto into PostgreSQL vs the same Mosquitto to a bare
//             subscriber (≥ 0.8×, zero loss), and the embedded broker with SQLite beside it
//   fleet     bench/fleet-workers.ts: 50,000 meters over 5 fleet workers, telemetry every 10 s, 2 minutes,
//             zero lost; a core Mosquitto, 5 edge Mosquittos bridged to it (a worker's meters all go to one
//             edge, and an edge holds fewer than 20,000: its open-files limit), PostgreSQL
//   history   bench/store-pg.ts: a year at 1d on PostgreSQL vs SQLite, same data (p50 ≤ 3×)
//   api       bench/api-instances.ts: GET device on one API instance vs two, CPU per request
//
// Run: npm run build && npx tsx bench/scale.ts [--only ingest,fleet,history,api] [--meters 50000]

import { spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'ingest,fleet,history,api' },
    meters: { type: 'string', default: '50000' },
  },
});

const PARTS: Record<string, string[]> = {
  ingest: ['bench/scale-ingest.ts', '--db', 'postgres', '--rounds', '3'],
  fleet: ['bench/fleet-workers.ts', values.meters, '5', '120', '10', '--edges', '5', '--db', 'postgres'],
  history: ['bench/store-pg.ts'],
  api: ['bench/api-instances.ts', '--rounds', '3'],
};
// The lines each bench prints that carry its verdict or its headline figures.
const VERDICT =
  /target|TARGET|lost|median|ratio|×|connected:|RSS per worker|window .* CPU|readings:|p50|req\/s|per request/;

const summary: string[] = [];
for (const part of values.only.split(',')) {
  const args = PARTS[part];
  if (!args) throw new Error(`unknown part ${part}: one of ${Object.keys(PARTS).join(', ')}`);
  console.log(`\n== ${part}: npx tsx ${args.join(' ')}  (load ${loadavg()[0]!.toFixed(2)})`);
  const started = Date.now();
  const out = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      process.stdout.write(d);
      text += d;
    });
    child.once('exit', (code) => resolve(`${text}\n(exit ${code})`));
  });
  summary.push(
    `${part} (${((Date.now() - started) / 1000).toFixed(0)} s):`,
    ...out
      .split('\n')
      .filter((l) => VERDICT.test(l))
      .map((l) => `  ${l.trim()}`),
  );
}
console.log(
  `\n== summary: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg()[0]!.toFixed(2)}`,
);
for (const line of summary) console.log(line);
