// `meterstack bridge --dlms` flags: usage errors exit 2 with the reason, mirroring the Modbus bridge's.
import { describe, expect, it } from 'vitest';
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
