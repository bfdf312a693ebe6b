// Issue 8 item 14: the example firmware (firmware-protocol/serial/c/example/meter-example.c, a main loop on
// top of meterline.c) built with the strict flags and run against the real `meterstack bridge` over a socat
// pty pair, behind a real service: the meter comes online, reports, obeys the v2 API, answers a duplicate
// command once [MC-8.8], survives a bridge restart [SP-5.6, SP-5.7], and a build without a clock gets
// its time from the bridge [SP-5.9].

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import {
  newAccount,
  ok,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import {
  type Device,
  data,
  type History,
  type Metrics,
  type V2,
  v2Client,
  type Wifi,
} from '../helpers/v2.ts';
import { Wire } from './serial-harness.ts';

const C_DIR = fileURLToPath(new URL('../../firmware-protocol/serial/c/', import.meta.url));
const hasGcc = spawnSync('gcc', ['--version']).status === 0;
const skip = skipWithoutSocat || (!hasGcc && process.env['CI'] !== 'true');

/** The example firmware on one pty and `meterstack bridge` on the other. */
class Rig {
  pty!: PtyPair;
  meter!: ChildProcess;
  bridge!: CliProcess;
  meterLog = '';
  constructor(
    readonly exe: string,
    readonly dir: string,
    readonly ext: Provisioned,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async start(): Promise<this> {
    mkdirSync(this.dir, { recursive: true });
    this.pty = await new PtyPair(this.dir).start();
    this.meter = spawn(this.exe, [this.pty.a, this.ext.device_id, '1200', '500', '1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: this.env,
    });
    this.meter.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.meterLog += d;
    });
    this.startBridge();
    return this;
  }

  startBridge(): void {
    const { url, username, password } = this.ext.mqtt;
    this.bridge = new CliProcess([
      'bridge',
      ...['--serial', this.pty.b, '--broker', url, '--username', username, '--password', password],
    ]);
  }

  async stop(): Promise<void> {
    await this.bridge?.stop();
    if (this.meter && this.meter.exitCode === null) {
      const exited = new Promise((r) => this.meter.once('exit', r));
      this.meter.kill('SIGTERM');
      await exited;
    }
    await this.pty?.kill();
  }
}

describe.skipIf(skip)('[SP-10] issue 8 item 14: the example C firmware against the real bridge', () => {
  let t: TestService;
  let v2: V2;
  let tmp: { dir: string; remove: () => void };
  let exe: string;
  let rig: Rig;
  let ext: Provisioned;
  let base: { account_id: number; space_id: number };

  const device = async (id: string) => data(await v2<Device>('GET', `/devices/${id}/`));
  const metrics = async (id: string) => data(await v2<Metrics>('GET', `/devices/${id}/metrics`));

  beforeAll(async () => {
    tmp = tempDir('meterstack-cex-');
    exe = join(tmp.dir, 'meter-example');
    const flags = ['-std=c99', '-Wall', '-Wextra', '-Werror', '-pedantic', '-O2', `-I${C_DIR}`];
    execFileSync('gcc', [
      ...flags,
      join(C_DIR, 'example/meter-example.c'),
      join(C_DIR, 'meterline.c'),
      '-lm',
      '-o',
      exe,
    ]);
    t = await startTestService();
    const { account_id, api_key } = await newAccount(t.sim);
    v2 = v2Client(t.svc.httpUrl, api_key);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Lab' }));
    base = { account_id, space_id: space.space_id };
    ext = await provision(t.sim, { ...base, external: true, model: 'basic', device_id: 'MTR-C-EXAMPLE' });
    rig = await new Rig(exe, join(tmp.dir, 'rig1'), ext).start();
  });
  afterAll(async () => {
    await rig?.stop();
    await t?.close();
    tmp?.remove();
  });

  it('builds with gcc -std=c99 -Wall -Wextra -Werror -pedantic, comes online and reports energy', async () => {
    const id = ext.device_id;
    await until(async () => (await device(id)).is_online, 15_000, 'the example meter online');
    await until(
      async () => ((await device(id)).readings.find((r) => r.property_id === 'energy')?.value ?? 0) > 0,
      10_000,
      'energy readings',
    );
    expect((await metrics(id)).active_power).toBe(1200);
  });

  it('[SP-4.5][SP-4.6] obeys the v2 API: relay, tariff, WiFi, and a read', async () => {
    const id = ext.device_id;
    data(await v2('PUT', `/devices/${id}/relay`, { state: false }), 'relay state updated');
    await until(async () => (await metrics(id)).relay_state === false, 5_000, 'relay open');
    data(await v2('PUT', `/devices/${id}/relay`, { state: true }));
    data(await v2('PUT', `/devices/${id}/tariffs/eb`, { tariff: 900 }));
    await until(async () => (await metrics(id)).eb_tariff === 900, 5_000, 'tariff applied');
    data(await v2('POST', `/devices/${id}/wifi`, { ssid: 'Lab 2.4', password: 'p@ss wörd' }));
    expect(data(await v2<Wifi>('GET', `/devices/${id}/wifi`))).toMatchObject({
      ssid: 'Lab 2.4',
      password: 'p@ss wörd',
      type: 'Primary',
    });
  });

  it('[MC-8.8][SP-5.10] its duplicate-command table: a repeated id is answered again with its own seq, not applied again', async () => {
    const dir = join(tmp.dir, 'dup');
    mkdirSync(dir, { recursive: true });
    const pty = await new PtyPair(dir).start();
    const meter = spawn(exe, [pty.a, 'MTR-C-DUP', '0', '60000', '5'], { stdio: 'ignore' });
    const wire = new Wire(pty.b);
    try {
      wire.send({ type: 'IDENT', ts: Date.now() });
      await wire.next('STATE', 0);
      const recharge = (seq: number, id: string) =>
        ({ type: 'CMD', seq, id, op: 'recharge', amount: 5_000, transaction_id: 'txn-1' }) as const;
      wire.send(recharge(1, 'c-1'), recharge(2, 'c-1'), recharge(3, 'c-2'));
      await until(() => wire.frames().filter((f) => f.type === 'ACK').length === 3, 5_000, 'three ACKs');
      const acks = wire.frames().filter((f) => f.type === 'ACK');
      expect(acks).toEqual([
        { type: 'ACK', seq: 1, id: 'c-1', op: 'recharge', data: { applied: true, balance: 505_000 } },
        { type: 'ACK', seq: 2, id: 'c-1', op: 'recharge', data: { applied: true, balance: 505_000 } },
        { type: 'ACK', seq: 3, id: 'c-2', op: 'recharge', data: { applied: false, balance: 505_000 } },
      ]);
      // One STATE for the one credit [MC-5.1].
      expect(wire.frames().filter((f) => f.type === 'STATE' && f.balance === 505_000)).toHaveLength(1);
    } finally {
      meter.kill('SIGTERM');
      await wire.close();
      await pty.kill();
    }
  });

  it('[SP-5.6][SP-5.7] survives a bridge restart: offline, then online again by itself', async () => {
    const id = ext.device_id;
    await rig.bridge.stop();
    await until(async () => !(await device(id)).is_online, 10_000, 'offline');
    await new Promise((r) => setTimeout(r, 1_500)); // samples fall due with no bridge: held
    rig.startBridge();
    await until(async () => (await device(id)).is_online, 15_000, 'online again');
    data(await v2('PUT', `/devices/${id}/tariffs/eb`, { tariff: 950 }));
    await until(async () => (await metrics(id)).eb_tariff === 950, 5_000, 'tariff after the restart');
    expect(rig.meter.exitCode).toBeNull();
  });

  it('[SP-5.9] built without a clock (METER_NO_RTC=1), it takes the time from IDENT and comes online', async () => {
    const noClock = await provision(t.sim, {
      ...base,
      external: true,
      model: 'basic',
      device_id: 'MTR-C-NORTC',
    });
    const rig2 = await new Rig(exe, join(tmp.dir, 'rig2'), noClock, {
      ...process.env,
      METER_NO_RTC: '1',
    }).start();
    try {
      await until(
        async () => (await device(noClock.device_id)).is_online,
        15_000,
        'the clockless meter online',
      );
      await until(
        async () => (await device(noClock.device_id)).readings.length > 0,
        10_000,
        'readings from the clockless meter',
      );
      // Stamped with the bridge's time: today's history holds them (1970 would not).
      const today = new Date(Date.now() + 5.5 * 3600_000).toISOString().slice(0, 10);
      const qs = `property_id=energy&from_date=${today}&to_date=${today}&interval=15m`;
      await until(
        async () =>
          data(await v2<History>('GET', `/devices/${noClock.device_id}/metrics/history?${qs}`)).readings
            .length > 0,
        10_000,
        "today's history of the clockless meter",
      );
    } finally {
      await rig2.stop();
    }
  });
});
