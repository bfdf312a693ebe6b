// How long the meter domain takes to backfill: 100 household meters × 1 year at a 15-minute period.
// Run: npx tsx bench/meter-fastforward.ts [meters] [days]

import { createMeter, fastForward } from '../simulator/meter/index.ts';

const meters = Number(process.argv[2] ?? 100);
const days = Number(process.argv[3] ?? 365);
const from = Date.UTC(2024, 0, 1) - 330 * 60_000; // 2024-01-01 00:00 IST
const to = from + days * 86_400_000;

const start = performance.now();
const cpuStart = process.cpuUsage();
let samples = 0;
for (let i = 0; i < meters; i++) {
  const meter = createMeter(
    {
      deviceId: `bench-${i}`,
      model: i % 2 === 0 ? 'basic' : 'full',
      mode: 'postpaid',
      load: { kind: 'household', seed: i, peakWatts: 1500 + 20 * i },
      telemetryPeriodMs: 15 * 60_000,
    },
    from,
  );
  samples += fastForward(meter, to).samples.length;
}
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  `fastForward: ${meters} meters × ${days} days at 15 min, household: ${samples} samples in ${ms.toFixed(0)} ms` +
    ` (${((ms / meters / days) * 365).toFixed(1)} ms per meter-year); CPU ${cpuMs.toFixed(0)} ms` +
    ' (wall time suffers on a busy machine; CPU time does less)',
);
