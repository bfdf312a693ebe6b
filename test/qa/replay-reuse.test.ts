// Replaying a trace again against the same service plays as the same device (no 409) when it fits,
// and says clearly why not when it does not; a bridge recording replays as its meter opened (mode
// and balance from its first state [MC-5]).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../src/qa/replay/replay.ts';
import type { Target } from '../../src/qa/replay/target.ts';
import { loadTrace } from '../../src/qa/traces/load.ts';
import type { Trace } from '../../src/qa/traces/types.ts';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { data, type History, v2Client } from '../helpers/v2.ts';

const RECORDING = 'test/qa/fixtures/bridge-recording.jsonl';
let t: TestService;
let target: Target;
let trace: Trace;
const tmp = tempDir('meterstack-replay-reuse-');
const known = join(tmp.dir, 'devices.json');

beforeAll(async () => {
  t = await startTestService();
  target = {
    httpUrl: t.svc.httpUrl,
    adminToken: t.svc.adminToken,
    identity: 'test-service',
    close: async () => {},
  };
  trace = await loadTrace(RECORDING);
});
afterAll(async () => {
  await t?.close();
  tmp.remove();
});

const play = (device: Parameters<typeof replay>[0]['device']) =>
  replay({ trace, target, device, pace: { kind: 'instant' }, loops: 1, meter: {} });

describe('a bridge recording replays as its meter opened', () => {
  it('prepaid with the balance of its first state: it ends at the balance the meter itself reported', async () => {
    expect(trace.meta).toMatchObject({
      mode: 'prepaid',
      balance: 5000,
      ebTariff: 800,
      dgTariff: 2000,
      activeTariff: 1,
    });
    const r = await play({ deviceId: 'MTR-SER-1', knownDevices: known });
    expect(r.mode).toBe('prepaid');
    // 12.5 -> 12.5167 kWh at 800 paise/kWh: 13.36 paise off 5000; the recording's last sample says 4986.
    expect(r.balance).toBe(4986);
    expect(r.verified).toBe(true);
  });
});

describe('replaying a trace again against the same service', () => {
  it('plays as the same device, in the same account, with the history not doubled', async () => {
    const first = await play({ deviceId: 'MTR-AGAIN-1', knownDevices: known });
    expect(first.device.created).toBe(true);
    const second = await play({ deviceId: 'MTR-AGAIN-1', knownDevices: known });
    expect(second.device).toMatchObject({
      deviceId: 'MTR-AGAIN-1',
      accountId: first.device.accountId,
      spaceId: first.device.spaceId,
      created: false,
    });
    expect(second.verified).toBe(true);
    expect(second.samples).toBe(first.samples);
    const v2 = v2Client(t.svc.httpUrl, first.device.apiKey!);
    const h = data<History>(
      await v2<History>(
        'GET',
        `/devices/MTR-AGAIN-1/metrics/history?property_id=energy&from_date=2026-01-05&to_date=2026-01-05&interval=60m`,
      ),
    );
    expect(h.readings.map((x) => x.value)).toEqual([12.517]);
  });

  it('refuses, saying why, a device of another model, another account, a virtual meter, or one whose password is unknown', async () => {
    const acct = await newAccount(t.sim, 'other');
    ok(
      await t.sim('POST', '/devices', {
        account_id: acct.account_id,
        device_id: 'MTR-FULL-1',
        model: 'full',
        external: true,
      }),
      201,
    );
    await expect(play({ deviceId: 'MTR-FULL-1', knownDevices: known })).rejects.toThrow(
      'device MTR-FULL-1 is already on test-service, as a full meter, and the trace is basic: pass --device <another id>',
    );
    await provision(t.sim, { account_id: acct.account_id, device_id: 'MTR-VIRT-1' });
    await expect(play({ deviceId: 'MTR-VIRT-1', knownDevices: known })).rejects.toThrow(
      'device MTR-VIRT-1 is already on test-service, as a virtual meter of the service, not one a replay can play',
    );
    const mine = await play({ deviceId: 'MTR-AGAIN-2', knownDevices: known });
    await expect(
      play({ deviceId: 'MTR-AGAIN-2', accountId: acct.account_id, knownDevices: known }),
    ).rejects.toThrow(
      `device MTR-AGAIN-2 is already on test-service, in account ${mine.device.accountId}, not ${acct.account_id}`,
    );
    ok(
      await t.sim('POST', '/devices', {
        account_id: acct.account_id,
        device_id: 'MTR-NOPW-1',
        model: 'basic',
        external: true,
      }),
      201,
    );
    await expect(play({ deviceId: 'MTR-NOPW-1', knownDevices: known })).rejects.toThrow(
      'device MTR-NOPW-1 is already on test-service, and its MQTT password is not known here: pass its --mqtt-password, or --device <another id>',
    );
  });
});
