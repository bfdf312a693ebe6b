// `meterstack scenario run` as a real process: exit status, a report naming the failed expectation
// with its file:line and what was seen, JUnit XML with time, file and line, a directory run as one
// report, the same bytes from two runs, and invalid files (unknown meters too) refused with file,
// line and field.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const tmp = tempDir('meterstack-scenario-');
afterAll(() => tmp.remove());

function run(
  args: string[],
  sub = ['run'],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['test/helpers/meterstack.js', 'scenario', ...sub, ...args], {
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
      [
        '   3. deliberately wrong: meter MTR-F-1',
        '        FAIL  balance 12345: expected 12345, got -800',
        '              at test/qa/fixtures/failing.yaml:15',
        '              seen {"balance":-800}',
        '',
      ].join('\n'),
    );
    expect(r.stdout).toContain('        ok    data.balance -800');
    expect(r.stdout).toContain('FAIL: 2 passed, 1 failed');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('tests="3" failures="1"');
    expect(xml).toMatch(
      /<testcase classname="test\.qa\.fixtures\.failing" name="03\. deliberately wrong: meter MTR-F-1: balance 12345" file="test\/qa\/fixtures\/failing\.yaml" line="15" time="\d+\.\d{3}"><failure message="expected 12345, got -800">expected 12345, got -800\nat test\/qa\/fixtures\/failing\.yaml:15\nseen \{&#34;balance&#34;:-800\}<\/failure><\/testcase>/,
    );
    expect(xml).toMatch(
      /<testcase [^>]*name="04\. GET \/api\/v2\/devices\/MTR-F-1\/: data\.balance -800" file="test\/qa\/fixtures\/failing\.yaml" line="17" time="\d+\.\d{3}"\/>/,
    );
  });

  it('a directory runs every scenario file in it, in name order, as one report; each failure shows what was seen', async () => {
    const dir = 'test/qa/fixtures/failures';
    const r = await run([dir], []);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const a = `${dir}/a-what-was-seen.yaml`;
    expect(r.stdout.indexOf(`scenario ${a}`)).toBe(0);
    expect(r.stdout).toContain(`scenario ${dir}/b-passes.yaml: A scenario that passes`);
    expect(r.stdout).toContain(
      [
        '   1. wrong status: PUT /api/v2/devices/MTR-S-1/mode',
        `        FAIL  status 200: got 422 (validation_error: [{"loc":["mode"],"msg":"Input should be 'prepaid', 'postpaid', 'measurement' or 'relay_off'"}])`,
        `              at ${a}:11`,
        `              seen 422 {"success":false,"error":{"code":"validation_error","detail":[{"loc":["mode"],"msg":"Input should be 'prepaid', 'postpaid', 'measurement' or 'relay_off'"}]},"message":"Request validation failed.","timestamp":"2026-01-05T00:00:00.000+05:30"}`,
        '   2. no such message: MQTT meterstack/v1/MTR-S-1/availability with {"online":false}',
        '        FAIL  count {"$gte":1}: 0 matching message(s)',
        `              at ${a}:14`,
        '              seen the last 1 on meterstack/v1/MTR-S-1/availability: meterstack/v1/MTR-S-1/availability {"v":1,"online":true,"ts":1767551400000}',
        '   3. no such event: event meter.cutoff of MTR-S-1',
        '        FAIL  count {"$gte":1}: 0 matching event(s) within 0 s',
        `              at ${a}:16`,
        '              seen no meter.cutoff of MTR-S-1 came; what did: meter.connected ×1, meter.info ×1, meter.online ×1',
        '  FAIL: 0 passed, 3 failed',
      ].join('\n'),
    );
    expect(r.stdout).toMatch(
      /\n2 scenario\(s\), 5 expectation\(s\): 3 failed in test\/qa\/fixtures\/failures\/a-what-was-seen\.yaml\n$/,
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
      'test/qa/fixtures/invalid.yaml:6:14: timeline[0].advance: a duration such as 90s, 15m, 18m45s, 2h or 1d',
    );
    expect(r.stderr).toContain('test/qa/fixtures/invalid.yaml:7:5: timeline[1]: a step has exactly one of');
    expect(r.stderr).toContain('test/qa/fixtures/invalid.yaml:9:21: timeline[2].call.method: Invalid option');
  });

  it('refuses a step naming a meter the world does not have, at load time, with file:line', async () => {
    const r = await run(['test/qa/fixtures/unknown-meter.yaml']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        'meterstack scenario: invalid scenario file(s):',
        '  test/qa/fixtures/unknown-meter.yaml:9:24: timeline[0].set_load.meter: no meter "MTR-U-2" in the world (did you mean MTR-U-1?) (its meters: MTR-U-1)',
        '  test/qa/fixtures/unknown-meter.yaml:10:32: timeline[1].call.path: no meter "MTR-U-9" in the world (did you mean MTR-U-1?) (its meters: MTR-U-1)',
        '  test/qa/fixtures/unknown-meter.yaml:13:21: timeline[3].fault.meter: no meter "MTR-U-3" in the world (did you mean MTR-U-1?) (its meters: MTR-U-1)',
        '',
      ].join('\n'),
    );
  });
});
