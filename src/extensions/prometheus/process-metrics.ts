// [PM-5] The process's own metrics (CPU, memory, event-loop lag, handles; prom-client's default set),
// collected into one registry per process, made on the first scrape: several services in one test
// process share one process, and a collector per service would watch the event loop once per service.

import { collectDefaultMetrics, Registry } from 'prom-client';

let registry: Registry | null = null;

/** The process's registry, made once. */
export function processRegistry(): Registry {
  if (registry === null) {
    registry = new Registry();
    // Their usual names (process_*, nodejs_*), which dashboards for Node services already know.
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}
