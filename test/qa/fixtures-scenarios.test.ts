// CI runs every fixture scenario: they must all pass.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';

describe('fixtures/scenarios', () => {
  it('all pass under meterstack scenario run', () => {
    const files = readdirSync(`${REPO_ROOT}fixtures/scenarios`)
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .map((f) => `fixtures/scenarios/${f}`);
    expect(files.length).toBeGreaterThanOrEqual(8);
    const r = spawnSync(process.execPath, ['test/helpers/meterstack.js', 'scenario', 'run', ...files], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`${files.length} scenario(s)`);
    expect(r.stdout).toMatch(/expectation\(s\): 0 failed\n$/);
    expect(r.status).toBe(0);
  }, 60_000);
});
