// `bridge --dlms --serial` end to end over HDLC on a socat pseudo-terminal pair: the in-test meter's HDLC
// server link (hdlc/link.ts) on one end, the bridge on the other, a real meterstack behind it. A lost
// answer is repeated by the link (same N(S)), so the meter answers again without running the ACTION
// twice [CL-3.2]; garbage on the line is dropped and counted [CL-7.1]; an unplugged port is re-associated
// when it comes back [CL-9.7].

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../firmware-protocol/dlms/hdlc/frame.ts';
import type { DlmsBridge } from '../../../src/bridge/dlms/bridge.ts';
import { runDlmsBridge } from '../../../src/bridge/dlms/index.ts';
import {
  newAccount,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../../helpers/service.ts';
import { PtyPair, skipWithoutSocat, until } from '../helpers.ts';
import { type MeterValues, meterValues, PASSWORD, serveHdlc } from './test-meter.ts';

const SERVER = { bytes: 4, upper: 1, lower: 256 } as const;

describe.skipIf(skipWithoutSocat)('meterstack bridge --dlms --serial, HDLC on a pty [CL-10.1]', () => {
  let t: TestService;
  let ext: Provisioned;
  let v: MeterValues;
  let pty: PtyPair;
  let meter: Awaited<ReturnType<typeof serveHdlc>>;
  let bridge: { close(): Promise<void>; bridge: DlmsBridge };
  let tmp: { dir: string; remove: () => void };
  const logs: string[] = [];

  beforeAll(async () => {
    t = await startTestService({ creditRetryMs: 300 });
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
    await t?.close();
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
