// issue 20 item 10: what `serve` prints as it starts. The banner comes first and clean: the demo
// meters' connected and online lines (16 for 8 meters) and the open-files (ulimit) line are debug;
// after the banner one info line sums the meters up. Run under `ulimit -n 2048`, so the service fits
// its default connection caps to the limit (the line that used to come before the banner).

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';

const CLI = join(REPO_ROOT, 'test/helpers/meterstack.js');
const procs: ChildProcess[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
});

interface Line {
  level: string;
  type: string;
  msg: string;
  device_id?: string;
}

/** serve with the demo world under a low open-files limit; stdout up to the start's summary line. */
async function start(extra: string[]): Promise<{ before: Line[]; banner: string; after: Line[] }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')));
  const args = ['serve', '--db=:memory:', '--http-port=0', '--mqtt-port=0', '--log-format=json', ...extra];
  const p = spawn('sh', ['-c', 'ulimit -n 2048 && exec "$0" "$@"', process.execPath, CLI, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(p);
  let out = '';
  p.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  p.stderr!.resume();
  const exited = new Promise((r) => p.once('exit', r));
  const done = () => /"msg":"\d+ meters online/.test(out);
  while (!done()) {
    const more = await Promise.race([
      new Promise((r) => setTimeout(() => r(true), 50)),
      exited.then(() => false),
    ]);
    if (!more && !done()) throw new Error(`serve exited before its start's summary:\n${out}`);
  }
  const lines = out.split('\n');
  const bannerAt = lines.indexOf('  meterstack is running');
  const json = (ls: string[]) => ls.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
  return {
    before: json(lines.slice(0, bannerAt)),
    banner: lines
      .slice(bannerAt)
      .filter((l) => !l.startsWith('{'))
      .join('\n'),
    after: json(lines.slice(bannerAt)),
  };
}

const METER_LINES = new Set(['meter.connected', 'meter.online', 'meter.offline']);

describe('serve starts with the banner, then one line for the meters (issue 20 item 10)', () => {
  it('at info: no per-meter line and no open-files line; after the banner "7 meters online, 1 offline"', async () => {
    const { before, banner, after } = await start([]);
    expect(banner).toContain('MTR-B203');
    const all = [...before, ...after];
    expect(all.filter((l) => METER_LINES.has(l.type))).toEqual([]);
    expect(all.filter((l) => l.msg.includes('ulimit'))).toEqual([]);
    expect(after.find((l) => /meters online/.test(l.msg))).toMatchObject({
      level: 'info',
      type: 'log',
      msg: '7 meters online, 1 offline: MTR-B203',
    });
    expect(before.filter((l) => /meters online/.test(l.msg))).toEqual([]);
  });

  it('at debug the per-meter lines and the open-files line are there, at debug', async () => {
    const { before } = await start(['--log-level=debug']);
    const online = before.filter((l) => l.type === 'meter.online');
    expect(online.map((l) => l.device_id).sort()).toEqual([
      'MTR-A101',
      'MTR-A102',
      'MTR-A103',
      'MTR-A104',
      'MTR-B201',
      'MTR-B202',
      'MTR-B203',
      'MTR-X001',
    ]);
    expect(new Set(online.map((l) => l.level))).toEqual(new Set(['debug']));
    expect(before.find((l) => l.msg.includes('(ulimit -n)'))).toMatchObject({
      level: 'debug',
      msg: expect.stringMatching(
        /^connection caps HTTP \d+, MQTT \d+ instead of 1024 and 20000: the open-files limit is 2048/,
      ),
    });
  });
});
