// `meterstack bridge --dlms` flags: usage errors exit 2 with the reason, mirroring the Modbus bridge's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliProcess } from '../helpers.ts';

async function run(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; output: string }> {
  const p = new CliProcess(args, { ...process.env, METERSTACK_DLMS_PASSWORD: '', ...env });
  const code = await new Promise<number | null>((r) => p.proc.once('exit', (c) => r(c)));
  return { code, output: p.output };
}

const base = ['bridge', '--dlms', '--username', 'M1', '--broker', 'mqtt://127.0.0.1:1'];

describe('bridge --dlms command line', () => {
  it('--help names the DLMS flags', async () => {
    const r = await run(['bridge', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--dlms', '--tcp <host:port>', '--client <sap>', '--server <addr>', '--poll-s <n>'])
      expect(r.output).toContain(flag);
  });

  it.each([
    [[], '--serial or --tcp is required'],
    [['--serial', '/x', '--tcp', 'h:1'], 'not both'],
    [['--tcp', 'nohost'], 'expected host:port'],
    [['--tcp', 'h:70000'], 'expected host:port'],
    [['--tcp', 'h:4059', '--server', '1/x', '--password', 'p'], 'expected U or U/L'],
    [['--tcp', 'h:4059', '--client', '0', '--password', 'p'], '--client'],
    [['--tcp', 'h:4059', '--poll-s', '-3', '--password', 'p'], '--poll-s'],
    [['--tcp', 'h:4059'], '--password (or METERSTACK_DLMS_PASSWORD) is required for client 32'],
    [['--tcp', 'h:4059', '--modbus', 'sdm120', '--password', 'p'], 'exclude each other'],
  ])('%j is a usage error (exit 2)', async (extra, reason) => {
    const r = await run([...base, ...extra]);
    expect(r).toMatchObject({ code: 2, output: expect.stringContaining(reason) });
  });

  it('--tcp without --dlms is a usage error', async () => {
    const r = await run([
      'bridge',
      '--serial',
      '/x',
      '--username',
      'M1',
      '--broker',
      'mqtt://127.0.0.1:1',
      '--tcp',
      'h:1',
    ]);
    expect(r).toMatchObject({ code: 2, output: expect.stringContaining('--tcp needs --dlms') });
  });
});

describe('bridge --dlms --meters command line [CL-11.1]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-meters-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const fleet = ['bridge', '--dlms', '--broker', 'mqtt://127.0.0.1:1'];

  it('--help names --meters and --state-dir', async () => {
    const r = await run(['bridge', '--help']);
    expect(r.output).toContain('--meters <file.json>');
    expect(r.output).toContain('--state-dir <dir>');
  });

  it.each([
    [
      'bad.json',
      '[{"device":"M1","tcp":"h:1"},{"device":"M2","tcp":"nohost"}]',
      [],
      'meters[1].tcp: expected host:port',
    ],
    [
      'dup.json',
      '[{"device":"M1","tcp":"h:1"},{"device":"M1","tcp":"h:2"}]',
      [],
      'meters[1].device: M1 again',
    ],
    ['type.json', '[{"device":"M1","tcp":"h:1","client":"x"}]', [], 'meters[0].client'],
    ['notjson.json', '[{', [], 'not JSON'],
    ['ok1.json', '[{"device":"M1","tcp":"h:1"}]', ['--serial', '/x'], '--serial names one meter'],
    ['ok2.json', '[{"device":"M1","tcp":"h:1"}]', ['--username', 'M1'], '--username names one meter'],
    ['ok3.json', '[{"device":"M1","tcp":"h:1","client":32}]', [], 'a password is required for client 32'],
    ['ok4.json', '[{"device":"M1","tcp":"h:1","client":120,"server":300}]', [], 'meters[0].server'],
  ])('%s %s %j is a usage error (exit 2)', async (name, text, extra, reason) => {
    const r = await run([...fleet, '--meters', file(name, text), ...extra]);
    expect(r).toMatchObject({ code: 2, output: expect.stringContaining(reason) });
  });

  it('a missing file, --state-dir alone and --meters without --dlms are usage errors', async () => {
    expect(await run([...fleet, '--meters', join(dir, 'none.json')])).toMatchObject({
      code: 2,
      output: expect.stringContaining('cannot read it (ENOENT)'),
    });
    expect(await run([...fleet, '--state-dir', dir])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--state-dir needs --meters'),
    });
    expect(
      await run(['bridge', '--meters', file('nd.json', '[]'), '--broker', 'mqtt://127.0.0.1:1']),
    ).toMatchObject({ code: 2, output: expect.stringContaining('--meters needs --dlms') });
  });

  it('a state file that is not one stops the start, naming the meter', async () => {
    file('dlms-M1.json', 'garbage');
    const r = await run([
      ...fleet,
      '--meters',
      file('sf.json', '[{"device":"M1","tcp":"h:1"}]'),
      '--state-dir',
      dir,
      '--password',
      'p',
    ]);
    expect(r).toMatchObject({ code: 2, output: expect.stringContaining('meters[0] (M1)') });
  });
});
