// `meterstack bridge --dlms --meters` end to end [CL-11]: ONE bridge process (the real command line)
// holding three DLMS meters over TCP (test-meter.ts, our pure pieces on real sockets) and a fourth
// address that accepts connections and never answers, in front of a real meterstack (embedded broker,
// SQLite). One meter killed and restarted, garbage on another, the silent one: the others keep reporting.

import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newAccount,
  ok,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../../helpers/service.ts';
import { CliProcess, until } from '../helpers.ts';
import { meterValues, PASSWORD, serveTcp } from './test-meter.ts';

type TcpMeter = Awaited<ReturnType<typeof serveTcp>>;

describe('bridge --dlms --meters: three meters and a silent one in one bridge process [CL-11]', () => {
  let t: TestService;
  let tmp: { dir: string; remove: () => void };
  let devices: Provisioned[];
  const meters: TcpMeter[] = [];
  let silent: Server;
  const silentSockets = new Set<Socket>();
  let bridge: CliProcess;

  const latest = (i: number) => t.svc.world.twins.get(devices[i]!.device_id)?.latest?.ts ?? 0;
  /** Every meter in `which` stores a sample newer than now. */
  const allReportAfter = async (which: number[], what: string) => {
    const since = Date.now();
    await until(() => which.every((i) => latest(i) > since), 10_000, what);
  };

  beforeAll(async () => {
    t = await startTestService();
    tmp = tempDir('meterstack-dlms-fleet-');
    const { account_id } = await newAccount(t.sim);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Feeder' }));
    devices = [];
    for (let i = 0; i < 4; i++) {
      devices.push(
        await provision(t.sim, {
          account_id,
          space_id: space.space_id,
          external: true,
          model: 'full',
          device_id: `DLMS-FLEET-${i}`,
        }),
      );
    }
    for (let i = 0; i < 3; i++) meters.push(await serveTcp(meterValues({ serial: `TST000${i}` })));
    // The fourth address takes connections and answers nothing: a meter that hangs.
    silent = createServer((s) => {
      silentSockets.add(s);
      s.on('close', () => silentSockets.delete(s));
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPort = (silent.address() as { port: number }).port;
    const file = join(tmp.dir, 'meters.json');
    writeFileSync(
      file,
      JSON.stringify([
        ...meters.map((m, i) => ({
          device: devices[i]!.device_id,
          tcp: `127.0.0.1:${m.port}`,
          mqttPassword: devices[i]!.mqtt.password,
        })),
        {
          device: devices[3]!.device_id,
          tcp: `127.0.0.1:${silentPort}`,
          mqttPassword: devices[3]!.mqtt.password,
        },
      ]),
    );
    bridge = new CliProcess(
      [
        'bridge',
        '--dlms',
        '--meters',
        file,
        '--password',
        PASSWORD,
        '--broker',
        t.svc.mqttUrl,
        '--poll-s',
        '1',
        '--state-dir',
        tmp.dir,
      ],
      { ...process.env, METERSTACK_BRIDGE_PASSWORD: 'not-this-one' },
    );
    for (let i = 0; i < 3; i++)
      await t.svc.world.twins.waitForAvailability(devices[i]!.device_id, true, 20_000);
  }, 60_000);

  afterAll(async () => {
    await bridge?.stop();
    for (const m of meters) await m.close();
    for (const s of silentSockets) s.destroy();
    await new Promise((r) => silent?.close(r));
    await t?.close();
    tmp?.remove();
  });

  it('[CL-11.1][CL-11.3] each meter is online under its own login, reporting; the silent one is not', async () => {
    await allReportAfter([0, 1, 2], 'samples from all three');
    expect(t.svc.world.twins.get(devices[3]!.device_id)?.latest ?? null).toBeNull();
    expect(bridge.output).toMatch(/4 meters in this process/);
    await until(
      () => /DLMS-FLEET-3: dlms: 127\.0\.0\.1:\d+: cannot associate/.test(bridge.output),
      10_000,
      'the silent one refused',
    );
    expect(bridge.proc.exitCode).toBeNull();
  });

  it('[CL-11.5][CL-9.7] one meter killed: it goes offline, the other two keep reporting; restarted, it comes back', async () => {
    const port = meters[1]!.port;
    await meters[1]!.close();
    await t.svc.world.twins.waitForAvailability(devices[1]!.device_id, false, 10_000);
    const downSince = latest(1);
    await allReportAfter([0, 2], 'the other two while one is down');
    await allReportAfter([0, 2], 'the other two, again');
    expect(latest(1)).toBe(downSince);
    meters[1] = await serveTcp(meterValues({ serial: 'TST0001' }), port);
    await t.svc.world.twins.waitForAvailability(devices[1]!.device_id, true, 20_000);
    await allReportAfter([0, 1, 2], 'all three again');
  }, 40_000);

  it('[CL-11.5][CL-7.1] garbage to one meter’s bridge is dropped; the others never stop', async () => {
    const noted = bridge.output.length;
    for (const s of meters[0]!.sockets) s.write(Buffer.from('0001000100200003c00102', 'hex'));
    await until(() => /DLMS-FLEET-0: dlms: .*dropped \[/.test(bridge.output.slice(noted)), 5_000, 'a drop');
    await allReportAfter([0, 1, 2], 'all three after the garbage');
    expect(bridge.proc.exitCode).toBeNull();
  });
});
