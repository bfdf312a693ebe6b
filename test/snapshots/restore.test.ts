// World snapshots through the real service (issue 12 §2): a restore is exact — the same v2 and /sim/v1
// requests give the same answers as when the snapshot was taken, after a recharge, a relay command, a
// day's advance, a new device and a new account; what came after is gone. Names, conflicts, reset.

import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, ok, provision, startTestService, type TestService } from '../helpers/service.ts';
import { failed, invalid, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

const START = Date.parse('2026-01-01T00:00:00+05:30');
const DAY_S = 86_400;

let t: TestService;
let v2: V2;
let a: Tenant;
let other: string;
let late: string;

/** The retained messages under `meterstack/v1/{id}/`, by channel, as a fresh subscriber gets them. */
async function retained(id: string): Promise<Record<string, string>> {
  const c = await mqtt.connectAsync(t.svc.mqttUrl, { username: 'admin', password: t.svc.adminToken });
  const got: Record<string, string> = {};
  c.on('message', (topic, payload, packet) => {
    if (packet.retain) got[topic.split('/').at(-1)!] = payload.toString();
  });
  await c.subscribeAsync(`meterstack/v1/${id}/+`);
  await new Promise((r) => setTimeout(r, 300));
  await c.endAsync();
  return got;
}

beforeAll(async () => {
  // speed 0: only advances move the clock, so the answers before and after can be compared exactly.
  t = await startTestService({ speed: 0, clockStart: START + 2 * DAY_S * 1000 });
  v2 = v2Client(t.svc.httpUrl);
  a = await tenant(t.sim, { mode: 'prepaid', balance: 10_000, load_watts: 800, backfill_days: 2 });
  other = (
    await provision(t.sim, { account_id: a.accountId, space_id: a.spaceId, model: 'full', load_watts: 300 })
  ).device_id;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Everything a user would look at, v2 and /sim/v1, without the envelopes' timestamps. */
async function look(deviceId: string) {
  const body = async (p: Promise<{ status: number; body: unknown }>) => {
    const r = (await p) as { status: number; body: { data?: unknown; error?: unknown } };
    return { status: r.status, data: r.body.data ?? r.body.error };
  };
  const qs = 'property_id=energy&from_date=2026-01-01&to_date=2026-01-04&interval=15m';
  return {
    device: await body(v2('GET', `/devices/${deviceId}/`, undefined, a.key)),
    metrics: await body(v2('GET', `/devices/${deviceId}/metrics`, undefined, a.key)),
    history: await body(v2('GET', `/devices/${deviceId}/metrics/history?${qs}`, undefined, a.key)),
    space: await body(v2('GET', `/spaces/${a.spaceId}/`, undefined, a.key)),
    spaces: await body(v2('GET', '/spaces/', undefined, a.key)),
    meter: await body(t.sim('GET', `/devices/${deviceId}`)),
    ledger: await body(t.sim('GET', '/ledger')),
    // [MC-11.2] Without wall_offset_ms: a restore puts the world at its snapshot's time from the wall
    // time of the restore, so the shift external meters are mapped by is new by design.
    clock: await body(t.sim('GET', '/clock')).then(({ status, data }) => {
      const { wall_offset_ms: _shift, ...rest } = data as Record<string, unknown>;
      return { status, data: rest };
    }),
  };
}

describe('POST /sim/v1/snapshots/{name}/restore', () => {
  it('gives the same answers as when the snapshot was taken; what came after is gone [spec-decisions 110, 111]', async () => {
    const before = { a: await look(a.deviceId), other: await look(other) };
    const saved = ok(await t.sim('POST', '/snapshots', { name: 'base' }), 201);
    expect(saved).toMatchObject({ name: 'base', devices: 2, clock_ms: START + 2 * DAY_S * 1000 });
    expect(saved.readings as number).toBeGreaterThan(2 * 96);

    // Things happen: money, a command, a day, a device, an account.
    ok(await t.sim('POST', `/devices/${a.deviceId}/recharge`, { amount: 5_000, transaction_id: 'after-1' }));
    expect((await v2('PUT', `/devices/${other}/relay`, { state: false }, a.key)).status).toBe(200);
    ok(await t.sim('POST', '/clock/advance', { seconds: DAY_S }));
    late = (await provision(t.sim, { account_id: a.accountId })).device_id;
    const c = await newAccount(t.sim, 'later');
    const changed = { a: await look(a.deviceId), other: await look(other) };
    expect(changed.a).not.toEqual(before.a);
    expect(changed.other.device).not.toEqual(before.other.device);

    const restored = ok(await t.sim('POST', '/snapshots/base/restore'));
    expect(restored).toMatchObject({ name: 'base', devices: 2 });
    expect({ a: await look(a.deviceId), other: await look(other) }).toEqual(before);

    // The device and the account made after the snapshot are gone, the key with them.
    failed(await v2('GET', `/devices/${late}/`, undefined, a.key), 400, 'device_not_found');
    expect((await t.sim('GET', `/devices/${late}`)).status).toBe(404);
    failed(await v2('GET', '/spaces/', undefined, c.api_key), 401, 'authentication_error');
    // The transaction id used after the snapshot is free again: the ledger is as it was.
    const again = ok(
      await t.sim<{ applied: boolean }>('POST', `/devices/${a.deviceId}/recharge`, {
        amount: 5_000,
        transaction_id: 'after-1',
      }),
    );
    expect(again.applied).toBe(true);
    expect(ok(await t.sim<{ disagreements: unknown[] }>('GET', '/ledger')).disagreements).toEqual([]);
  }, 120_000);

  it('on the broker: a device gone with the restore left no retained message; the others say the restored world', async () => {
    expect(await retained(late)).toEqual({});
    const kept = await retained(other);
    expect(Object.keys(kept).sort()).toEqual(['availability', 'info', 'state']);
    expect(JSON.parse(kept.availability!)).toMatchObject({ online: true });
    expect(JSON.parse(kept.state!)).toMatchObject({ relay_commanded: true, relay_state: true });
  });

  it('bad names, unknown and taken names: the envelope, nothing changed', async () => {
    const before = await look(a.deviceId);
    invalid((await t.sim('POST', '/snapshots', { name: 'no spaces' })) as never);
    invalid((await t.sim('POST', '/snapshots', { name: 'x'.repeat(65) })) as never);
    failed((await t.sim('POST', '/snapshots', { name: 'base' })) as never, 409, 'conflict');
    failed((await t.sim('POST', '/snapshots/nope/restore')) as never, 404, 'not_found');
    failed((await t.sim('DELETE', '/snapshots/nope')) as never, 404, 'not_found');
    expect(await look(a.deviceId)).toEqual(before);
    const names = ok(await t.sim<{ name: string }[]>('GET', '/snapshots')).map((s) => s.name);
    expect(names).toContain('base');
  });

  it('a restore while an advance runs is a 409 conflict, and the advance completes', async () => {
    const advancing = t.sim('POST', '/clock/advance', { seconds: 20 * DAY_S });
    await new Promise((r) => setTimeout(r, 30));
    const refused = await t.sim('POST', '/snapshots/base/restore');
    failed(refused as never, 409, 'conflict');
    expect(JSON.stringify(refused.body)).toMatch(/clock advance/);
    ok(await advancing);
    ok(await t.sim('POST', '/snapshots/base/restore'));
  }, 120_000);
});
