// issue 8 item 5: what a meter says is believed only within reason. A sample or state stamped in the
// year 2999 [MC-3.10], a state older than the one held [MC-5.1], energy going backwards across messages
// [MC-7.5] and an info naming another device [MC-1.4] are refused: not stored, the twin unchanged,
// counted by reason and logged. Honest messages after them are taken, also after a restart.

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../helpers/v2.ts';
import { HandMeter, infoPayload, sample, statePayload, until } from './hand-meter.ts';

const Y2999 = Date.UTC(2999, 0, 1);
const tmp = tempDir();
const db = join(tmp.dir, 'meterstack.db');
let t: TestService;
let clients: ServiceClients;
let a: Tenant;
let meter: HandMeter;
let t0: number;

interface Device {
  active_mode: string;
  balance: number;
  is_online: boolean;
  readings: { property_id: string; value: number }[];
}
interface History {
  readings: { value: number; timestamp: string }[];
}

const clock = async () => ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
const device = async () =>
  data(await v2Client(t.svc.httpUrl, a.key)<Device>('GET', `/devices/${a.deviceId}/`));
const energy = (d: Device) => d.readings.find((r) => r.property_id === 'energy')?.value;
const refused = () => t.svc.world.twins.refused;
const pk = async () => (await t.svc.store.getDevice(a.deviceId))!.pk;
const stored = async () => t.svc.store.countSamples(await pk());
/** Waits until the twin has handled everything the meter published before (same connection, in order). */
let marks = 0;
async function barrier(): Promise<void> {
  const mark = t0 - 200_000 + ++marks;
  await meter.publish('availability', { v: 1, online: true, ts: mark }, true);
  await until(() => t.svc.world.twins.get(a.deviceId)?.onlineSince === mark, 'the barrier');
}
async function storedBecomes(n: number): Promise<void> {
  for (let i = 0; (await stored()) !== n; i++) {
    if (i > 500) throw new Error(`${await stored()} samples stored, expected ${n}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  t = await startTestService({ db, speed: 0 });
  clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
  a = await tenant(t.sim, { external: true, model: 'basic' });
  t0 = await clock();
  meter = await HandMeter.connect(clients, a.mqtt, statePayload(t0 - 300_000, { balance: 5000 }));
  expect(await t.svc.world.twins.waitForAvailability(a.deviceId, true, 5_000)).toBe(true);
  await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 180_000, 10, 5000)] });
  await storedBecomes(1);
});
afterEach(() => undefined);
afterAll(async () => {
  await clients?.endAll();
  await t?.close();
  tmp.remove();
});

describe('timestamps outside the window around the service clock [MC-3.10] (issue 8 item 5)', () => {
  it('[MC-3.10] a sample stamped 2999 is refused; honest samples after it are stored and shown', async () => {
    const before = refused().tsInFuture;
    await meter.publish('telemetry', { v: 1, samples: [sample(Y2999, 1_000_000, 999_999)] });
    await until(() => refused().tsInFuture > before, 'the 2999 sample refused');
    await meter.publish('telemetry', {
      v: 1,
      samples: [sample(t0 - 120_000, 10.5, 4990), sample(t0 - 60_000, 11, 4980)],
    });
    await storedBecomes(3);
    expect((await t.svc.store.latestSample(await pk()))?.ts).toBe(t0 - 60_000);
    const d = await device();
    expect(energy(d)).toBe(11);
    expect(d.balance).toBe(4980);
    expect(t.logs.join('\n')).toMatch(
      // Its time as an IST date, not epoch milliseconds (issue 23 §5).
      /refused tsInFuture: 1 sample\(s\) of \S+, first 2999-01-01T05:30:00\.000\+05:30 .*\(newest held: \d{4}-[\d-]+T[\d:.]+\+05:30 energy=\S+, clock: \d{4}-[\d-]+T[\d:.]+\+05:30\) \[MC-3\.10\]/,
    );
    // History reads the honest samples; the year 2999 holds nothing.
    const history = async (day: string) =>
      data(
        await v2Client(t.svc.httpUrl, a.key)<History>(
          'GET',
          `/devices/${a.deviceId}/metrics/history?property_id=energy&from_date=${day}&to_date=${day}&interval=1d`,
        ),
      ).readings.map((r) => r.value);
    expect(await history(new Date(t0 - 60_000 + 19_800_000).toISOString().slice(0, 10))).toEqual([11]);
    expect(await history('2999-01-01')).toEqual([]);
  });

  it('[MC-3.10] a state stamped 2999 is refused; a later honest state is taken', async () => {
    const before = refused().tsInFuture;
    await meter.publish('state', statePayload(Y2999, { mode: 'relay_off', balance: 999_999 }), true);
    await until(() => refused().tsInFuture > before, 'the 2999 state refused');
    await barrier();
    expect((await device()).active_mode).toBe('prepaid');
    await meter.publish('state', statePayload(t0 - 90_000, { mode: 'postpaid', balance: 4985 }), true);
    await until(() => t.svc.world.twins.get(a.deviceId)?.state?.mode === 'postpaid', 'honest state');
    expect((await device()).active_mode).toBe('postpaid');
  });
});

describe('order across messages (issue 8 item 5)', () => {
  it('[MC-5.1] a state older than the one held changes nothing', async () => {
    const before = refused().staleState;
    await meter.publish('state', statePayload(t0 - 100_000, { mode: 'measurement' }), true);
    await until(() => refused().staleState > before, 'the stale state refused');
    await barrier();
    expect((await device()).active_mode).toBe('postpaid');
    // A meter on wall time: a warning, its times as IST dates (issue 23 §5).
    const ist = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30/.source;
    expect(t.logs.join('\n')).toMatch(
      new RegExp(
        `warn twins: refused staleState: state of \\S+ stamped ${ist} \\(held: ${ist}, clock: ${ist}\\) \\[MC-5\\.1\\]`,
      ),
    );
  });

  it('[MC-7.5] a later sample with less energy is refused and not stored', async () => {
    const before = refused().energyBackwards;
    await meter.publish('telemetry', { v: 1, samples: [sample(t0 - 30_000, 5, 4970)] });
    await until(() => refused().energyBackwards > before, 'energy going backwards refused');
    await barrier();
    await t.svc.world.twins.settled();
    expect(await stored()).toBe(3);
    expect(energy(await device())).toBe(11);
    expect(t.logs.join('\n')).toContain('[MC-7.5]');
  });

  it('[MC-1.4] an info naming another device is refused; the twin keeps the right one', async () => {
    const before = refused().infoDeviceMismatch;
    await meter.publish('info', { ...infoPayload('SOMEONE-ELSE'), firmware: 'forged' }, true);
    await until(() => refused().infoDeviceMismatch > before, 'the foreign info refused');
    await barrier();
    expect(t.svc.world.twins.get(a.deviceId)?.info).toMatchObject({
      device_id: a.deviceId,
      firmware: 'hand-1.0',
    });
    expect(t.logs.join('\n')).toContain(`info on ${a.deviceId}'s topic naming device SOMEONE-ELSE [MC-1.4]`);
  });
});

describe('after a restart on the same database (issue 8 items 5 and 15)', () => {
  it('[MC-3.10] [MC-5.4] shows the honest readings and the last state, and takes (only) honest samples', async () => {
    await meter.goOffline(t0 - 50_000);
    await until(() => t.svc.world.twins.get(a.deviceId)?.online === false, 'offline');
    // As a database written before [MC-3.10] was checked may hold: it must not pin the readings either.
    const legacy = { devicePk: await pk(), ts: Y2999, energy: 1e6, active_power: 1, voltage: 230 };
    await t.svc.store.insertSamples([
      {
        ...legacy,
        current: null,
        power_factor: null,
        apparent_power: null,
        reactive_power: null,
        balance: 1,
      },
    ]);
    await t.svc.close();
    await clients.endAll();
    t = await startTestService({ db, speed: 0 });
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);

    const offline = await device();
    expect(offline).toMatchObject({ is_online: false, active_mode: 'postpaid', balance: 4980 });
    expect(energy(offline)).toBe(11);

    const t1 = await clock();
    meter = await HandMeter.connect(clients, a.mqtt, statePayload(t1, { mode: 'postpaid', balance: 4980 }));
    expect(await t.svc.world.twins.waitForAvailability(a.deviceId, true, 5_000)).toBe(true);
    await meter.publish('telemetry', { v: 1, samples: [sample(t1, 10.9, 4980)] }); // below 11: refused [MC-7.5]
    await until(() => refused().energyBackwards > 0, 'energy below the stored newest refused');
    await meter.publish('telemetry', { v: 1, samples: [sample(t1 + 1, 11.2, 4975)] });
    await storedBecomes(5);
    const d = await device();
    expect(energy(d)).toBe(11.2);
    expect(d.balance).toBe(4975);

    const day = new Date(t1 + 19_800_000).toISOString().slice(0, 10);
    const h = data(
      await v2Client(t.svc.httpUrl, a.key)<History>(
        'GET',
        `/devices/${a.deviceId}/metrics/history?property_id=energy&from_date=${day}&to_date=${day}&interval=1d`,
      ),
    );
    expect(h.readings.map((r) => r.value)).toEqual([11.2]);
  });
});
