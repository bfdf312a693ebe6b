// issue 20 item 9: typos as a newcomer makes them, from the command line. A usage error is the reason
// and one line saying where the flags are (exit 2), not 45 lines of help that scroll it away; a flag,
// a command, a scenario key, a step or an event type typed wrong gets the one probably meant; a
// negative number is a range error, not "ambiguous"; `replay` without a file is a usage error too.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const CLI = join(REPO_ROOT, 'test/helpers/meterstack.js');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')));
    const p = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const hint = (command: string) => `run \`meterstack ${command} --help\` for the flags\n`;

describe('a usage error is the reason and one line, exit 2 (issue 20 item 9)', () => {
  it.each([
    [['serve', '--http-prot', '9000'], 'serve', 'unknown flag --http-prot (did you mean --http-port?)'],
    [
      ['serve', '--speed', '-1', '--db=:memory:'],
      'serve',
      "--speed (METERSTACK_SPEED) must be a number from 0 to 1000000, got '-1'",
    ],
    [['serve', '--db'], 'serve', '--db needs a value'],
    [['serve', 'now'], 'serve', "unexpected argument 'now' (this command takes flags only)"],
    [['replay'], 'replay', 'give the trace file to play (CSV or JSON Lines)'],
    [['replay', 'trace.csv', '--speed', '-2'], 'replay', '--speed must be a number greater than 0, got -2'],
    [['replay', 'trace.csv', '--sped', '2'], 'replay', 'unknown flag --sped (did you mean --speed?)'],
    [
      ['replay', 'trace.csv', '--mqtt-url', '127.0.0.1:1884'],
      'replay',
      '--mqtt-url must be an MQTT URL, got 127.0.0.1:1884: did you mean mqtt://127.0.0.1:1884?',
    ],
    [['scenario', '--juint', 'x.xml', 'a.yaml'], 'scenario', 'unknown flag --juint (did you mean --junit?)'],
    [['fleet', '--cuont', '3'], 'fleet', 'unknown flag --cuont (did you mean --count?)'],
  ])('meterstack %j', async (args, command, reason) => {
    const r = await cli(args);
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
      code: 2,
      stderr: `meterstack ${command}: ${reason}\n${hint(command)}`,
      stdout: '',
    });
  });

  it('a negative number the flag takes is a value, not a flag: replay --balance -500', async () => {
    // Past the flags, the missing file is what stops it: -500 was taken as --balance's value.
    const r = await cli(['replay', 'no-such-trace.csv', '--balance', '-500']);
    expect(r.stderr).not.toMatch(/ambiguous|unknown flag/);
    expect(r.stderr).toContain('no-such-trace.csv');
  });

  it('an unknown command names the one probably meant', async () => {
    const r = await cli(['serv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^meterstack: unknown command 'serv' \(did you mean serve\?\)\n/);
  });
});

describe('a scenario file with typos: each at its line, with what was probably meant (issue 20 item 9)', () => {
  it('a step name, a key of a step and an event type', async () => {
    const t = tempDir('meterstack-typos-');
    cleanups.push(t.remove);
    const file = join(t.dir, 'typos.yaml');
    writeFileSync(
      file,
      [
        'name: typos',
        'world:',
        '  accounts:',
        '    - name: a',
        '      meters: [{ id: M1 }]',
        'timeline:',
        '  - advnce: 1h',
        '  - expect_event: { type: meter.cutof }',
        '  - expect_meter: { meter: M1, balanse: 3 }',
        '',
      ].join('\n'),
    );
    const r = await cli(['scenario', 'run', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      [
        'meterstack scenario: invalid scenario file(s):',
        `  ${file}:7:5: timeline[0]: unknown key 'advnce' (did you mean advance?)`,
        `  ${file}:8:27: timeline[1].expect_event.type: unknown event type 'meter.cutof' (did you mean meter.cutoff?)`,
        `  ${file}:9:19: timeline[2].expect_meter: unknown key 'balanse' (did you mean balance?)`,
        '',
      ].join('\n'),
    );
  });
});

describe('help texts are in users’ words (issue 20 item 10)', () => {
  it.each([[[]], [['serve']], [['replay']], [['scenario']], [['fleet']]])(
    'meterstack %j --help names no issue, section sign or internal document',
    async (command) => {
      const r = await cli([...command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: meterstack /);
      expect(r.stdout).not.toMatch(/\bissue \d|§|spec-decisions|ScenarioError/i);
    },
  );
});
