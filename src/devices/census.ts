// The meters the twins know, as gauges by mode and model (issue 22 §1, PM-4): known, online, cut off.
// Counted at scrape time from the twins map, never kept up on the hot path; 10,000 twins take well under
// a millisecond. Modes and models are the contract's enums, so the label sets are few [PM-2].

import type { Metrics } from '../events/metrics.ts';
import { isCutOff } from './twin-events.ts';
import type { Twin } from './types.ts';

/** A twin that has not said its info or state yet. */
const UNKNOWN = 'unknown';

type Labels = { mode: string; model: string };

export const CENSUS_METRICS = {
  known: 'meterstack_meters',
  online: 'meterstack_meters_online',
  cutOff: 'meterstack_meters_cut_off',
} as const;

export function registerCensus(metrics: Metrics, twins: () => Iterable<Twin>): void {
  // One pass per scrape for all three, not one each: the first gauge read counts, the others take it.
  let counted: Map<string, { labels: Labels; known: number; online: number; cutOff: number }> | null = null;
  const count = () => {
    const byKey = new Map<string, { labels: Labels; known: number; online: number; cutOff: number }>();
    for (const t of twins()) {
      const mode = t.state?.mode ?? UNKNOWN;
      const model = t.info?.model ?? UNKNOWN;
      const key = `${mode}/${model}`;
      let c = byKey.get(key);
      if (c === undefined) {
        c = { labels: { mode, model }, known: 0, online: 0, cutOff: 0 };
        byKey.set(key, c);
      }
      c.known++;
      if (t.online) c.online++;
      if (t.state !== null && isCutOff(t.state)) c.cutOff++;
    }
    return byKey;
  };
  const gauge = (name: string, help: string, field: 'known' | 'online' | 'cutOff', first: boolean) =>
    metrics.labelledGauge(name, help, ['mode', 'model'], (set) => {
      if (first || counted === null) counted = count();
      for (const c of counted.values()) set(c.labels, c[field]);
    });
  gauge(CENSUS_METRICS.known, 'Meters the service knows, by mode and model', 'known', true);
  gauge(CENSUS_METRICS.online, 'Meters online now, by mode and model', 'online', false);
  gauge(
    CENSUS_METRICS.cutOff,
    'Prepaid meters cut off now (balance ran out), by mode and model',
    'cutOff',
    false,
  );
}
