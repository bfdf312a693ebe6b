// issue 20 item 11 [MC-4.4] [MC-7.7]: an external meter that declares no resolution (the C example in
// examples/ divides in floats) answers `energy: 0.0013333333333333333`; the v2 API shows 0.001. The
// service takes each value at the meter's declared step, or where it declared none at the default
// step meterstack's own meters declare (spec-decisions 181): in a read's reply (GET …/metrics, live
// from the meter) and in its samples (the device's readings, its history).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, provision, startTestService, type TestService } from '../helpers/service.ts';
import { data, v2Client } from '../helpers/v2.ts';
import { ExternalMeter } from './external-meter.ts';

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('[MC-4.4] the readings of a meter that declared no resolution (issue 20 item 11)', () => {
  let t: TestService;
  const meters: ExternalMeter[] = [];

  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    for (const m of meters) await m.stop();
    await t?.close();
  });

  /** An external meter of its own account and space, connected; and that account's v2 client. */
  async function meter(deviceId: string) {
    const account = await newAccount(t.sim, `owner of ${deviceId}`);
    const space = await t.sim<{ space_id: number }>('POST', '/spaces', {
      account_id: account.account_id,
      name: 'Lab',
    });
    const ext = await provision(t.sim, {
      account_id: account.account_id,
      space_id: space.body.data.space_id,
      external: true,
      device_id: deviceId,
    });
    const m = await ExternalMeter.start({
      url: t.svc.mqttUrl,
      deviceId,
      password: ext.mqtt.password,
      balance: 1000,
    });
    meters.push(m);
    return { m, v2: v2Client(t.svc.httpUrl, account.api_key) };
  }

  it('live metrics (a read answered by the meter): energy 0.001 kWh, power 0.1 W, voltage 0.01 V', async () => {
    const { m, v2 } = await meter('MTR-FLOAT-1');
    m.sample = { ...m.sample, energy: 0.0013333333333333333, active_power: 123.45678, voltage: 229.99999999 };
    const got = data(await v2<Record<string, unknown>>('GET', '/devices/MTR-FLOAT-1/metrics'));
    expect(got).toMatchObject({ energy: 0.001, active_power: 123.5, voltage: 230 });
  });

  it('a sample: the device’s readings', async () => {
    const { m, v2 } = await meter('MTR-FLOAT-2');
    // Within a register step of the first sample (12.5): all a meter may rise the moment after (MC-7.8).
    await m.publishSample({
      ts: Math.max(Date.now(), m.sample.ts + 1),
      energy: 12.500999999999999,
      active_power: 123.45678,
      voltage: 229.99999999,
      balance: 1000,
    });
    const reading = async () => {
      const d = data(
        await v2<{ readings: { property_id: string; value: number }[] }>('GET', '/devices/MTR-FLOAT-2/'),
      );
      return Object.fromEntries(d.readings.map((r) => [r.property_id, r.value]));
    };
    const got = await until(reading, (r) => r['energy'] !== 12.5, 'the sample');
    expect(got).toMatchObject({ energy: 12.501, active_power: 123.5, voltage: 230 });
  });

  it('a resolution the meter declared wins (energy 0.0001 kWh)', async () => {
    const { m, v2 } = await meter('MTR-FLOAT-3');
    await m.publish('info', {
      v: 1,
      device_id: 'MTR-FLOAT-3',
      model: 'basic',
      firmware: 'fine-register/1.0',
      has_relay: true,
      telemetry_period_s: 60,
      properties: [
        { property_id: 'energy', context_type: 'cumulative', unit: 'kWh', resolution: 0.0001 },
        { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
        { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
      ],
    });
    m.sample = { ...m.sample, energy: 12.500533333333333 };
    const got = await until(
      async () => data(await v2<Record<string, unknown>>('GET', '/devices/MTR-FLOAT-3/metrics')),
      (v) => v['energy'] !== 12.501, // before the new info arrived: the default step
      'the declared resolution',
    );
    expect(got).toMatchObject({ energy: 12.5005 });
  });
});
