// `meterstack meter --protocol dlms`: bad flags are usage errors, exit 2, one line saying why (as the
// rest of the CLI, issue 20 item 9); `--help` documents the DLMS defaults [AS-8.1].

import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliProcess, PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const CLI = join(REPO_ROOT, 'test/helpers/meterstack.js');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, 'meter', ...args], { cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('meter --protocol dlms flags', () => {
  it.each([
    [
      ['--protocol', 'dlm', '--device', 'M', '--tcp', '0'],
      '--protocol must be one of line, dlms, iec62056-21, got dlm',
    ],
    [['--protocol', 'dlms', '--device', 'M'], '--protocol dlms needs --serial, --tcp or both'],
    [['--protocol', 'dlms', '--device', 'M', '--tcp', '70000'], '--tcp is not a valid value, got 70000'],
    [
      ['--protocol', 'dlms', '--device', 'M', '--tcp', '0', '--address-size', '3'],
      '--address-size is not a valid value, got 3',
    ],
    [
      ['--protocol', 'dlms', '--device', 'M', '--tcp', '0', '--address-size', '1', '--server-physical', '5'],
      '--server-physical needs --address-size 2 or 4: a one-byte address is the logical device only',
    ],
    [
      ['--protocol', 'dlms', '--device', 'M', '--tcp', '0', '--server-logical', '0'],
      '--server-logical is not a valid value, got 0',
    ],
    [
      ['--protocol', 'dlms', '--device', 'M', '--tcp', '0', '--password', ''],
      '--password must be 1 to 64 printable ASCII characters',
    ],
    [
      ['--protocol', 'dlms', '--device', 'M', '--tcp', '0', '--keepalive-s', '5'],
      '--keepalive-s is for --protocol line',
    ],
    [['--serial', '/dev/null', '--device', 'M', '--tcp', '4059'], '--tcp is for --protocol dlms'],
  ])('%j: exit 2, %s', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`meterstack meter: ${message}`);
  });

  it('[AS-8.1] --help states the DLMS defaults: address, password, baud', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--protocol line|dlms');
    expect(r.stdout).toContain('(default 2: 02 21)');
    expect(r.stdout).toContain('client 32 (default ABCDEFGH)');
    expect(r.stdout).toContain('dlms 9600');
  });

  it.skipIf(skipWithoutSocat)(
    "[AS-8.1] without --baud the serial port opens at 9600 baud, not the line protocol's 115200",
    async () => {
      const tmp = tempDir('meterstack-dlms-baud-');
      mkdirSync(join(tmp.dir, 'p'));
      const pair = await new PtyPair(join(tmp.dir, 'p')).start();
      const meter = new CliProcess(['meter', '--protocol', 'dlms', '--device', 'M', '--serial', pair.a]);
      try {
        await until(() => / open at \d+ baud/.test(meter.output), 15_000, 'the port to open');
        expect(meter.output).toContain(`${pair.a}: open at 9600 baud, 8N1, HDLC`);
      } finally {
        await meter.stop();
        await pair.kill();
        tmp.remove();
      }
    },
    20_000,
  );
});
