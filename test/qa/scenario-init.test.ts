// `meterstack scenario init <name>` as a real process in an empty folder (SC-4): the file it writes
// names the package's JSON Schema by a path that reaches it, and runs green as written. In this
// process: it never overwrites, refuses a name that is no file name, and a mistyped subcommand gets
// "did you mean".

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runScenario } from '../../src/cli/scenario.ts';
import { scenarioInit } from '../../src/cli/scenario-init.ts';
import { SCENARIO_SCHEMA_PATH } from '../../src/qa/scenario/json-schema.ts';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const tmp = tempDir('meterstack-init-');
afterAll(() => tmp.remove());

function scenario(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [join(REPO_ROOT, 'test/helpers/meterstack.js'), 'scenario', ...args], {
      cwd: tmp.dir,
    });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('meterstack scenario init [SC-4]', () => {
  it('SC-4: writes <name>.yaml naming the JSON Schema, and it runs green as written', async () => {
    const init = await scenario(['init', 'first-check']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('wrote first-check.yaml');
    const text = readFileSync(join(tmp.dir, 'first-check.yaml'), 'utf8');
    const ref = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1];
    expect(resolve(tmp.dir, ref!)).toBe(join(REPO_ROOT, SCENARIO_SCHEMA_PATH));
    expect(text).toContain('name: "first-check"');

    const run = await scenario(['run', 'first-check.yaml']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('at 7m30s ± 1s');
    expect(run.stdout).toMatch(/1 scenario\(s\), \d+ expectation\(s\): 0 failed\n$/);
    expect(run.code).toBe(0);
  }, 30_000);

  it('SC-4: never overwrites; refuses a name that is no file name; a typo of init is told', async () => {
    // In this process: the file from the test above is there.
    expect(await scenarioInit(['first-check'], tmp.dir)).toBe(
      'init: first-check.yaml already exists; remove it or give another name',
    );
    expect(await scenarioInit(['../elsewhere'], tmp.dir)).toMatch(
      /^init: '\.\.\/elsewhere' is not a name for a scenario file/,
    );
    expect(await scenarioInit([], tmp.dir)).toBe('init takes one name: meterstack scenario init <name>');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await runScenario(['inti', 'x']);
      expect(String(stderr.mock.calls[0]?.[0])).toContain("unknown subcommand 'inti' (did you mean init?)");
      expect(process.exitCode).toBe(2);
    } finally {
      stderr.mockRestore();
      process.exitCode = 0;
    }
  });
});
