// CI runs every fixture scenario (the directory, as a user would): they must all pass.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';

describe('fixtures/scenarios', () => {
  it('all pass under meterstack scenario run', () => {
    const files = readdirSync(`${REPO_ROOT}fixtures/scenarios`)
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .map((f) => `fixtures/scenarios/${f}`);
    expect(files.length).toBeGreaterThanOrEqual(16);
    const r = spawnSync(process.execPath, ['test/helpers/meterstack.js', 'scenario', 'fixtures/scenarios'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`${files.length} scenario(s)`);
    expect(r.stdout).toMatch(/expectation\(s\): 0 failed\n$/);
    expect(r.status).toBe(0);
  }, 160_000);
});
