// The IEC 62056-21 bridge end to end with real serial I/O: our virtual meter (simulator/iec-meter.ts, what
// `meterstack meter --protocol iec62056-21` runs) on one end of a socat pty pair, `bridge --iec62056-21`
// (src/bridge/iec62056-21) on the other, a real meterstack (embedded broker, SQLite) and the v2 API over
// HTTP. The meter's clock is held still, so every readout is the same and equals readingsAt exactly.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IecMeter } from '../../simulator/iec-meter.ts';
import { createMeter, readingsAt, step } from '../../simulator/meter/index.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import { runIecBridge } from '../../src/bridge/iec62056-21/index.ts';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { data, failed, type V2, v2Client } from '../helpers/v2.ts';

const SOCAT = '/usr/bin/socat';
const missing = existsSync(SOCAT) ? null : `${SOCAT} not found (apt-get install socat)`;
const inCi = process.env['CI'] === 'true';
if (missing && !inCi) console.warn(`skipping the IEC 62056-21 bridge tests: ${missing}`);

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Reading {
  property_id: string;
  value: number;
  unit: string;
}

describe.skipIf(missing !== null && !inCi)(
  'meterstack bridge --iec62056-21, against our IEC meter on a pty',
  () => {
    let t: TestService;
    let v2: V2;
    let deviceId: string;
    let socat: ChildProcess;
    let meter: IecMeter;
    let bridge: { close(): Promise<void> };
    let tmp: { dir: string; remove: () => void };
    let initial: MeterState;
    const T0 = Date.UTC(2026, 10, 26, 6, 30, 0);
    const logs: string[] = [];
    const meterLogs: string[] = [];
    const startMeter = () => {
      meter = new IecMeter({
        state: initial,
        serial: join(tmp.dir, 'meter'),
        now: () => T0, // held still: every readout is the same
        log: (level, msg) => meterLogs.push(`${level} ${msg}`),
      });
      meter.start();
    };

    beforeAll(async () => {
      if (missing) throw new Error(`${missing}: CI needs it`);
      t = await startTestService();
      const { account_id, api_key } = await newAccount(t.sim);
      v2 = v2Client(t.svc.httpUrl, api_key);
      const space = ok(
        await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Meter room' }),
      );
      const device = await provision(t.sim, {
        account_id,
        space_id: space.space_id,
        external: true,
        model: 'full',
      });
      deviceId = device.device_id;
      tmp = tempDir('meterstack-iec-');
      socat = spawn(
        SOCAT,
        [`pty,raw,echo=0,link=${tmp.dir}/meter`, `pty,raw,echo=0,link=${tmp.dir}/bridge`],
        {
          stdio: 'ignore',
        },
      );
      await until(() => existsSync(`${tmp.dir}/meter`) && existsSync(`${tmp.dir}/bridge`), 'socat ptys');
      initial = createMeter(
        {
          deviceId: 'iec-e2e',
          model: 'full',
          mode: 'measurement',
          energyKwh: 1234.5,
          load: { kind: 'constant', watts: 1150.5 },
        },
        T0 - 3_600_000,
      );
      startMeter();
      bridge = await runIecBridge({
        serial: join(tmp.dir, 'bridge'),
        broker: device.mqtt,
        deviceId,
        pollS: 1,
        log: (level, msg) => logs.push(`${level} ${msg}`),
      });
      await t.svc.world.twins.waitForAvailability(deviceId, true, 8_000);
    }, 30_000);

    afterAll(async () => {
      await bridge?.close();
      await meter?.stop();
      if (socat && socat.exitCode === null) {
        const exited = new Promise((r) => socat.once('exit', r));
        socat.kill('SIGTERM');
        await exited;
      }
      await t?.close();
      tmp?.remove();
    });

    it('[IEC-9.5] GET device shows every reading equal to the meter, as a full meter without a relay', async () => {
      await until(() => (t.svc.world.twins.get(deviceId)?.latest ?? null) !== null, 'a sample');
      const device = data(
        await v2<{ readings: Reading[]; is_online: boolean; has_relay: boolean; active_mode: string }>(
          'GET',
          `/devices/${deviceId}/`,
        ),
      );
      expect(device).toMatchObject({ is_online: true, has_relay: false, active_mode: 'measurement' });
      const expected = readingsAt(step(initial, { type: 'advance' }, T0).state, T0);
      const values = Object.fromEntries(device.readings.map((r) => [r.property_id, r.value]));
      expect(values).toEqual({
        energy: expected.energy,
        active_power: expected.active_power,
        voltage: expected.voltage,
        current: expected.current,
        power_factor: expected.power_factor,
        apparent_power: expected.apparent_power,
        reactive_power: expected.reactive_power,
      });
      // A real quantity, not zeros: an hour of 1150.5 W on top of 1234.5 kWh.
      expect(values['energy']).toBe(1235.651);
      expect(values['active_power']).toBe(1150.5);
    });

    it('[IEC-9.6] PUT relay is refused: 400 device_rejected, the optical port switches nothing [MC-8.3]', async () => {
      const detail = failed(
        await v2('PUT', `/devices/${deviceId}/relay`, { state: false }),
        400,
        'device_rejected',
      );
      expect(detail).toContain('(unsupported)');
      expect(detail).toContain('optical port');
    });

    it('[IEC-9.6] metrics answers with the present readout of the meter [MC-8.6]', async () => {
      const metrics = data(await v2<Record<string, unknown>>('GET', `/devices/${deviceId}/metrics`));
      expect(metrics).toMatchObject({ device_id: deviceId, energy: 1235.651, active_power: 1150.5 });
    });

    it('[IEC-9.3] garbage on the line never kills the meter; it still reads after', async () => {
      // A second writer on the bridge's end of the pty: noise, a bad option select, a half request, 8-bit bytes.
      const port = new SerialPort({
        path: join(tmp.dir, 'bridge'),
        baudRate: 300,
        autoOpen: false,
        lock: false,
      });
      await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
      for (const bytes of [
        [0, 0, 0xff, 0x80, 0x13],
        [0x06, 0x39, 0x39, 0x39, 0x0d, 0x0a],
        [0x2f, 0x3f, 0x41],
        Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff),
      ]) {
        port.write(Buffer.from(bytes));
      }
      await new Promise<void>((resolve) => port.drain(() => resolve()));
      await new Promise<void>((resolve) => port.close(() => resolve()));
      const before = meter.counts.get('readout') ?? 0;
      await until(() => (meter.counts.get('readout') ?? 0) >= before + 2, 'two more readouts', 10_000);
      expect(meterLogs.filter((l) => l.startsWith('error'))).toEqual([]);
    }, 15_000);

    it('[IEC-9.7] goes offline when the meter stops answering and back online when it answers again [MC-6.6]', async () => {
      const twins = t.svc.world.twins;
      await meter.stop();
      expect(await twins.waitForAvailability(deviceId, false, 20_000)).toBe(true);
      const device = data(await v2<{ is_online: boolean }>('GET', `/devices/${deviceId}/`));
      expect(device.is_online).toBe(false);
      expect(logs.some((l) => l.startsWith('warn') && l.includes('no_answer'))).toBe(true);
      startMeter();
      expect(await twins.waitForAvailability(deviceId, true, 10_000)).toBe(true);
    }, 40_000);
  },
);
