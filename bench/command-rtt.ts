// Command round trip through the device twin, no HTTP: TwinRegistry.command -> embedded broker ->
// virtual meter (step) -> reply -> broker -> twin, all in one in-process service on real TCP sockets.
// Target: p50 <= 1 ms, p99 <= 5 ms.
//
// Run: npx tsx bench/command-rtt.ts [count=5000]

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { TwinCommand } from '../src/devices/types.ts';
import { ServiceExtensions } from '../src/extensions/index.ts';
import { startService } from '../src/service.ts';

const COUNT = Number(process.argv[2] ?? 5_000);
const WARMUP = 500;

const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-rtt-'));
const svc = await startService({
  host: '127.0.0.1',
  httpPort: 0,
  mqttPort: 0,
  db: join(dir, 'bench.db'),
  adminToken: 'bench-admin-token',
  apiKey: 'msk_bench',
  speed: 1,
  demo: false,
  strictPort: false,
  rateLimit: 0,
  commandTimeoutMs: 5_000,
  log: () => {},
  extensions: new ServiceExtensions().list,
});

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function run(deviceId: string, name: string, command: (i: number) => TwinCommand): Promise<boolean> {
  for (let i = 0; i < WARMUP; i++) await svc.world.twins.command(deviceId, command(i));
  const times: number[] = [];
  let failed = 0;
  for (let i = 0; i < COUNT; i++) {
    const t0 = performance.now();
    const outcome = await svc.world.twins.command(deviceId, command(i));
    times.push(performance.now() - t0);
    if (!outcome.ok) failed++;
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const p50 = pct(times, 50);
  const p99 = pct(times, 99);
  const met = p50 <= 1 && p99 <= 5 && failed === 0;
  console.log(
    `${name.padEnd(12)} n=${COUNT}  p50 ${p50.toFixed(3)} ms  p90 ${pct(times, 90).toFixed(3)} ms  ` +
      `p99 ${p99.toFixed(3)} ms  max ${times.at(-1)!.toFixed(3)} ms  mean ${mean.toFixed(3)} ms  ` +
      `failed ${failed}  ${met ? 'target met' : 'TARGET MISSED'} (p50 <= 1 ms, p99 <= 5 ms)`,
  );
  return met;
}

try {
  const { account } = await svc.world.createAccount('bench');
  const { device } = await svc.world.provisionDevice({
    accountId: account.id,
    spaceId: null,
    model: 'full',
    mode: 'postpaid',
    load: { kind: 'constant', watts: 1000 },
  });
  console.log(
    `command round trip through the twin, ${COUNT} sequential commands after ${WARMUP} warm-up; ` +
      `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );
  const ok = [
    await run(device.deviceId, 'read', () => ({ op: 'read' })),
    await run(device.deviceId, 'set_gateway', (i) => ({ op: 'set_gateway', enabled: i % 2 === 0 })),
  ];
  process.exitCode = ok.every(Boolean) ? 0 : 1;
} finally {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
}
