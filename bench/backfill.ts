// Backfill: new meters given a year of past readings in one bulk write each, through
// World.provisionDevice (the path POST /sim/v1/devices takes), on a real SQLite file.
// Targets: >= 400,000 readings/s (a reading is one property value: a basic sample carries 3, a full one
// 7; the balance is not counted), and a year of 15-minute history for 100 meters in <= 30 s.
//
// Run: npx tsx bench/backfill.ts [meters=100] [days=365] [periodS=900]

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MeterModel } from '../firmware-protocol/mqtt/vocabulary.ts';
import { ServiceExtensions } from '../src/extensions/index.ts';
import { startService } from '../src/service.ts';

const METERS = Number(process.argv[2] ?? 100);
const DAYS = Number(process.argv[3] ?? 365);
const PERIOD_S = Number(process.argv[4] ?? 900);
const READINGS_PER_SAMPLE: Record<MeterModel, number> = { basic: 3, full: 7 };

const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-backfill-'));
const svc = await startService({
  host: '127.0.0.1',
  httpPort: 0,
  mqttPort: 0,
  db: join(dir, 'bench.db'),
  adminToken: 'bench-admin-token',
  apiKey: 'msk_bench',
  speed: 0,
  demo: false,
  strictPort: false,
  rateLimit: 0,
  commandTimeoutMs: 5_000,
  log: () => {},
  extensions: new ServiceExtensions().list,
});

try {
  const { account } = await svc.world.createAccount('bench');
  console.log(
    `backfill: ${METERS} meters (half basic, half full; household load) × ${DAYS} days at ${PERIOD_S} s, ` +
      `through World.provisionDevice; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );
  let samples = 0;
  let readings = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < METERS; i++) {
    const model: MeterModel = i % 2 === 0 ? 'basic' : 'full';
    const { device } = await svc.world.provisionDevice({
      accountId: account.id,
      spaceId: null,
      model,
      mode: 'postpaid',
      load: { kind: 'household', seed: i + 1, peakWatts: 1500 + 20 * i },
      backfillDays: DAYS,
      backfillPeriodS: PERIOD_S,
    });
    const n = await svc.store.countSamples(device.pk);
    samples += n;
    readings += n * READINGS_PER_SAMPLE[model];
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const rate = readings / seconds;
  const expected = METERS * Math.floor((DAYS * 86_400) / PERIOD_S);
  console.log(
    `  ${samples.toLocaleString('en')} samples (expected ~${expected.toLocaleString('en')}), ` +
      `${readings.toLocaleString('en')} readings in ${seconds.toFixed(2)} s ` +
      `(CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s)`,
  );
  console.log(
    `  ${Math.round(rate).toLocaleString('en')} readings/s: ${rate >= 400_000 ? 'target met' : 'TARGET MISSED'} (>= 400,000)`,
  );
  if (METERS === 100 && DAYS === 365 && PERIOD_S === 900) {
    console.log(
      `  100 meters × 1 year at 15 min in ${seconds.toFixed(2)} s: ${seconds <= 30 ? 'target met' : 'TARGET MISSED'} (<= 30 s)`,
    );
  }
} finally {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
}
