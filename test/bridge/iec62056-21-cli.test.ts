// `meterstack meter --protocol iec62056-21` and `meterstack bridge --iec62056-21` as typed: help, usage
// errors (exit 2, as the Modbus bridge's), and the meter command itself read over a socat pty by the
// bridge's reader (src/bridge/iec62056-21/session.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IecMeter } from '../../simulator/iec-meter.ts';
import { createMeter } from '../../simulator/meter/index.ts';
import { IecSession } from '../../src/bridge/iec62056-21/session.ts';
import { tempDir } from '../helpers/service.ts';
import { CliProcess } from './helpers.ts';

async function run(args: string[]): Promise<{ code: number | null; output: string }> {
  const p = new CliProcess(args);
  const code = await new Promise<number | null>((r) => p.proc.once('exit', (c) => r(c)));
  return { code, output: p.output };
}

const BROKER = ['--broker', 'mqtt://127.0.0.1:9', '--password', 'x'];

describe('IEC 62056-21 command lines', () => {
  it('--help names the IEC flags', async () => {
    expect((await run(['meter', '--protocol', 'iec62056-21', '--help'])).output).toContain('--max-baud');
    expect((await run(['bridge', '--help'])).output).toContain('--iec62056-21');
  });

  it.each([
    [['meter', '--protocol', 'dlmsx', '--serial', '/x', '--device', 'M1'], '--protocol must be'],
    [['meter', '--protocol', 'iec62056-21', '--device', 'M1'], '--serial is required'],
    [
      ['meter', '--protocol', 'iec62056-21', '--serial', '/x', '--device', 'M1', '--max-baud', '1000'],
      '--max-baud',
    ],
    [
      ['meter', '--protocol', 'iec62056-21', '--serial', '/x', '--device', 'M1', '--address', 'a!'],
      '--address',
    ],
    [['bridge', '--iec62056-21', '--serial', '/x', '--device', 'M1', '--poll-s', '0', ...BROKER], '--poll-s'],
    [
      ['bridge', '--iec62056-21', '--serial', '/x', '--device', 'M1', '--unit-id', '2', ...BROKER],
      '--unit-id',
    ],
    [
      ['bridge', '--iec62056-21', '--modbus', 'sdm120', '--serial', '/x', '--device', 'M1', ...BROKER],
      'one of them',
    ],
    [['bridge', '--iec62056-21', '--serial', '/x', '--device', 'bad id!', ...BROKER], 'device id'],
    [
      ['bridge', '--serial', '/x', '--device', 'M1', '--max-baud', '4800', ...BROKER],
      'an --iec62056-21 flag',
    ],
  ])('%j is a usage error (exit 2)', async (args, says) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.output).toContain(says);
  });
});

const SOCAT = '/usr/bin/socat';
const missing = existsSync(SOCAT) ? null : `${SOCAT} not found`;
const inCi = process.env['CI'] === 'true';

describe.skipIf(missing !== null && !inCi)('meterstack meter --protocol iec62056-21 on a pty', () => {
  const tmp = tempDir('meterstack-iec-cli-');
  let socat: ChildProcess | null = null;
  let meter: CliProcess | null = null;
  let session: IecSession | null = null;

  afterAll(async () => {
    await session?.close();
    await meter?.stop();
    if (socat && socat.exitCode === null) {
      const exited = new Promise((r) => socat!.once('exit', r));
      socat.kill('SIGTERM');
      await exited;
    }
    tmp.remove();
  });

  it('answers a readout with the energy it was given, and stops on SIGTERM', async () => {
    if (missing) throw new Error(`${missing}: CI needs socat`);
    socat = spawn(SOCAT, [`pty,raw,echo=0,link=${tmp.dir}/m`, `pty,raw,echo=0,link=${tmp.dir}/r`], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 5_000;
    while (!existsSync(join(tmp.dir, 'm')) || !existsSync(join(tmp.dir, 'r'))) {
      if (Date.now() > deadline) throw new Error('socat ptys did not appear');
      await new Promise((r) => setTimeout(r, 20));
    }
    meter = new CliProcess([
      'meter',
      '--protocol',
      'iec62056-21',
      '--serial',
      join(tmp.dir, 'm'),
      '--device',
      'cli-1',
      '--model',
      'basic',
      '--energy-kwh',
      '42.125',
      '--max-baud',
      '4800',
    ]);
    const logs: string[] = [];
    session = new IecSession({
      path: join(tmp.dir, 'r'),
      log: (l, m) => logs.push(`${l} ${m}`),
      now: Date.now,
    });
    session.start();
    // The port and the meter process may still be starting: early reads find nobody answering.
    let outcome = await session.read();
    for (let i = 0; i < 30 && !outcome.ok; i++) {
      await new Promise((r) => setTimeout(r, 300));
      outcome = await session.read();
    }
    expect(outcome).toMatchObject({
      ok: true,
      baud: 4800,
      identification: { manufacturer: 'MST', baudChar: '4' },
    });
    const sets = outcome.ok ? outcome.lines.flat() : [];
    expect(sets.find((s) => s.address === '1-0:1.8.0')?.values).toEqual([
      { value: '000042.125', unit: 'kWh' },
    ]);
    expect(sets.some((s) => s.address === '1-0:31.7.0')).toBe(false); // a basic meter
    await meter.stop();
    expect(meter.proc.exitCode ?? meter.proc.signalCode).not.toBeNull();
  }, 40_000);
});

describe.skipIf(missing !== null && !inCi)('[IEC-9.2] --parity-bit7 at both ends, over a pty', () => {
  it('carries the even parity in bit 7 and still reads; a 7-bit reader gets no readout from it', async () => {
    if (missing) throw new Error(`${missing}: CI needs socat`);
    const tmp = tempDir('meterstack-iec-parity-');
    const socat = spawn(SOCAT, [`pty,raw,echo=0,link=${tmp.dir}/m`, `pty,raw,echo=0,link=${tmp.dir}/r`], {
      stdio: 'ignore',
    });
    const meterLogs: string[] = [];
    const meter = new IecMeter({
      state: createMeter({ deviceId: 'p-1', model: 'basic', energyKwh: 7 }, Date.now()),
      serial: join(tmp.dir, 'm'),
      now: Date.now,
      log: (l, m) => meterLogs.push(`${l} ${m}`),
      parityInBit7: true,
    });
    const sessions: IecSession[] = [];
    try {
      while (!existsSync(join(tmp.dir, 'm')) || !existsSync(join(tmp.dir, 'r'))) {
        await new Promise((r) => setTimeout(r, 20));
      }
      meter.start();
      const read = async (parityInBit7: boolean) => {
        const session = new IecSession({
          path: join(tmp.dir, 'r'),
          parityInBit7,
          log: () => undefined,
          now: Date.now,
        });
        sessions.push(session);
        session.start();
        while (!session.isOpen) await new Promise((r) => setTimeout(r, 20));
        const outcome = await session.read();
        await session.close();
        return outcome;
      };
      const good = await read(true);
      expect(good.ok && good.lines.flat().find((s) => s.address === '1-0:1.8.0')?.values[0]?.value).toBe(
        '000007.000',
      );
      // A reader without the parity bit sends characters whose parity is wrong for this meter: noise to it.
      const plain = await read(false);
      expect(plain).toMatchObject({ ok: false, code: 'no_answer' });
      expect(meterLogs.filter((l) => l.startsWith('error'))).toEqual([]);
    } finally {
      for (const s of sessions) await s.close();
      await meter.stop();
      const exited = new Promise((r) => socat.once('exit', r));
      socat.kill('SIGTERM');
      await exited;
      tmp.remove();
    }
  }, 20_000);
});
