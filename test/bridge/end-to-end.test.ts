// The whole path with real serial I/O: `meterstack meter` (virtual firmware) on one end of a socat pty
// pair, `meterstack bridge` on the other, a real service behind the broker. The bridged meter must look
// to the v2 API exactly like an in-process virtual meter with the same settings [SP-7], and must come
// back online by itself when the ptys vanish and reappear (a USB unplug) [SP-5.4].

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { type Device, data, type History, type Metrics, type V2, v2Client } from '../helpers/v2.ts';
import { CliProcess, PtyPair, skipWithoutSocat, until } from './helpers.ts';

const METER = { model: 'full', balance: 5000, load_watts: 1000, telemetry_period_s: 1 } as const;

describe.skipIf(skipWithoutSocat)('serial meter -> bridge -> service, over a socat pty pair', () => {
  let t: TestService;
  let v2: V2;
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let meter: CliProcess;
  let bridge: CliProcess;
  let serialId: string;
  let virtualId: string;

  const device = async (id: string) => data(await v2<Device>('GET', `/devices/${id}/`));
  const metrics = async (id: string) => data(await v2<Metrics>('GET', `/devices/${id}/metrics`));

  beforeAll(async () => {
    t = await startTestService();
    tmp = tempDir('meterstack-bridge-');
    const { account_id, api_key } = await newAccount(t.sim);
    v2 = v2Client(t.svc.httpUrl, api_key);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Lab' }));
    const base = { account_id, space_id: space.space_id };
    virtualId = (await provision(t.sim, { ...base, ...METER })).device_id;
    const ext = await provision(t.sim, { ...base, external: true, model: 'full', device_id: 'MTR-SERIAL-1' });
    serialId = ext.device_id;
    pty = await new PtyPair(tmp.dir).start();
    meter = new CliProcess([
      'meter',
      ...['--serial', pty.a, '--device', serialId, '--model', 'full', '--balance', '5000'],
      ...['--load-watts', '1000', '--telemetry-period-s', '1', '--keepalive-s', '1'],
      '--verbose', // issue 20 §4: every serial line at debug
    ]);
    bridge = new CliProcess([
      'bridge',
      ...['--serial', pty.b, '--broker', ext.mqtt.url, '--username', ext.mqtt.username],
      ...['--password', ext.mqtt.password],
    ]);
    await until(async () => (await device(serialId)).is_online, 15_000, 'the serial meter online');
  });

  it('[MC-12.2] the bridge says it reached meterstack, with its version and HTTP URL', async () => {
    await until(() => bridge.output.includes('connected to meterstack'), 5_000, 'the service announcement');
    expect(bridge.output).toMatch(
      new RegExp(`connected to meterstack \\S+ at mqtt://127\\.0\\.0\\.1:\\d+ \\(HTTP ${t.svc.httpUrl}\\)`),
    );
    expect(bridge.output).not.toMatch(/is not meterstack/);
  });

  it('--verbose shows every serial line at debug; without it (the bridge) no debug line is written', () => {
    expect(meter.output).toMatch(/debug serial > HELLO .*device_id=MTR-SERIAL-1/);
    expect(meter.output).toMatch(/debug serial < IDENT /);
    expect(bridge.output).not.toMatch(/ debug /);
  });

  afterAll(async () => {
    await bridge?.stop();
    await meter?.stop();
    await pty?.kill();
    await t?.close();
    tmp?.remove();
  });

  it('[SP-7.1] GET device: same shape, readings and flags as an in-process virtual meter', async () => {
    await until(async () => (await device(serialId)).readings.length > 0, 5_000, 'readings');
    const [s, v] = [await device(serialId), await device(virtualId)];
    expect(Object.keys(s).sort()).toEqual(Object.keys(v).sort());
    const shape = (d: Device) => ({
      is_online: d.is_online,
      has_relay: d.has_relay,
      active_mode: d.active_mode,
      readings: d.readings.map(({ property_id, context_type, unit }) => ({
        property_id,
        context_type,
        unit,
      })),
    });
    expect(shape(s)).toEqual(shape(v));
    expect(s.is_online).toBe(true);
  });

  it('[SP-7.1] GET metrics: same fields and settings, live values of the same size', async () => {
    // Energy is reported to the Wh [MC-7.7]: 1 kW shows 0.001 kWh after 1.8 s.
    for (const id of [serialId, virtualId])
      await until(async () => (await metrics(id)).energy > 0, 10_000, `${id}: a first Wh`);
    const [s, v] = [await metrics(serialId), await metrics(virtualId)];
    const { device_id: _a, energy: e1, active_power: p1, voltage: u1, balance: b1, ...sRest } = s;
    const { device_id: _b, energy: e2, active_power: p2, voltage: u2, balance: b2, ...vRest } = v;
    expect(sRest).toEqual(vRest);
    expect(p1).toBe(p2);
    expect(Math.abs(u1 - u2)).toBeLessThan(20);
    expect(Math.abs(b1 - b2)).toBeLessThan(100);
    expect(e1).toBeGreaterThan(0);
    expect(e2).toBeGreaterThan(0);
  });

  it('[SP-4.5][SP-4.6] PUT relay and PUT mode round-trip through the serial line like a virtual meter', async () => {
    for (const id of [serialId, virtualId]) {
      data(await v2('PUT', `/devices/${id}/relay`, { state: false }), 'relay state updated');
      data(await v2('PUT', `/devices/${id}/mode`, { mode: 'postpaid' }));
    }
    const pick = (m: Metrics) => ({ relay_state: m.relay_state, mode: m.mode });
    await until(async () => (await metrics(serialId)).relay_state === false, 3_000, 'relay open');
    expect(pick(await metrics(serialId))).toEqual(pick(await metrics(virtualId)));
    expect(pick(await metrics(serialId))).toEqual({ relay_state: false, mode: 'POSTPAID' });
    // Issue 20 §4: a relay command crossing the bridge leaves a line, and so does the meter's answer.
    await until(() => /meter answered ACK/.test(bridge.output), 3_000, 'the ACK logged');
    expect(bridge.output).toMatch(/info {2}cmd (\S+): set_relay on=false -> meter \(CMD seq=\d+\)/);
    const id = /cmd (\S+): set_relay on=false/.exec(bridge.output)![1];
    expect(bridge.output).toContain(`cmd ${id}: meter answered ACK`);
    for (const id of [serialId, virtualId]) data(await v2('PUT', `/devices/${id}/relay`, { state: true }));
  });

  it('[SP-7.1] history holds the telemetry that came over the wire', async () => {
    const today = new Date(Date.now() + 5.5 * 3600_000).toISOString().slice(0, 10);
    const qs = `property_id=energy&from_date=${today}&to_date=${today}&interval=15m`;
    const history = async (id: string) =>
      data(await v2<History>('GET', `/devices/${id}/metrics/history?${qs}`));
    await until(async () => (await history(serialId)).readings.length > 0, 5_000, 'history');
    const [s, v] = [await history(serialId), await history(virtualId)];
    const shape = (h: History) => h.readings.map((r) => ({ property_id: r.property_id, unit: r.unit }));
    expect(shape(s)).toEqual(shape(v));
  });

  it('[LEDGER-4] POST /sim/v1/devices/{id}/recharge credits the serial meter once, as a virtual one', async () => {
    const body = { amount: 50_000, transaction_id: 'e2e-pay-1' };
    const first = await t.sim<{ balance: number; applied: boolean; status: string }>(
      'POST',
      `/devices/${serialId}/recharge`,
      body,
    );
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ applied: true, status: 'applied' });
    // 5,000 paise before, 50,000 credited, a few paise billed meanwhile at 1 kW.
    expect(first.body.data.balance).toBeGreaterThan(5000 - 100 + 50_000 - 100);
    const again = ok(await t.sim<{ applied: boolean }>('POST', `/devices/${serialId}/recharge`, body));
    expect(again.applied).toBe(false);
    await until(
      async () => (await metrics(serialId)).balance > 50_000,
      3_000,
      'the balance shown by the v2 API',
    );
    const check = ok(
      await t.sim<{ ledger: { agrees: boolean; applied_paise: number } }>('GET', `/devices/${serialId}`),
    );
    expect(check.ledger).toMatchObject({ agrees: true, applied_paise: 50_000 });
  });

  it('[SP-5.4] killing and recreating the pty pair: offline, then back online without restarting anything', async () => {
    await pty.kill();
    await until(async () => !(await device(serialId)).is_online, 8_000, 'offline after the unplug');
    // [MC-6.8] The service's event says why, in the bridge's words, not "it said goodbye".
    const offline = ok(
      await t.sim<{ events: { data: { reason: string; said?: string } }[] }>(
        'GET',
        `/events?type=meter.offline&device_id=${serialId}`,
      ),
    ).events;
    expect(offline.at(-1)?.data).toMatchObject({
      reason: 'bye',
      said: expect.stringMatching(/^serial port closed/),
    });
    const replugged = Date.now();
    await pty.start();
    await until(async () => (await device(serialId)).is_online, 5_000, 'online after the replug');
    const backInMs = Date.now() - replugged;
    expect(backInMs).toBeLessThan(3_000);
    expect(meter.proc.exitCode).toBeNull();
    expect(bridge.proc.exitCode).toBeNull();
    // And it still serves commands.
    data(await v2('PUT', `/devices/${serialId}/tariffs/eb`, { tariff: 900 }));
    await until(async () => (await metrics(serialId)).eb_tariff === 900, 3_000, 'tariff applied');
    expect(bridge.output).toMatch(/link down/);
    expect(bridge.output).toMatch(/reopening|not present/);
  });
});
