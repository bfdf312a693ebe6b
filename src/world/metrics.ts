// The world's numbers in the service's metrics (issue 22 §1, PM-4): the telemetry store writes (each
// batch's latency, the rows waiting), the fleet workers and their leases, and the ledger check's
// disagreements. Gauges are read at scrape time from what the world keeps anyway.

import type { Metrics } from '../events/metrics.ts';
import type { BatchWriter } from '../store/batch-writer.ts';
import type { MeterLedger } from './meter-ledger.ts';
import type { WorkerHub } from './workers/hub.ts';

/** Seconds: a SQLite batch of a few thousand rows takes milliseconds; a slow disk or PostgreSQL, more. */
const WRITE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The batch writer's hook: each transaction's latency and rows. */
export function storeWriteObserver(metrics: Metrics): (rows: number, seconds: number) => void {
  const latency = metrics.histogram(
    'meterstack_store_batch_write_seconds',
    'Time to write one batch of telemetry samples to the store (one transaction)',
    [],
    WRITE_BUCKETS,
  );
  const rows = metrics.counter(
    'meterstack_store_rows_written_total',
    'Telemetry sample rows written to the store',
  );
  return (n, seconds) => {
    latency.observe(seconds);
    rows.inc(n);
  };
}

export function registerWorldMetrics(
  metrics: Metrics,
  world: { writer: BatchWriter; workers: WorkerHub; ledger: MeterLedger },
): void {
  metrics.gauge(
    'meterstack_store_queue_rows',
    'Telemetry sample rows accepted and not yet committed (queued or in the transaction in flight)',
    () => world.writer.pendingRows,
  );
  metrics.gauge(
    'meterstack_ledger_disagreements',
    'Virtual meters whose balance disagreed with their ledger at the last whole check (at start, GET /sim/v1/ledger) [LEDGER-3]',
    () => world.ledger.lastDisagreements,
  );
  metrics.labelledGauge(
    'meterstack_fleet_workers',
    'Fleet worker leases by state: alive (heartbeats coming), dead (none for too long), released (stopped)',
    ['state'],
    (set) => {
      const n = { alive: 0, dead: 0, released: 0 };
      for (const l of world.workers.list()) n[l.released ? 'released' : l.alive ? 'alive' : 'dead']++;
      for (const [state, v] of Object.entries(n)) set({ state }, v);
    },
  );
  metrics.labelledGauge(
    'meterstack_fleet_worker_meters',
    'Meters each fleet worker with a live lease hosts (workers are few: their names are the label)',
    ['worker'],
    (set) => {
      for (const l of world.workers.list()) if (l.alive) set({ worker: l.name }, l.meters.length);
    },
  );
  metrics.labelledGauge(
    'meterstack_fleet_worker_heartbeat_age_seconds',
    "Seconds since each live fleet worker's last heartbeat (its lease ends when none come)",
    ['worker'],
    (set) => {
      const now = Date.now();
      for (const l of world.workers.list()) if (l.alive) set({ worker: l.name }, (now - l.lastBeat) / 1000);
    },
  );
}
