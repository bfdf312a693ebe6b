// [MC-1.5] A device id is a meter's broker login, and the broker matches the service's own logins
// first: a device named `admin`, `meterstack-service` or `meterstack-ha` could never log in. Such ids
// are refused when a device is made (422, naming the field), over /sim/v1 and in a scenario's world.

import { describe, expect, it } from 'vitest';
import { SERVICE_LOGINS } from '../../firmware-protocol/mqtt/topics.ts';
import { HA_USERNAME } from '../../src/extensions/home-assistant/topics.ts';
import { parseWorld } from '../../src/qa/scenario/load.ts';
import { ADMIN_MQTT_USERNAME, SERVICE_USERNAME } from '../../src/service.ts';
import { newAccount, startTestService } from '../helpers/service.ts';

describe('[MC-1.5] the service’s own broker logins are never device ids', () => {
  it('the list names every login the service’s brokers match before a meter', () => {
    expect([...SERVICE_LOGINS].sort()).toEqual([ADMIN_MQTT_USERNAME, HA_USERNAME, SERVICE_USERNAME].sort());
  });

  it('POST /sim/v1/devices refuses each of them with a validation error on device_id', async () => {
    const t = await startTestService({ speed: 0 });
    try {
      const { account_id } = await newAccount(t.sim);
      for (const id of SERVICE_LOGINS) {
        const res = await t.sim('POST', '/devices', { account_id, device_id: id });
        expect(res.status, id).toBe(422);
        const detail = (
          res.body as unknown as { error: { code: string; detail: { loc: string[]; msg: string }[] } }
        ).error;
        expect(detail.code).toBe('validation_error');
        expect(detail.detail[0]!.loc).toEqual(['device_id']);
        expect(detail.detail[0]!.msg).toMatch(/service's own broker logins/);
      }
      // A near name is a device id like any other.
      const fine = await t.sim('POST', '/devices', { account_id, device_id: 'meterstack-ha2' });
      expect(fine.status).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('a scenario world naming a meter `admin` is refused at load', () => {
    const world = { accounts: [{ name: 'a', spaces: [{ name: 's', meters: [{ id: 'admin' }] }] }] };
    expect(() => parseWorld(world)).toThrow(/service's own broker logins/);
  });
});
