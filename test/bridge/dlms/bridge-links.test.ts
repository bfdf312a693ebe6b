// `bridge --dlms` end to end over both links, against one real meterstack (embedded broker, SQLite) that
// the file shares (each link has its own account and device): the in-test DLMS meter (test-meter.ts,
// our pure pieces) over a real socket with the wrapper (--tcp), and over HDLC on a socat pty pair
// (--serial), the bridge's real client, checked through the v2 API over HTTP and the twins.
// Rules: firmware-protocol/dlms/CLIENT.md.
//
// Over HDLC: a lost answer is repeated by the link (same N(S)), so the meter answers again without
// running the ACTION twice [CL-3.2]; garbage on the line is dropped and counted [CL-7.1]; an unplugged
// port is re-associated when it comes back [CL-9.7].

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../firmware-protocol/dlms/hdlc/frame.ts';
import type { DlmsBridge } from '../../../src/bridge/dlms/bridge.ts';
import { runDlmsBridge } from '../../../src/bridge/dlms/index.ts';
import {
  newAccount,
  ok,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../../helpers/service.ts';
import { data, type V2, v2Client } from '../../helpers/v2.ts';
import { PtyPair, skipWithoutSocat, until } from '../helpers.ts';
import { type MeterValues, meterValues, PASSWORD, serveHdlc, serveTcp } from './test-meter.ts';

const BLOCK = 900_000;

// One service for the file: starting one per link was a good share of its time.
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ creditRetryMs: 300 });
});
afterAll(async () => {
  await t?.close();
});

describe('meterstack bridge --dlms --tcp, against a DLMS meter on a socket [CL-9]', () => {
  let v2: V2;
  let ext: Provisioned;
  let v: MeterValues;
  let meter: Awaited<ReturnType<typeof serveTcp>>;
  let bridge: { close(): Promise<void>; bridge: DlmsBridge };
  let tmp: { dir: string; remove: () => void };
  const logs: string[] = [];
  const stateFile = () => join(tmp.dir, 'dlms-state.json');

  const start = async () =>
    runDlmsBridge({
      link: { kind: 'tcp', host: '127.0.0.1', port: meter.port },
      client: 32,
      server: { bytes: 1, value: 1 },
      password: PASSWORD,
      broker: ext.mqtt,
      deviceId: ext.device_id,
      pollMs: 300,
      timeoutMs: 400,
      stateFile: stateFile(),
      log: (level, msg) => logs.push(`${level} ${msg}`),
    });

  beforeAll(async () => {
    tmp = tempDir('meterstack-dlms-');
    const { account_id, api_key } = await newAccount(t.sim);
    v2 = v2Client(t.svc.httpUrl, api_key);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Feeder' }));
    ext = await provision(t.sim, { account_id, space_id: space.space_id, external: true, model: 'full' });
    // Three closed blocks of history in the meter's profile, the newest ending 15 minutes ago.
    const end = Math.floor(Date.now() / BLOCK) * BLOCK - BLOCK;
    v = meterValues({
      blocks: [
        [end - 2 * BLOCK, 23001, 250, 260, 1234000, 50_000],
        [end - BLOCK, 23002, 260, 270, 1234260, 50_000],
        [end, 23003, 270, 280, 1234530, 50_000],
      ],
    });
    meter = await serveTcp(v);
    bridge = await start();
    await t.svc.world.twins.waitForAvailability(ext.device_id, true, 10_000);
  }, 30_000);

  afterAll(async () => {
    await bridge?.close();
    await meter?.close();
    tmp?.remove();
  });

  it("[CL-9.1][CL-9.2] GET device shows every register as the meter's, at the contract's resolution", async () => {
    await until(() => t.svc.world.twins.get(ext.device_id)?.latest != null, 5_000, 'a sample');
    const device = data(
      await v2<{
        readings: { property_id: string; value: number }[];
        has_relay: boolean;
        balance: number;
        is_online: boolean;
      }>('GET', `/devices/${ext.device_id}/`),
    );
    expect(device).toMatchObject({ is_online: true, has_relay: true, balance: 50_000 });
    expect(Object.fromEntries(device.readings.map((r) => [r.property_id, r.value]))).toEqual({
      voltage: 230.12,
      current: 5.21,
      power_factor: 0.962,
      apparent_power: 1198.9,
      active_power: 1153.3,
      reactive_power: -328.5,
      energy: 1234.567,
    });
  });

  it('[CL-9.3] the block load profile arrives as history with its own timestamps, once', async () => {
    const ends = v.blocks.map((b) => b[0]);
    await until(
      () => JSON.parse(readFileSync(stateFile(), 'utf8')).cursor_ms === ends[2],
      5_000,
      'the cursor',
    );
    const day = (ms: number) => new Date(ms + 19_800_000).toISOString().slice(0, 10);
    const now = Date.now();
    const qs = `property_id=energy&from_date=${day(now - 86_400_000)}&to_date=${day(now + 86_400_000)}&interval=15m`;
    let values: number[] = [];
    await until(
      async () => {
        const history = data(
          await v2<{ readings: { value: number }[] }>(
            'GET',
            `/devices/${ext.device_id}/metrics/history?${qs}`,
          ),
        );
        values = history.readings.map((r) => r.value);
        return values.length >= 4;
      },
      5_000,
      'history',
    );
    // [CO-10.4] each block's cumulative energy lands in the interval it closes, as the history endpoint buckets it
    expect(values).toEqual(expect.arrayContaining([1234, 1234.26, 1234.53]));
    expect(logs.filter((l) => l.includes('3 blocks pushed'))).toHaveLength(1); // once, not at every poll
  });

  it('[CL-9.5] PUT relay off and on goes through disconnect control and shows in GET device', async () => {
    const off = await v2('PUT', `/devices/${ext.device_id}/relay`, { state: false });
    expect(off.status).toBe(200);
    expect(v.output).toBe(false);
    await until(() => t.svc.world.twins.get(ext.device_id)?.state?.relay_state === false, 5_000, 'relay off');
    // metrics reads the meter live through the bridge [MC-8.6]: control_state 0 is an ordered off [CO-10.3]
    const metrics = data(await v2<{ relay_state: boolean }>('GET', `/devices/${ext.device_id}/metrics`));
    expect(metrics.relay_state).toBe(false);
    expect((await v2('PUT', `/devices/${ext.device_id}/relay`, { state: true })).status).toBe(200);
    expect(v).toMatchObject({ output: true, control: 1 });
  });

  it('[CL-9.6] a recharge credits the meter once; the same transaction again credits nothing', async () => {
    const res = await t.sim<{ applied: boolean; balance: number }>(
      'POST',
      `/devices/${ext.device_id}/recharge`,
      {
        amount: 700,
        transaction_id: 'dlms-pay-1',
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ applied: true, balance: 50_700 });
    expect(v.credited).toEqual([700]);
    const again = await t.sim<{ applied: boolean }>('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 700,
      transaction_id: 'dlms-pay-1',
    });
    expect(again.body.data).toMatchObject({ applied: false });
    expect(v.credited).toEqual([700]);
  });

  it('[CL-9.6] the meter’s answer lost: the credit is in doubt, sent again by the service, never credited twice; a restart remembers', async () => {
    v.dropNextActionResponse = true;
    const res = await t.sim<{ applied: boolean; status: string }>(
      'POST',
      `/devices/${ext.device_id}/recharge`,
      {
        amount: 300,
        transaction_id: 'dlms-pay-lost',
      },
    );
    expect(res.status).toBe(200);
    // The service sends it again (MC-8.10) once the bridge has re-associated; the bridge answers from its file.
    await until(
      async () => {
        const l = await t.sim<{ ledger: { pending: unknown[] } | null }>('GET', `/devices/${ext.device_id}`);
        return l.body.data.ledger?.pending.length === 0;
      },
      10_000,
      'the credit settled',
    );
    expect(v.credited).toEqual([700, 300]);
    const saved = JSON.parse(readFileSync(stateFile(), 'utf8'));
    expect(saved.recharges).toContainEqual(
      expect.objectContaining({ id: 'dlms-pay-lost', status: 'applied' }), // decided from the credit
    );
    // A restarted bridge reads its file: the same transaction still credits nothing.
    await bridge.close();
    bridge = await start();
    await t.svc.world.twins.waitForAvailability(ext.device_id, true, 10_000);
    const again = await t.sim<{ applied: boolean }>('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 300,
      transaction_id: 'dlms-pay-lost',
    });
    expect(again.status).toBe(200);
    expect(v.credited).toEqual([700, 300]);
    expect(logs.some((l) => l.includes('dlms-pay-lost was in doubt: applied'))).toBe(true);
  });

  it('[CL-7.1][CL-9.7] garbage on the socket is dropped and counted; the bridge re-associates and keeps polling', async () => {
    const before = t.svc.world.twins.get(ext.device_id)?.latest?.ts ?? 0;
    for (const s of meter.sockets) s.write(Buffer.from('0001000100200003c00102', 'hex')); // a WPDU for another client
    await until(() => bridge.bridge.badFrames > 0, 5_000, 'a dropped WPDU');
    for (const s of meter.sockets) s.destroy(); // a drop
    await until(
      () => (t.svc.world.twins.get(ext.device_id)?.latest?.ts ?? 0) > before + 1000,
      10_000,
      'polling again',
    );
    expect(existsSync(stateFile())).toBe(true);
  });

  it('[CL-9.4] a meter clock an hour fast is logged once; live samples keep the bridge clock', async () => {
    v.clock = () => Date.now() + 3_600_000;
    await until(
      () => logs.some((l) => l.includes("the meter's clock is 3600 s off")),
      5_000,
      'the clock warning',
    );
    const latest = t.svc.world.twins.get(ext.device_id)?.latest?.ts ?? 0;
    expect(Math.abs(latest - Date.now())).toBeLessThan(60_000);
    await new Promise((r) => setTimeout(r, 700));
    expect(logs.filter((l) => l.includes('clock is 3600 s off'))).toHaveLength(1);
    v.clock = Date.now;
    await until(() => logs.some((l) => l.includes('clock agrees')), 5_000, 'the clock agreeing again');
  });
});

const SERVER = { bytes: 4, upper: 1, lower: 256 } as const;

describe.skipIf(skipWithoutSocat)('meterstack bridge --dlms --serial, HDLC on a pty [CL-10.1]', () => {
  let ext: Provisioned;
  let v: MeterValues;
  let pty: PtyPair;
  let meter: Awaited<ReturnType<typeof serveHdlc>>;
  let bridge: { close(): Promise<void>; bridge: DlmsBridge };
  let tmp: { dir: string; remove: () => void };
  const logs: string[] = [];

  beforeAll(async () => {
    tmp = tempDir('meterstack-dlms-hdlc-');
    const { account_id } = await newAccount(t.sim);
    ext = await provision(t.sim, { account_id, external: true, model: 'full' });
    v = meterValues();
    pty = await new PtyPair(tmp.dir).start();
    meter = await serveHdlc(v, pty.a, SERVER);
    bridge = await runDlmsBridge({
      link: { kind: 'serial', path: pty.b, baud: 9600 },
      client: 32,
      server: SERVER,
      password: PASSWORD,
      broker: ext.mqtt,
      deviceId: ext.device_id,
      pollMs: 300,
      timeoutMs: 400,
      stateFile: `${tmp.dir}/state.json`,
      log: (level, msg) => logs.push(`${level} ${msg}`),
    });
    await t.svc.world.twins.waitForAvailability(ext.device_id, true, 10_000);
  }, 30_000);

  afterAll(async () => {
    await bridge?.close();
    await meter?.close();
    await pty?.kill();
    tmp?.remove();
  });

  it('[CL-9.2] the registers arrive over HDLC', async () => {
    await until(() => t.svc.world.twins.get(ext.device_id)?.latest?.voltage === 230.12, 5_000, 'a sample');
    expect(t.svc.world.twins.get(ext.device_id)?.latest).toMatchObject({ energy: 1234.567, current: 5.21 });
  });

  it('[CL-3.2][CL-9.6] the answer to a recharge lost on the line: the link repeats its frame, the meter answers again, credited once', async () => {
    v.dropNextActionResponse = true;
    const res = await t.sim<{ applied: boolean; balance: number }>(
      'POST',
      `/devices/${ext.device_id}/recharge`,
      {
        amount: 400,
        transaction_id: 'hdlc-pay-1',
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ applied: true, balance: 50_400 });
    expect(v.dropNextActionResponse).toBe(false); // the answer was dropped once
    expect(v.credited).toEqual([400]);
  });

  it('[CL-7.1] noise on the line is dropped and counted; polling goes on', async () => {
    const before = t.svc.world.twins.get(ext.device_id)?.latest?.ts ?? 0;
    const bad = bridge.bridge.badFrames;
    // A whole frame to the bridge with one bit of its FCS flipped, then bytes that are no frame at all.
    const frame = encodeFrame({
      segmented: false,
      dest: { bytes: 1, value: 32 },
      src: SERVER,
      control: { type: 'RR', nr: 0, pf: true },
      info: new Uint8Array(0),
    });
    frame[frame.length - 2]! ^= 0x01;
    meter.port.write(Buffer.concat([Buffer.from(frame), Buffer.from('00ff13', 'hex')]));
    await until(() => bridge.bridge.badFrames > bad, 5_000, 'the bad frame counted');
    await until(
      () => (t.svc.world.twins.get(ext.device_id)?.latest?.ts ?? 0) > before + 600,
      5_000,
      'more samples',
    );
    expect(t.svc.world.twins.get(ext.device_id)?.online).toBe(true);
  });

  it('[CL-9.7] the port unplugged and plugged back: offline, then re-associated and online', async () => {
    await meter.close();
    await pty.kill();
    await t.svc.world.twins.waitForAvailability(ext.device_id, false, 10_000);
    pty = await new PtyPair(tmp.dir).start();
    meter = await serveHdlc(v, pty.a, SERVER);
    await t.svc.world.twins.waitForAvailability(ext.device_id, true, 15_000);
    expect(logs.some((l) => l.includes('association lost'))).toBe(true);
  }, 30_000);
});
