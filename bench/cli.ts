// CLI start-up (issue 10, Speed): `meterstack --help` against `node -e 0` with hyperfine, and
// `meterstack serve --no-demo` from spawn to the first 200 from /healthz.
//
// Run: npx tsx bench/cli.ts [--runs 30] [--serve-runs 5]
//
// Targets: --help ≤ 0.3 s wall and ≤ 4× `node -e 0`; serve --no-demo answers /healthz ≤ 1 s after start.
// Measures bin/meterstack.js, i.e. the compiled dist/ (built first, incrementally, so the figures are
// of the code as it is); the same --help run from the TypeScript sources through tsx, as the CLI ran
// before issue 10, is shown for comparison. Needs Debian's `hyperfine` (apt-get install hyperfine).

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string' }, 'serve-runs': { type: 'string' } } });
const RUNS = Number(values.runs ?? 30);
const SERVE_RUNS = Number(values['serve-runs'] ?? 5);

interface HyperfineResult {
  command: string;
  mean: number;
  stddev: number;
  median: number;
  max: number;
}

function hyperfine(commands: string[]): HyperfineResult[] {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  const out = join(dir, 'hyperfine.json');
  try {
    // -N: no intermediate shell, so the figures are node's own start-up, not sh's.
    execFileSync('hyperfine', ['-N', '-w', '3', '-r', String(RUNS), '--export-json', out, ...commands], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return (JSON.parse(readFileSync(out, 'utf8')) as { results: HyperfineResult[] }).results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** ms from spawning `serve --no-demo` to the first 200 from /healthz (polled every 5 ms). */
async function serveToHealthz(): Promise<number> {
  const port = await freePort();
  const args = ['bin/meterstack.js', 'serve', '--no-demo', '--db', ':memory:', '--strict-port'];
  const t0 = performance.now();
  const child = spawn(process.execPath, [...args, '--http-port', String(port), '--mqtt-port', '0'], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (r.status === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      if (performance.now() - t0 > 30_000) throw new Error('no /healthz in 30 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (s: number) => `${(s * 1000).toFixed(1)} ms`;

execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });

const [bare, help, version, fromSources] = hyperfine([
  'node -e 0',
  'node bin/meterstack.js --help',
  'node bin/meterstack.js --version',
  'node test/helpers/meterstack.js --help',
]) as [HyperfineResult, HyperfineResult, HyperfineResult, HyperfineResult];

const serveMs: number[] = [];
for (let i = 0; i < SERVE_RUNS; i++) serveMs.push(await serveToHealthz());

const ratio = (r: HyperfineResult) => r.mean / bare.mean;
const ok = (pass: boolean) => (pass ? 'ok' : 'MISSED');
// A shared machine slows every figure alike; the ratios to `node -e 0` are what travels.
const load = loadavg().map((x) => x.toFixed(1));
console.log(`\nload average ${load.join(' ')} on ${cpus().length} cores`);
console.log(`CLI start-up (hyperfine, ${RUNS} runs each, mean ± σ)`);
for (const r of [bare, help, version, fromSources]) {
  console.log(
    `  ${r.command.padEnd(40)} ${ms(r.mean).padStart(9)} ± ${ms(r.stddev)}   ${ratio(r).toFixed(2)}×`,
  );
}
console.log(
  `  --help: ${ms(help.mean)} (target ≤ 300 ms: ${ok(help.mean <= 0.3)}), ` +
    `${ratio(help).toFixed(2)}× node -e 0 (target ≤ 4×: ${ok(ratio(help) <= 4)}); ` +
    `${(fromSources.mean / help.mean).toFixed(1)}× faster than through tsx`,
);
console.log(
  `\nserve --no-demo, spawn → /healthz 200 (${SERVE_RUNS} runs): median ${median(serveMs).toFixed(0)} ms, ` +
    `max ${Math.max(...serveMs).toFixed(0)} ms (target ≤ 1000 ms: ${ok(median(serveMs) <= 1000)}), ` +
    `${(median(serveMs) / (bare.mean * 1000)).toFixed(1)}× node -e 0`,
);
console.log(`  runs: ${serveMs.map((x) => x.toFixed(0)).join(', ')} ms`);
