// Synthetic traces from the simulator's seeded household curve: a power-only CSV of `days` of samples,
// the same text for the same seed. Used for fixtures/traces/synthetic-week.csv and the year in
// bench/qa.ts (`npx tsx src/qa/traces/synthetic.ts <days> [seed] > file.csv` writes one).

import { powerAt } from '../../../simulator/meter/profiles.ts';
import { voltageAt } from '../../../simulator/meter/readings.ts';
import { toIstIso } from '../../time/ist.ts';

export interface SyntheticOptions {
  /** First sample, ms since the epoch. */
  start: number;
  days: number;
  periodS?: number;
  seed?: number;
  peakWatts?: number;
}

export function syntheticCsv(opts: SyntheticOptions): string {
  const period = (opts.periodS ?? 60) * 1000;
  const seed = opts.seed ?? 1;
  const load = { kind: 'household' as const, seed, peakWatts: opts.peakWatts ?? 3000 };
  const n = Math.round((opts.days * 86_400_000) / period);
  const rows = [
    `# synthetic household, seed ${seed}, peak ${load.peakWatts} W, ${opts.days} days at ${period / 1000} s`,
    '# zone: Asia/Kolkata',
    'ts,active_power,voltage,power_factor',
  ];
  for (let i = 0; i < n; i++) {
    const ts = opts.start + i * period;
    const { watts, powerFactor } = powerAt(load, ts);
    rows.push(`${toIstIso(ts).slice(0, 19)},${watts},${voltageAt(seed, ts)},${powerFactor}`);
  }
  return `${rows.join('\n')}\n`;
}

if (process.argv[1]?.endsWith('qa/traces/synthetic.ts')) {
  const days = Number(process.argv[2] ?? 7);
  const seed = Number(process.argv[3] ?? 1);
  process.stdout.write(syntheticCsv({ start: Date.parse('2026-01-05T00:00:00+05:30'), days, seed }));
}
