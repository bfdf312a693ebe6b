// Endpoint 12's reading of the store, once: the interval's bucket, the range of whole IST days, and the
// stamp of each value (the interval's last second in +05:30). The v2 route and the CSV export of
// /sim/v1 (HX-1) both read history through here, so a file and the API never disagree.

import type { BucketMinutes, HistoryPoint, SampleProperty, Store } from '../../store/types.ts';
import { DAY_MS, istDayStart, istIsoSecondsFormatter } from '../../time/ist.ts';
import type { INTERVALS } from './schemas.ts';

export type Interval = (typeof INTERVALS)[number];

export const BUCKETS: Record<Interval, BucketMinutes> = {
  '15m': 15,
  '30m': 30,
  '60m': 60,
  '1d': 1440,
};

/** [from, to) in ms: from `from` 00:00 IST to the end of `to` (two valid YYYY-MM-DD, validated before). */
export function dayRange(from: string, to: string): [number, number] {
  return [istDayStart(from) as number, (istDayStart(to) as number) + DAY_MS];
}

/**
 * A stamper for one interval: a point's time as the API writes it, the interval's last second in +05:30.
 * One Date per IST day, not per reading (toIstIsoSeconds was half the time of a year at 15m).
 */
export function historyStamper(interval: Interval): (p: HistoryPoint) => string {
  const bucketMs = BUCKETS[interval] * 60_000;
  const stamp = istIsoSecondsFormatter();
  return (p) => stamp(p.bucketStart + bucketMs - 1000);
}

/** The stored points of `property` in [fromTs, toTs) at `interval`: what endpoint 12 answers. */
export function readHistory(
  store: Pick<Store, 'history'>,
  devicePk: number,
  property: SampleProperty,
  [fromTs, toTs]: readonly [number, number],
  interval: Interval,
): Promise<HistoryPoint[]> {
  return store.history(devicePk, property, fromTs, toTs, BUCKETS[interval]);
}
