// issue 8 item 15: an offline meter shows the state it last reported, not `measurement` [MC-5.4]:
// the demo's offline postpaid meter, and an offline bridged prepaid meter after a restart.

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { data, tenant, v2Client } from '../helpers/v2.ts';
import { HandMeter, statePayload, until } from './hand-meter.ts';

interface Device {
  active_mode: string;
  is_online: boolean;
  balance: number;
  has_relay: boolean;
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function dbFile(): string {
  const tmp = tempDir();
  cleanups.push(tmp.remove);
  return join(tmp.dir, 'meterstack.db');
}

async function serve(db: string, demo = false): Promise<TestService> {
  const t = await startTestService({ db, demo, speed: 0 });
  cleanups.push(() => t.close());
  return t;
}

const device = async (t: TestService, key: string, id: string) =>
  data(await v2Client(t.svc.httpUrl, key)<Device>('GET', `/devices/${id}/`));

describe('the demo’s offline meter (issue 8 item 15)', () => {
  it('[MC-5.4] MTR-B203 shows postpaid, offline, before and after a restart', async () => {
    const db = dbFile();
    const first = await serve(db, true);
    expect(await device(first, 'msk_test', 'MTR-B203')).toMatchObject({
      active_mode: 'postpaid',
      is_online: false,
    });
    const spaces = data(
      await v2Client(first.svc.httpUrl, 'msk_test')<
        { devices: { device_id: string; active_mode: string }[] }[]
      >('GET', '/spaces/'),
    );
    const summary = spaces.flatMap((s) => s.devices).find((d) => d.device_id === 'MTR-B203');
    expect(summary?.active_mode).toBe('postpaid');
    await first.close();

    const second = await serve(db, true);
    expect(await device(second, 'msk_test', 'MTR-B203')).toMatchObject({
      active_mode: 'postpaid',
      is_online: false,
    });
  });
});

describe('an offline bridged meter after a restart (issue 8 item 15)', () => {
  it('[MC-5.4] shows the prepaid mode, balance and relay it last reported', async () => {
    const db = dbFile();
    const first = await serve(db);
    const a = await tenant(first.sim, { external: true, model: 'basic' });
    const clients = new ServiceClients(first.svc.mqttUrl, ADMIN_TOKEN);
    const now = ok(await first.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    const meter = await HandMeter.connect(
      clients,
      a.mqtt,
      statePayload(now, { mode: 'prepaid', balance: 73_000, relay_commanded: false, relay_state: false }),
    );
    expect(await first.svc.world.twins.waitForAvailability(a.deviceId, true, 5_000)).toBe(true);
    await meter.goOffline(now + 1);
    await until(() => first.svc.world.twins.get(a.deviceId)?.online === false, 'offline');
    await clients.endAll();
    await first.close();

    const second = await serve(db);
    expect(await device(second, a.key, a.deviceId)).toMatchObject({
      active_mode: 'prepaid',
      is_online: false,
      balance: 73_000,
      has_relay: true,
    });
  });
});
