// `meterstack serve` as real child processes on one database each (a SQLite file, a PostgreSQL schema),
// for the tests that kill and restart it: every child still running after a test is killed (SIGKILL),
// then the clean-ups the test registered run, in order.

import { afterEach } from 'vitest';
import { ServeProcess } from './child.ts';
import { type Sim, simClient } from './service.ts';

export interface ServeOnDb {
  p: ServeProcess;
  sim: Sim;
  httpUrl: string;
  mqttUrl: string;
}

/** Registers the afterEach; `extra` flags follow the common ones (ephemeral ports, no demo, no rate limit). */
export function useServeOnDb(token: string, extra: readonly string[] = []) {
  const running = new Set<ServeProcess>();
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    await Promise.all([...running].map((p) => p.stop('SIGKILL')));
    running.clear();
    for (const c of cleanups.splice(0)) await c();
  });
  return {
    cleanups,
    async serve(db: string): Promise<ServeOnDb> {
      const p = new ServeProcess([
        '--http-port=0',
        '--mqtt-port=0',
        `--db=${db}`,
        `--admin-token=${token}`,
        '--no-demo',
        '--rate-limit=0',
        ...extra,
      ]);
      running.add(p);
      const { httpUrl, mqttUrl } = await p.ready();
      return { p, sim: simClient(httpUrl, token), httpUrl, mqttUrl };
    },
    /** Stops one child with `signal`; its exit code and signal. */
    async stop(p: ServeProcess, signal: NodeJS.Signals) {
      const exit = await p.stop(signal);
      running.delete(p);
      return exit;
    },
  };
}
