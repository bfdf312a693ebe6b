// issue 20 item 11: what `meterstack replay` prints at the end. The energy as the meter reports it (to
// the Wh, 216.369 kWh, not the register's 216.36948115); after a replay on an embedded service, which
// stopped with it, no URL or secret of that service (they would be stale); with --keep-serving, they
// are printed, as the service still answers at them.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';

const CLI = join(REPO_ROOT, 'test/helpers/meterstack.js');

function replay(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')));
    const p = spawn(process.execPath, [CLI, 'replay', ...args], { cwd: REPO_ROOT, env });
    let stdout = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.resume();
    p.on('exit', (code) => resolve({ code, stdout }));
  });
}

describe('meterstack replay on an embedded service: its summary (issue 20 item 11)', () => {
  it('energy to the Wh; no URL, password or key of the service that stopped', async () => {
    const r = await replay(['fixtures/traces/synthetic-week.csv', '--instant']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^energy {3}216\.369 kWh$/m);
    expect(r.stdout).toContain(
      'service  embedded, stopped with the replay (--keep-serving keeps it running)',
    );
    expect(r.stdout).not.toMatch(/http:\/\/|MQTT password|API key|msk_|mqs_/);
    expect(r.stdout).toMatch(/^device {3}MTR\S+ \(account \d+, space \d+\)$/m);
  });

  it('with --keep-serving the service URL and the device password are printed, and the URL answers', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')));
    const p = spawn(
      process.execPath,
      [CLI, 'replay', 'fixtures/traces/offline-gap.jsonl', '--instant', '--keep-serving'],
      { cwd: REPO_ROOT, env },
    );
    let stdout = '';
    p.stderr.resume();
    const exited = new Promise<number | null>((resolve) => p.on('exit', (c) => resolve(c)));
    await new Promise<void>((resolve, reject) => {
      p.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.includes('serving; Ctrl-C stops')) resolve();
      });
      void exited.then(() => reject(new Error(`replay exited:\n${stdout}`)));
    });
    try {
      const url = /^service {2}(http:\/\/\S+)$/m.exec(stdout)?.[1];
      expect(url).toBeDefined();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect(stdout).toMatch(/, MQTT password mqs_\S+$/m);
    } finally {
      p.kill('SIGINT');
      await exited;
    }
  });
});
