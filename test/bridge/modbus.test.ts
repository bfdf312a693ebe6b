// The Modbus bridge end to end, with real serial I/O: Debian's pymodbus serves SDM120-style float32 input
// registers on one end of a socat pseudo-terminal pair, the bridge polls the other end and publishes to
// a real meterstack, and the test talks to the v2 API over HTTP. The Modbus server is pymodbus's, not
// ours (test/bridge/fixtures/modbus_sdm120_server.py only configures it).

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModbusBridge } from '../../src/bridge/modbus/index.ts';
import { DAY_MS, istDate } from '../../src/time/ist.ts';
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
// Debian's python, where apt puts python3-pymodbus (a pyenv `python3` on PATH would not see it).
const PYTHON = '/usr/bin/python3';
const SERVER = join(import.meta.dirname, 'fixtures', 'modbus_sdm120_server.py');
const APT_PACKAGES = 'socat python3-pymodbus python3-serial-asyncio';

/** What the meter holds, by 0-based input register address (decimal), as pymodbus encodes float32. */
const REGISTERS = {
  0: 230.0, // 0x0000 voltage, V
  6: 5.2, // 0x0006 current, A
  12: 1150.5, // 0x000C active power, W
  18: 1196.0, // 0x0012 apparent power, VA
  24: -328.5, // 0x0018 reactive power, var
  30: 0.962, // 0x001E power factor
  342: 1234.5, // 0x0156 total active energy, kWh
};
const EXPECTED = {
  voltage: 230,
  current: 5.2,
  active_power: 1150.5,
  apparent_power: 1196,
  reactive_power: -328.5,
  power_factor: 0.962,
  energy: 1234.5,
};

function missingTools(): string | null {
  if (!existsSync(SOCAT)) return `${SOCAT} not found`;
  if (!existsSync(PYTHON)) return `${PYTHON} not found`;
  const probe = spawnSync(PYTHON, ['-c', 'import pymodbus.server, serial_asyncio'], { encoding: 'utf8' });
  if (probe.status !== 0) return `pymodbus is not importable by ${PYTHON}: ${probe.stderr.trim()}`;
  return null;
}

const missing = missingTools();
const inCi = process.env['CI'] === 'true';
if (missing && !inCi) {
  console.warn(`skipping the Modbus bridge tests: ${missing} (apt-get install ${APT_PACKAGES})`);
}

/** A socat pseudo-terminal pair: `meter` for the Modbus server, `bridge` for the bridge. */
class PtyPair {
  readonly meter: string;
  readonly bridge: string;
  #socat: ChildProcess | null = null;

  constructor(dir: string) {
    this.meter = join(dir, 'meter');
    this.bridge = join(dir, 'bridge');
  }

  async start(): Promise<void> {
    this.#socat = spawn(SOCAT, [`pty,raw,echo=0,link=${this.meter}`, `pty,raw,echo=0,link=${this.bridge}`], {
      stdio: 'ignore',
    });
    await until(() => existsSync(this.meter) && existsSync(this.bridge), 'socat ptys');
  }

  /** Removes both ends, as unplugging a USB adapter does. */
  async stop(): Promise<void> {
    await stopProcess(this.#socat);
    this.#socat = null;
    await until(() => !existsSync(this.meter) && !existsSync(this.bridge), 'socat ptys gone');
  }
}

/** pymodbus serving REGISTERS as unit 1 on `path`; resolves once the port is open. */
async function startServer(path: string): Promise<ChildProcess> {
  const child = spawn(PYTHON, [SERVER, path, '1', '9600', JSON.stringify(REGISTERS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pymodbus did not start: ${stderr}`)), 10_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`pymodbus exited with ${code}: ${stderr}`));
    });
  });
  return child;
}

async function stopProcess(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGCONT'); // a stopped process cannot act on SIGTERM
  child.kill('SIGTERM');
  await exited;
}

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Reading {
  property_id: string;
  context_type: string;
  value: number;
  unit: string;
}

describe.skipIf(missing !== null && !inCi)(
  'meterstack bridge --modbus sdm120, against pymodbus on a pty',
  () => {
    let t: TestService;
    let v2: V2;
    let deviceId: string;
    let pty: PtyPair;
    let server: ChildProcess | null = null;
    let bridge: { close(): Promise<void> };
    let tmp: { dir: string; remove: () => void };
    const logs: string[] = [];

    beforeAll(async () => {
      if (missing) throw new Error(`${missing}: CI needs apt-get install ${APT_PACKAGES}`);
      t = await startTestService();
      const { account_id, api_key } = await newAccount(t.sim);
      v2 = v2Client(t.svc.httpUrl, api_key);
      const space = ok(
        await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Plant room' }),
      );
      const device = await provision(t.sim, {
        account_id,
        space_id: space.space_id,
        external: true,
        model: 'full',
      });
      deviceId = device.device_id;
      tmp = tempDir('meterstack-modbus-');
      pty = new PtyPair(tmp.dir);
      await pty.start();
      server = await startServer(pty.meter);
      bridge = await runModbusBridge({
        serial: pty.bridge,
        baud: 9600,
        unitId: 1,
        model: 'sdm120',
        broker: device.mqtt,
        deviceId,
        pollMs: 200,
        log: (level, msg) => logs.push(`${level} ${msg}`),
      });
      await t.svc.world.twins.waitForAvailability(deviceId, true, 5_000);
    }, 20_000);

    afterAll(async () => {
      await bridge?.close();
      await stopProcess(server);
      await pty?.stop().catch(() => undefined);
      await t?.close();
      tmp?.remove();
    });

    it("GET device shows every reading with the server's values, as a full meter without a relay", async () => {
      let readings: Reading[] = [];
      await until(() => (t.svc.world.twins.get(deviceId)?.latest ?? null) !== null, 'a sample');
      const device = data(
        await v2<{
          readings: Reading[];
          is_online: boolean;
          has_relay: boolean;
          active_mode: string;
          balance: number;
        }>('GET', `/devices/${deviceId}/`),
      );
      readings = device.readings;
      expect(device).toMatchObject({
        is_online: true,
        has_relay: false,
        active_mode: 'measurement',
        balance: 0,
      });
      const values = Object.fromEntries(readings.map((r) => [r.property_id, r.value]));
      expect(values).toEqual(EXPECTED);
      expect(readings).toContainEqual({
        property_id: 'reactive_power',
        context_type: 'instantaneous',
        value: -328.5,
        unit: 'var',
      });
      expect(readings).toContainEqual({
        property_id: 'energy',
        context_type: 'cumulative',
        value: 1234.5,
        unit: 'kWh',
      });
    });

    it('metrics reads the meter live over Modbus [MC-8.6]', async () => {
      const metrics = data(await v2<Record<string, unknown>>('GET', `/devices/${deviceId}/metrics`));
      expect(metrics).toMatchObject({
        device_id: deviceId,
        energy: 1234.5,
        voltage: 230,
        active_power: 1150.5,
        mode: 'MEASUREMENT',
        relay_state: true,
        balance: 0,
        eb_tariff: 0,
        dg_tariff: 0,
        active_tariff: 1,
        pg_enabled: false,
      });
    });

    it('history has the polled samples', async () => {
      const now = Date.now();
      const qs = `property_id=energy&from_date=${istDate(now - DAY_MS)}&to_date=${istDate(now + DAY_MS)}&interval=15m`;
      let readings: { value: number; unit: string }[] = [];
      const deadline = now + 5_000;
      while (readings.length === 0 && Date.now() < deadline) {
        const history = data(
          await v2<{ readings: { value: number; unit: string }[] }>(
            'GET',
            `/devices/${deviceId}/metrics/history?${qs}`,
          ),
        );
        readings = history.readings;
        if (readings.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(readings.length).toBeGreaterThan(0);
      expect(readings.at(-1)).toMatchObject({ value: 1234.5, unit: 'kWh' });
    });

    it('PUT relay is refused: 400 device_rejected naming what the SDM120 lacks [MC-8.3]', async () => {
      const detail = failed(
        await v2('PUT', `/devices/${deviceId}/relay`, { state: false }),
        400,
        'device_rejected',
      );
      expect(detail).toContain('(unsupported)');
      expect(detail).toContain('SDM120 has no relay');
      const wifi = failed(await v2('GET', `/devices/${deviceId}/wifi`), 400, 'device_rejected');
      expect(wifi).toContain('SDM120 has no WiFi');
    });

    it('[LEDGER-4] a recharge is refused: 400 device_rejected (the SDM120 keeps no money), nothing credited', async () => {
      const body = { amount: 500, transaction_id: 'pay-sdm' };
      for (const _ of [1, 2]) {
        // The second time from the receipt, without asking the meter again.
        const res = await t.sim('POST', `/devices/${deviceId}/recharge`, body);
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({
          code: 'device_rejected',
          detail: `Device ${deviceId} refused the recharge: unsupported: SDM120 has no prepaid balance: it keeps no money`,
        });
      }
      const ledger = ok(
        await t.sim<{ ledger: Record<string, unknown> }>('GET', `/devices/${deviceId}`),
      ).ledger;
      expect(ledger).toMatchObject({ agrees: true, applied_paise: 0, pending: [], refused: ['pay-sdm'] });
    });

    it('goes offline when the server stops answering and back online when it answers again [MC-6.6]', async () => {
      const twins = t.svc.world.twins;
      server!.kill('SIGSTOP');
      expect(await twins.waitForAvailability(deviceId, false, 5_000)).toBe(true);
      const device = data(await v2<{ is_online: boolean }>('GET', `/devices/${deviceId}/`));
      expect(device.is_online).toBe(false);
      failed(await v2('GET', `/devices/${deviceId}/metrics`), 400, 'device_offline');

      server!.kill('SIGCONT');
      expect(await twins.waitForAvailability(deviceId, true, 5_000)).toBe(true);
      expect(logs.some((l) => l.startsWith('warn') && l.includes('Timed out'))).toBe(true);
    });

    it('reopens the port when it vanishes and comes back, without a restart', async () => {
      const twins = t.svc.world.twins;
      await stopProcess(server);
      await pty.stop();
      expect(await twins.waitForAvailability(deviceId, false, 5_000)).toBe(true);

      await pty.start();
      server = await startServer(pty.meter);
      expect(await twins.waitForAvailability(deviceId, true, 5_000)).toBe(true);
      const metrics = data(await v2<{ voltage: number }>('GET', `/devices/${deviceId}/metrics`));
      expect(metrics.voltage).toBe(230);
    });
  },
);
