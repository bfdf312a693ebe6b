// issue 8 item 18 [MC-3.9]: the WiFi fields a meter stores are limited in UTF-8 bytes as well as
// characters (an SSID is at most 32 octets on air; firmware keeps the password in 64 bytes). Over
// real HTTP to a real virtual meter: a refused value never reaches the meter.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { data, invalid, meterView, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

let t: TestService;
let v2: V2;
let a: Tenant;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  v2 = v2Client(t.svc.httpUrl);
  a = await tenant(t.sim, { model: 'basic' });
});
afterAll(() => t.close());

const wifi = () => `/devices/${a.deviceId}/wifi`;

describe('POST /devices/{id}/wifi counts UTF-8 bytes [MC-3.9] (issue 8 item 18)', () => {
  it('refuses 32 × "é" (32 characters, 64 bytes) with the spec message and the byte count; the meter keeps its network', async () => {
    const before = (await meterView(t.sim, a.deviceId)).wifi;
    const items = invalid(await v2('POST', wifi(), { ssid: 'é'.repeat(32), password: 'secret123' }, a.key));
    expect(items).toEqual([
      {
        loc: ['ssid'],
        msg: 'String should have at most 32 characters (32 bytes in UTF-8; this one is 64 bytes)',
      },
    ]);
    expect(items[0]!.msg.includes('at most 32 characters')).toBe(true);
    expect((await meterView(t.sim, a.deviceId)).wifi).toEqual(before);
  });

  it('accepts 16 × "é" (32 bytes) and 32 ASCII characters exactly', async () => {
    for (const ssid of ['é'.repeat(16), 's'.repeat(32), '📶'.repeat(8)]) {
      const res = await v2('POST', wifi(), { ssid, password: 'secret123' }, a.key);
      expect(data(res, 'WiFi settings updated')).toBe(true);
      expect((await meterView(t.sim, a.deviceId)).wifi.ssid).toBe(ssid);
    }
  });

  it('refuses an SSID of 17 × "é" (34 bytes) and 9 emoji (36 bytes)', async () => {
    for (const [ssid, bytes] of [
      ['é'.repeat(17), 34],
      ['📶'.repeat(9), 36],
    ] as const) {
      expect(invalid(await v2('POST', wifi(), { ssid, password: '' }, a.key))).toEqual([
        {
          loc: ['ssid'],
          msg: `String should have at most 32 characters (32 bytes in UTF-8; this one is ${bytes} bytes)`,
        },
      ]);
    }
  });

  it('limits the password to 64 bytes the same way: 32 × "ü" ok, 33 × "ü" (66 bytes) refused', async () => {
    expect(data(await v2('POST', wifi(), { ssid: 'home', password: 'ü'.repeat(32) }, a.key))).toBe(true);
    expect((await meterView(t.sim, a.deviceId)).wifi.password).toBe('ü'.repeat(32));
    expect(invalid(await v2('POST', wifi(), { ssid: 'home', password: 'ü'.repeat(33) }, a.key))).toEqual([
      {
        loc: ['password'],
        msg: 'String should have at most 64 characters (64 bytes in UTF-8; this one is 66 bytes)',
      },
    ]);
    expect(invalid(await v2('POST', wifi(), { ssid: 'home', password: 'p'.repeat(65) }, a.key))).toEqual([
      { loc: ['password'], msg: 'String should have at most 64 characters' },
    ]);
  });
});
