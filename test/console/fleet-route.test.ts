// GET /sim/v1/fleet: the rows of the console's fleet view, from the device records and the twins.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetView } from '../../src/sim-api/fleet-rows.ts';
import { ok, provision, startTestService, type TestService } from '../helpers/service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ demo: true, db: ':memory:' });
});
afterAll(async () => {
  await service?.close();
});

describe('GET /sim/v1/fleet', () => {
  it('lists every device with its account, space and what its twin saw', async () => {
    await provision(service.sim, { account_id: 1, device_id: 'EXT-1', external: true });
    const fleet = ok(await service.sim<FleetView>('GET', '/fleet'));
    expect(fleet.accounts).toEqual([
      {
        account_id: 1,
        name: 'demo',
        spaces: [
          { space_id: 1, name: 'Tower A' },
          { space_id: 2, name: 'Tower B' },
        ],
      },
    ]);
    const row = (id: string) => fleet.devices.find((d) => d.device_id === id)!;
    expect(fleet.devices).toHaveLength(9);
    expect(row('MTR-B202')).toMatchObject({
      space_id: 2,
      kind: 'virtual',
      online: true,
      plugged: true,
      active_tariff: 2,
    });
    expect(row('MTR-B203')).toMatchObject({ online: false, plugged: false, mode: 'postpaid' });
    expect(row('MTR-A104')).toMatchObject({ mode: 'relay_off', relay_state: false, relay_commanded: true });
    expect(row('MTR-X001').space_id).toBeNull();
    const b201 = row('MTR-B201');
    expect(b201.balance).toBeGreaterThan(0);
    expect(b201.active_power).toBeCloseTo(1500, -1);
    expect(b201.last_seen).toBeGreaterThanOrEqual(b201.sample_ts!);
    // An external device that never connected: its record only, nothing its twin could have seen.
    expect(row('EXT-1')).toMatchObject({
      kind: 'external',
      online: false,
      plugged: null,
      mode: 'measurement',
      relay_state: null,
      active_power: null,
      last_seen: null,
      // Issue 20 item 5: never heard from, so the console says "waiting for its first connection".
      heard: false,
    });
    expect(fleet.devices.filter((d) => d.kind === 'virtual').every((d) => d.heard)).toBe(true);
    // The broker meters connect to, for the console's connect lines on an external meter's page.
    expect(fleet.mqtt_url).toBe(service.svc.mqttUrl);
  });

  it('needs the admin token', async () => {
    const res = await service.sim('GET', '/fleet', undefined, { token: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.body.error?.code).toBe('admin_authentication_error');
  });
});
