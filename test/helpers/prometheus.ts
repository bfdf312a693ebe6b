// A real Prometheus server (Debian's /usr/bin/prometheus) on an ephemeral port for a test, scraping
// one target every second with a bearer token, from a generated config in a temp directory removed by
// `stop()`; queried over its HTTP API (PromQL). Never a machine's own Prometheus on 9090.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './prism.ts';

export const PROMETHEUS = '/usr/bin/prometheus';
export const hasPrometheus = existsSync(PROMETHEUS);
/** Skip here when it is not installed, but never in CI, where the test must fail instead. */
export const skipWithoutPrometheus = !hasPrometheus && process.env['CI'] !== 'true';

export interface RunningPrometheus {
  url: string;
  /** An instant PromQL query's vector: each result's labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** Resolves once a successful scrape (`up == 1`) started after wall time `afterMs`. */
  waitForScrape(afterMs: number, timeoutMs?: number): Promise<void>;
  log(): string;
  stop(): Promise<void>;
}

/** Starts Prometheus scraping `target` (host:port) at /metrics every second with `token` as bearer token. */
export async function startPrometheus(target: string, token: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-prom-'));
  const port = await freePort();
  writeFileSync(join(dir, 'token'), token);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: meterstack',
      '    authorization:',
      `      credentials_file: ${join(dir, 'token')}`,
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  let output = '';
  const proc: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  proc.stdout?.on('data', (d) => (output += d));
  proc.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const query = async (promql: string) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as {
      status: string;
      error?: string;
      data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (body.status !== 'success') throw new Error(`PromQL ${promql}: ${body.error}`);
    return (body.data?.result ?? []).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  const ready = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited ${proc.exitCode}: ${output}`);
    }
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > ready) {
      await stop();
      throw new Error(`prometheus not ready in 10 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    query,
    async waitForScrape(afterMs, timeoutMs = 8000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        // The newest sample of `up` is stamped with its scrape's start: one after the test's actions.
        const up = await query('timestamp(up{job="meterstack"} == 1)');
        if ((up[0]?.value ?? 0) * 1000 > afterMs) return;
        if (Date.now() > end) throw new Error(`no successful scrape in ${timeoutMs} ms: ${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    log: () => output,
    stop,
  };
}
