// Builds the C reference (meterline.c) with the machine's gcc, strict C99, and runs it over the golden
// vectors. Without gcc the test fails under CI=true (.ci/run installs it) and skips with a message otherwise.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { vectorsHeader } from './vectors.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const hasGcc = spawnSync('gcc', ['--version']).status === 0;
const required = process.env['CI'] === 'true';
if (!hasGcc && !required)
  console.warn('skipping the C reference tests: gcc not found (CI=true makes this fail)');

describe.skipIf(!hasGcc && !required)('C reference encoder/decoder (c/meterline.c)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meterline-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles with gcc -std=c99 -Wall -Wextra -Werror -pedantic and passes every golden vector', () => {
    expect(hasGcc, 'gcc is required when CI=true').toBe(true);
    writeFileSync(join(dir, 'vectors.h'), vectorsHeader(new URL('../golden/', import.meta.url)));
    const exe = join(dir, 'run-tests');
    const flags = ['-std=c99', '-Wall', '-Wextra', '-Werror', '-pedantic', '-O2', `-I${dir}`, `-I${HERE}`];
    execFileSync('gcc', [...flags, join(HERE, 'meterline.c'), join(HERE, 'run-tests.c'), '-lm', '-o', exe]);
    const run = spawnSync(exe, { encoding: 'utf8' });
    expect(run.stdout).toMatch(/^(?!.*FAIL)[\s\S]* 0 failed\n$/);
    expect(run.status).toBe(0);
  });
});
