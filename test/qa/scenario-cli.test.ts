// `meterstack scenario run` as a real process: exit status, a report naming the failed expectation,
// JUnit XML, the same bytes from two runs, and invalid files refused with file, line and field.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const tmp = tempDir('meterstack-scenario-');
afterAll(() => tmp.remove());

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['test/helpers/meterstack.js', 'scenario', 'run', ...args], {
      cwd: REPO_ROOT,
    });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('meterstack scenario run', () => {
  it('exits 1 on a failed expectation, naming it in the report and in JUnit XML', async () => {
    const junit = join(tmp.dir, 'failing.xml');
    const r = await run(['test/qa/fixtures/failing.yaml', '--junit', junit]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '   3. deliberately wrong: meter MTR-F-1\n        FAIL  balance 12345: expected 12345, got -800',
    );
    expect(r.stdout).toContain('        ok    data.balance -800');
    expect(r.stdout).toContain('FAIL: 2 passed, 1 failed');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('tests="3" failures="1"');
    expect(xml).toContain(
      'name="03. deliberately wrong: meter MTR-F-1: balance 12345"><failure message="expected 12345, got -800"/>',
    );
  });

  it('gives byte-identical reports for the same file and seed', async () => {
    const a = await run([
      'test/qa/fixtures/failing.yaml',
      'fixtures/scenarios/01-prepaid-cutoff.yaml',
      '--seed',
      '5',
    ]);
    const b = await run([
      'test/qa/fixtures/failing.yaml',
      'fixtures/scenarios/01-prepaid-cutoff.yaml',
      '--seed',
      '5',
    ]);
    expect(a.stdout).not.toBe('');
    expect(b.stdout).toBe(a.stdout);
    expect(a.stdout).toContain('seed 5');
  });

  it('refuses an invalid file with exit 2, naming the file, line, column and field', async () => {
    const r = await run(['test/qa/fixtures/invalid.yaml']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'test/qa/fixtures/invalid.yaml:6:14: timeline[0].advance: a duration such as 90s, 15m, 2h or 1d',
    );
    expect(r.stderr).toContain('test/qa/fixtures/invalid.yaml:7:5: timeline[1]: a step has exactly one of');
    expect(r.stderr).toContain('test/qa/fixtures/invalid.yaml:9:21: timeline[2].call.method: Invalid option');
  });
});
