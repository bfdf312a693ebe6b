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
    include: [
      'test/**/*.test.ts',
      'firmware-protocol/**/*.test.ts',
      'simulator/**/*.test.ts',
      'src/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Each worker process runs its files one after another with one module cache, rather than a fresh
    // one per file: importing the service's graph (fastify, aedes, zod, the stores...) again for every
    // file was most of many files' time (10 files of test/api: 81 s to 28 s on this machine). Files
    // still run in a process of their own among other files, each with its own service, ports and
    // temp files; what a file changes at module level (fake timers, env) it must put back.
    isolate: false,
    // Vitest's default is one worker fewer than the cores: 1 on a 2-core CI machine, where the suite
    // then took 14.5 min. Most files wait on brokers, sockets and child processes, so 2 workers halve
    // the wall time there (about 9 min) without starving a 2-core machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
