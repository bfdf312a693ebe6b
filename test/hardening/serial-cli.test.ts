// Issue 8 item 20, the bridge's part [SP-7.5]: `meterstack bridge` names its broker explicitly (no default
// that could be a system Mosquitto on :1883), and a login the broker refuses ends it with exit code 2 and
// the cause, instead of sitting there or retrying forever without a word.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Broker } from '../../src/broker/index.ts';
import { CliProcess, until } from '../bridge/helpers.ts';
import { DEVICE, PASSWORD, startTestBroker } from './serial-harness.ts';

const { METERSTACK_BROKER: _unset, ...ENV } = process.env;

async function exitOf(p: CliProcess, timeoutMs = 15_000): Promise<number | null> {
  if (p.proc.exitCode !== null) return p.proc.exitCode;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`still running after ${timeoutMs} ms:\n${p.output}`)),
      timeoutMs,
    );
    p.proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('[SP-7.5] issue 8 item 20: the bridge and its broker', () => {
  let broker: Broker;
  beforeAll(async () => {
    broker = await startTestBroker();
  });
  afterAll(async () => {
    await broker?.close();
  });

  it('without --broker or METERSTACK_BROKER it is a usage error (exit 2), not a guess at :1883', async () => {
    const p = new CliProcess(['bridge', '--serial', '/nonexistent/tty', '--username', DEVICE], ENV);
    expect(await exitOf(p)).toBe(2);
    expect(p.output).toMatch(/--broker \(or METERSTACK_BROKER\) is required/);
  });

  it('a wrong password ends it with exit code 2 and says why', async () => {
    const p = new CliProcess(
      [
        'bridge',
        '--serial',
        '/nonexistent/tty',
        '--broker',
        broker.url,
        '--username',
        DEVICE,
        '--password',
        'wrong',
      ],
      ENV,
    );
    expect(await exitOf(p)).toBe(2);
    expect(p.output).toMatch(/login refused \(CONNACK 4\): bad username or password: check --username/);
  });

  it('the same for the Modbus bridge (--modbus sdm120)', async () => {
    const p = new CliProcess(
      [
        'bridge',
        ...['--modbus', 'sdm120', '--serial', '/nonexistent/tty', '--broker', broker.url],
        ...['--username', DEVICE, '--password', 'wrong'],
      ],
      ENV,
    );
    expect(await exitOf(p)).toBe(2);
    expect(p.output).toMatch(/login refused: bad username or password/);
  });

  it('METERSTACK_BROKER names the broker when --broker is absent', async () => {
    const p = new CliProcess(['bridge', '--serial', '/nonexistent/tty', '--username', DEVICE], {
      ...ENV,
      METERSTACK_BROKER: broker.url,
      METERSTACK_BRIDGE_PASSWORD: PASSWORD,
    });
    try {
      await until(
        () => p.output.includes(`mqtt ${broker.url}: login accepted as ${DEVICE}`),
        10_000,
        `the bridge connected to ${broker.url}`,
      );
    } finally {
      await p.stop();
    }
  });
});
