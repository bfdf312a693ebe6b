// `meterstack` itself, from the sources (issue 10 item 5): --version, help <command>, and what an
// unknown command or help topic gets. The compiled package is checked in pack.test.ts.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';

const CLI = join(REPO_ROOT, 'test/helpers/meterstack.js');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('meterstack (spec-decisions 71)', () => {
  it('--version and -v print package.json version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      const r = await cli([flag]);
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 0,
        stdout: `${version}\n`,
        stderr: '',
      });
    }
  });

  it('help <command> prints exactly what <command> --help prints', async () => {
    const [help, flag] = await Promise.all([cli(['help', 'replay']), cli(['replay', '--help'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: meterstack replay /);
    expect(help.stdout).toBe(flag.stdout);
  });

  it('--help lists the commands, help and --version', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const c of [
      'serve',
      'bridge',
      'meter',
      'replay',
      'scenario',
      'fleet',
      'help <command>',
      '--version',
    ])
      expect(r.stdout).toContain(c);
  });

  it('an unknown command or help topic exits 2 naming it, with the command list', async () => {
    for (const args of [['serv'], ['help', 'serv'], ['help', 'constructor']]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`meterstack: unknown command '${args.at(-1)}'`);
      expect(r.stderr).toContain('usage: meterstack <command>');
      expect(r.stdout).toBe('');
    }
  });
});
