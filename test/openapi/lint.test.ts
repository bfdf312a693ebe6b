// `redocly lint` (recommended rules, as configured in /redocly.yaml) on the document the service
// serves: 0 errors and 0 warnings (issue 10 item 1). The findings are printed when it fails.

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService, tempDir } from '../helpers/service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/.bin/redocly');

let t: TestService;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  tmp = tempDir('meterstack-lint-');
});
afterAll(async () => {
  await t.close();
  tmp.remove();
});

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

it('redocly lint with the recommended rules: 0 errors, 0 warnings', { timeout: 60_000 }, async () => {
  const file = join(tmp.dir, 'openapi.json');
  writeFileSync(file, await (await fetch(`${t.svc.httpUrl}/openapi.json`)).text());
  const run = await promisify(execFile)(
    REDOCLY,
    ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
    { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  ).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  const report = JSON.parse(run.stdout) as LintReport;
  const findings = report.problems
    .map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`)
    .join('\n');
  expect(report.totals, findings || run.stderr).toEqual(expect.objectContaining({ errors: 0, warnings: 0 }));
  expect(run.code, run.stderr).toBe(0);
});
