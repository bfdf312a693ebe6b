import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // examples/ import the package by its name, as a user's code does; here it is the source.
  resolve: {
    alias: [
      { find: /^meterstack\/client$/, replacement: src('client/index.ts') },
      { find: /^meterstack$/, replacement: src('harness/index.ts') },
    ],
  },
  test: {
    // Two projects, run together by the same workers. Unit tests beside their code share a module
    // cache within a worker (isolate: false): importing the same graph (zod, fastify, aedes, the
    // stores...) again for each small file was most of their time (40 files of src/: 37 s to 23 s here,
    // and the 80 files of src/ pass so). Integration tests (test/, examples/) keep a fresh module
    // cache per file: each starts services, child processes and brokers, and one of them
    // (test/core/restart.test.ts) timed out in a shared worker where it passes alone.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'simulator/**/*.test.ts', 'firmware-protocol/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts', 'examples/**/*.test.ts'] },
      },
    ],
    // A test that starts `serve` children four times took 13.6 s, and a restart test 16.2 s, on a CI
    // machine ~2.5x slower per request than the one these were written on (2026-11-26): 20 s left them
    // too little room. A hung test still fails, 45 s in.
    testTimeout: 45_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: 1 on a 2-core CI machine, where the suite
    // took 14.5 min. Most files wait on brokers, sockets, child processes and Chromium, not on the CPU:
    // on the 2-core machine the whole suite took 629 s with 3 workers, all 3,633 tests passing (904 s
    // with 2 the same day, on a busier machine), so one worker more than the cores, and at least 3.
    maxWorkers: Math.max(3, availableParallelism() + 1),
  },
});
