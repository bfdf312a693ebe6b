// [HX-6] `meterstack replay --export out.csv` (issue 23 §3), as a child process: the file is what the
// service stored for the replayed meter, as history.csv writes it (header with units, 15-minute rows in
// +05:30 over the trace's days, the last energy the one the summary prints); a path that cannot be
// written is said before the replay starts.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const CLI = join(REPO_ROOT, 'test/helpers/meterstack.js');
const tmp = tempDir('meterstack-replay-export-');
afterAll(() => tmp.remove());

function replay(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')));
    const p = spawn(process.execPath, [CLI, 'replay', ...args], { cwd: REPO_ROOT, env });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('meterstack replay --export [HX-6]', () => {
  it('writes the stored history at 15 minutes: the trace’s week, units in the header, the summary’s energy last', async () => {
    const out = join(tmp.dir, 'week.csv');
    const r = await replay(['fixtures/traces/synthetic-week.csv', '--instant', '--export', out]);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = readFileSync(out, 'utf8').trimEnd().split('\r\n');
    expect(header).toBe(
      'timestamp (IST),energy (kWh),active_power (W),voltage (V),current (A),power_factor,apparent_power (VA),reactive_power (var)',
    );
    // 7 days of 96 quarter hours, the trace's days in IST.
    expect(rows).toHaveLength(7 * 96);
    expect(rows[0]).toMatch(/^2026-01-05T00:14:59\+05:30,/);
    expect(rows.at(-1)).toMatch(/^2026-01-11T23:59:59\+05:30,/);
    const energy = /^energy {3}(\S+) kWh$/m.exec(r.stdout)?.[1];
    expect(rows.at(-1)!.split(',')[1]).toBe(energy);
    expect(r.stdout).toContain(`export   ${out}: 672 rows at 15m, 2026-01-05 to 2026-01-11 (IST)`);
  });

  it('a path that cannot be written: exit 1, said before the replay', async () => {
    const r = await replay([
      'fixtures/traces/synthetic-week.csv',
      '--instant',
      '--export',
      join(tmp.dir, 'missing', 'out.csv'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--export ${join(tmp.dir, 'missing', 'out.csv')}: cannot write it (ENOENT)`);
    expect(r.stdout).toBe('');
  });
});
