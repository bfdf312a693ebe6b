// issue 8 item 20: external devices (bridged, real, or a meter in another process) are listed by
// GET /sim/v1/devices and answered by GET /sim/v1/devices/{id}, with `external: true`, online as the
// twin knows it from MQTT, and no meter state (none runs here).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import {
  ADMIN_TOKEN,
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';

let t: TestService;
let clients: ServiceClients;
let accountId: number;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
  accountId = (await newAccount(t.sim)).account_id;
});
afterEach(() => clients.endAll());
afterAll(() => t.close());

type Listed = { device_id: string; external: boolean; online: boolean; balance?: number };

describe('external devices in /sim/v1 (issue 8 item 20)', () => {
  it('are listed and answered with external: true, online from the twin, no meter state', async () => {
    const virtual = await provision(t.sim, { account_id: accountId });
    const ext = await provision(t.sim, { account_id: accountId, external: true, model: 'full' });

    const list = ok(await t.sim<Listed[]>('GET', '/devices'));
    expect(list.find((d) => d.device_id === virtual.device_id)).toMatchObject({
      external: false,
      online: true,
    });
    expect(list.find((d) => d.device_id === ext.device_id)).toEqual({
      device_id: ext.device_id,
      external: true,
      account_id: accountId,
      space_id: null,
      model: 'full',
      online: false,
    });
    const one = await t.sim('GET', `/devices/${ext.device_id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({
      device_id: ext.device_id,
      external: true,
      account_id: accountId,
      space_id: null,
      model: 'full',
      online: false,
      ledger: null, // [LEDGER-6] its check, once the ledger credited it
    });
    expect(one.body.data).not.toHaveProperty('balance');
    expect(ok(await t.sim('GET', `/devices/${virtual.device_id}`))).toMatchObject({ external: false });

    // The meter connects elsewhere and says it is online: both views follow the twin.
    const meter = await clients.device(ext.mqtt);
    await meter.publishAsync(
      topicFor(ext.device_id, 'availability'),
      JSON.stringify({ v: 1, online: true }),
      {
        qos: 1,
        retain: true,
      },
    );
    expect(await t.svc.world.twins.waitForAvailability(ext.device_id, true, 5_000)).toBe(true);
    expect(ok(await t.sim<Listed>('GET', `/devices/${ext.device_id}`)).online).toBe(true);
    const again = ok(await t.sim<Listed[]>('GET', '/devices'));
    expect(again.find((d) => d.device_id === ext.device_id)?.online).toBe(true);
  });

  it('an unknown device is still 404', async () => {
    const res = await t.sim('GET', '/devices/NO-SUCH-METER');
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });
});

// issue 8 follow-up (spec-decisions 53): the meter controls of /sim/v1 act on a virtual meter. For an
// external device, which exists but has no meter here, they say so (409 conflict) instead of claiming
// the device is not found; and they change nothing. A recharge is not among them: money reaches an
// external meter through the ledger and the twins (issue 18, LEDGER-4; test/bridge/recharge.test.ts).
describe('meter controls of /sim/v1 on an external device (spec-decisions 53)', () => {
  const CONTROLS: [string, Record<string, unknown>][] = [
    ['online', { online: true }],
    ['load', { watts: 1200 }],
    ['button', { hold_seconds: 5 }],
  ];

  it('answer 409 conflict in the envelope, saying the device is external; nothing changes', async () => {
    const ext = await provision(t.sim, { account_id: accountId, external: true, model: 'basic' });
    const before = ok(await t.sim('GET', `/devices/${ext.device_id}`));
    for (const [control, body] of CONTROLS) {
      const res = await t.sim('POST', `/devices/${ext.device_id}/${control}`, body);
      expect(res.status, control).toBe(409);
      expect(res.body, control).toEqual({
        success: false,
        timestamp: expect.any(String),
        message: `device ${ext.device_id} is external: no virtual meter runs here to control (the meter itself connects over MQTT)`,
        error: { code: 'conflict', detail: expect.stringContaining('is external') },
      });
    }
    expect(ok(await t.sim('GET', `/devices/${ext.device_id}`))).toEqual(before);
  });

  it('[LEDGER-4] a recharge of an external meter that never connected is pending in the ledger, its transaction id taken', async () => {
    const ext = await provision(t.sim, { account_id: accountId, external: true, model: 'basic' });
    const body = { amount: 500, transaction_id: 'ext-topup-1' };
    const res = await t.sim('POST', `/devices/${ext.device_id}/recharge`, body);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ balance: null, applied: true, status: 'pending' });
    const seen = ok(await t.sim<{ ledger: unknown }>('GET', `/devices/${ext.device_id}`));
    expect(seen.ledger).toMatchObject({ pending: ['ext-topup-1'], applied_paise: 0, agrees: true });
    // [LEDGER-1] The ledger holds it: the same id for another meter is a conflict.
    const virtual = await provision(t.sim, { account_id: accountId });
    expect((await t.sim('POST', `/devices/${virtual.device_id}/recharge`, body)).status).toBe(409);
  });

  it('a device that does not exist is still 404 not_found', async () => {
    for (const [control, body] of CONTROLS) {
      const res = await t.sim('POST', `/devices/NO-SUCH-METER/${control}`, body);
      expect(res.status, control).toBe(404);
      expect(res.body.error?.code, control).toBe('not_found');
      expect(res.body.message, control).toBe('virtual meter NO-SUCH-METER not found');
    }
  });
});
