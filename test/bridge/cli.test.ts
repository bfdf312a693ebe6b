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

  // Issue 20 §1: these ended in an uncaught TypeError and its stack.
  it.each([
    ['127.0.0.1:1884', 'did you mean mqtt://127.0.0.1:1884?'],
    ['localhost:1884', 'did you mean mqtt://localhost:1884?'],
    [
      'http://127.0.0.1:1884',
      'must be an mqtt:// URL, got http:// in http://127.0.0.1:1884: did you mean mqtt://127.0.0.1:1884?',
    ],
    ['mqtts://127.0.0.1:8883', 'mqtts:// (TLS) is not supported'],
    ['not a url', 'must be an MQTT URL such as mqtt://127.0.0.1:1883, got not a url'],
  ])(
    'bridge --broker %s is a usage error (exit 2) saying what to type, not a stack',
    async (broker, says) => {
      const r = await run(['bridge', '--serial', '/nonexistent/tty', '--username', 'M1', '--broker', broker]);
      expect(r.code).toBe(2);
      expect(r.output).toContain('meterstack bridge: --broker ');
      expect(r.output).toContain(says);
      expect(r.output).not.toMatch(/TypeError|\n\s+at /);
    },
  );

  it('the same for the Modbus bridge and for METERSTACK_BROKER', async () => {
    const modbus = await run([
      'bridge',
      '--modbus',
      'sdm120',
      '--serial',
      '/x',
      '--username',
      'M1',
      '--broker',
      '127.0.0.1:1',
    ]);
    expect(modbus).toMatchObject({
      code: 2,
      output: expect.stringContaining('did you mean mqtt://127.0.0.1:1?'),
    });
    const p = new CliProcess(['bridge', '--serial', '/x', '--username', 'M1'], {
      ...process.env,
      METERSTACK_BROKER: 'http://h:1',
    });
    const code = await new Promise<number | null>((r) => p.proc.once('exit', (c) => r(c)));
    expect(code).toBe(2);
    expect(p.output).toContain('did you mean mqtt://h:1?');
  });

  it('--log-level takes debug, info, warn or error; anything else is a usage error', async () => {
    expect(
      await run([
        'bridge',
        '--serial',
        '/x',
        '--username',
        'M1',
        '--broker',
        'mqtt://h',
        '--log-level',
        'loud',
      ]),
    ).toMatchObject({
      code: 2,
      output: expect.stringContaining('--log-level must be one of debug, info, warn, error, got loud'),
    });
    expect(await run(['meter', '--serial', '/x', '--device', 'M1', '--log-level', 'trace'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--log-level must be one of debug, info, warn, error, got trace'),
    });
    expect(
      await run(['meter', '--serial', '/x', '--device', 'M1', '--verbose', '--log-level', 'warn']),
    ).toMatchObject({
      code: 2,
      output: expect.stringContaining('--verbose is --log-level debug, not warn'),
    });
    for (const command of ['bridge', 'meter']) {
      expect((await run([command, '--help'])).output).toMatch(/--log-level <level>[\s\S]*--verbose/);
    }
  });
});
