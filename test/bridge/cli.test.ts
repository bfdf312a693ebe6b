// `meterstack bridge` and `meterstack meter` flags: help, usage errors (exit 2), and the --modbus hook,
// which must hand over to src/bridge/modbus/ or say clearly that it is not there.
import { describe, expect, it } from 'vitest';
import { CliProcess } from './helpers.ts';

async function run(args: string[]): Promise<{ code: number | null; output: string }> {
  const p = new CliProcess(args);
  const code = await new Promise<number | null>((r) => p.proc.once('exit', (c) => r(c)));
  return { code, output: p.output };
}

describe('bridge and meter command lines', () => {
  it('--help prints each command’s flags', async () => {
    expect(await run(['bridge', '--help'])).toMatchObject({
      code: 0,
      output: expect.stringContaining('--record <file>'),
    });
    expect(await run(['meter', '--help'])).toMatchObject({
      code: 0,
      output: expect.stringContaining('--load-watts'),
    });
  });

  it('missing or bad flags exit 2 with the reason', async () => {
    expect(await run(['bridge', '--username', 'M1'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--serial is required'),
    });
    expect(await run(['meter', '--serial', '/x', '--device', 'M1', '--model', 'huge'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--model must be one of basic, full'),
    });
    expect(await run(['bridge', '--serial', '/x', '--username', 'M1', '--baud', 'fast'])).toMatchObject({
      code: 2,
    });
  });

  it('--modbus with an unknown model is a usage error', async () => {
    expect(await run(['bridge', '--modbus', 'abc', '--serial', '/x', '--username', 'M1'])).toMatchObject({
      code: 2,
    });
  });
});
