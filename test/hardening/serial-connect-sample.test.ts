// Issue 8 item 16 for the serial bridge [SP-5.13] [MC-6.7]: each time `meterstack bridge` announces its
// meter (the serial link came up, or the MQTT connection came back), it asks the meter for a reading with
// a `read` CMD of its own and publishes it as one sample, so an external serial meter has readings in the
// v2 API as soon as it is online, not a telemetry period later. The real service, `meterstack meter` and
// `meterstack bridge` as child processes over a socat pty pair, real MQTT clients, real HTTP.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { Frame } from '../../firmware-protocol/serial/frames.ts';
import { Bridge } from '../../src/bridge/bridge.ts';
import type { Broker } from '../../src/broker/index.ts';
import { CliProcess, PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import {
  newAccount,
  ok,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { type Device, data, type V2, v2Client } from '../helpers/v2.ts';
import { DEVICE, hello, PASSWORD, ServiceSide, startTestBroker, state, tel, Wire } from './serial-harness.ts';

/** A day: the meter's first periodic sample falls due at the next UTC midnight, far beyond the test. */
const PERIOD_S = 86_400;

interface Sample {
  ts: number;
  energy: number;
  active_power: number;
}

describe.skipIf(skipWithoutSocat)('[SP-5.13] [MC-6.7] issue 8 item 16: the serial bridge', () => {
  let t: TestService;
  let v2: V2;
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let meter: CliProcess;
  let bridge: CliProcess;
  let ext: Provisioned;
  let clients: ServiceClients;
  let inbox: Inbox;

  const device = async () => data(await v2<Device>('GET', `/devices/${ext.device_id}/`));
  const samples = (from = 0): Sample[] =>
    inbox.messages
      .slice(from)
      .filter((m) => m.topic === topicFor(ext.device_id, 'telemetry'))
      .flatMap((m) => m.json['samples'] as Sample[]);

  beforeAll(async () => {
    t = await startTestService();
    tmp = tempDir('meterstack-serial-connect-');
    const { account_id, api_key } = await newAccount(t.sim, 'serial-connect');
    v2 = v2Client(t.svc.httpUrl, api_key);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Lab' }));
    ext = await provision(t.sim, {
      account_id,
      space_id: space.space_id,
      external: true,
      model: 'full',
      device_id: 'MTR-SERIAL-CS',
    });
    clients = new ServiceClients(t.svc.mqttUrl, t.svc.adminToken);
    const admin = await clients.admin();
    inbox = new Inbox(admin);
    await admin.subscribeAsync(`meterstack/v1/${ext.device_id}/#`, { qos: 1 });
    pty = await new PtyPair(tmp.dir).start();
  });

  afterAll(async () => {
    await bridge?.stop();
    await meter?.stop();
    await pty?.kill();
    await clients?.endAll();
    await t?.close();
    tmp?.remove();
  });

  it('a provisioned external meter has readings as soon as it is online, long before its first period', async () => {
    meter = new CliProcess([
      'meter',
      ...['--serial', pty.a, '--device', ext.device_id, '--model', 'full', '--balance', '5000'],
      ...['--load-watts', '1000', '--telemetry-period-s', String(PERIOD_S), '--keepalive-s', '1'],
    ]);
    expect((await device()).readings).toEqual([]);
    const started = Date.now();
    bridge = new CliProcess([
      'bridge',
      ...['--serial', pty.b, '--broker', ext.mqtt.url, '--username', ext.mqtt.username],
      ...['--password', ext.mqtt.password],
    ]);
    await until(async () => (await device()).is_online, 15_000, 'the serial meter online');
    // Right after it came online: the connect sample is there, through the public API.
    await until(async () => (await device()).readings.length > 0, 5_000, 'readings after coming online');
    const view = await device();
    expect(view.readings.find((r) => r.property_id === 'active_power')?.value).toBe(1000);

    // One sample, a true reading of the connection's instant: not a periodic one (none is due today).
    const first = samples();
    expect(first).toHaveLength(1);
    expect(first[0]!.ts % (PERIOD_S * 1000)).not.toBe(0);
    expect(first[0]!.ts).toBeGreaterThanOrEqual(started);
    // After info, state and online [MC-6.3]; never on `reply` (the service asked nothing) [SP-5.13].
    const topics = inbox.messages.map((m) => m.topic.split('/')[3]);
    expect(topics.indexOf('telemetry')).toBeGreaterThan(topics.lastIndexOf('availability'));
    expect(topics.indexOf('info')).toBeLessThan(topics.indexOf('state'));
    expect(topics).not.toContain('reply');
  });

  it('when the MQTT connection comes back, a new sample is published, later than the last', async () => {
    const before = samples();
    const mark = inbox.messages.length;
    // Take the bridge's session over with the meter's own credentials: the broker drops the bridge's
    // connection; mqtt.js reconnects it a second later (and that drops the intruder in turn).
    const intruder = await clients.device(ext.mqtt);
    await inbox.waitFor(
      (m) => m.topic === topicFor(ext.device_id, 'info') && inbox.messages.indexOf(m) >= mark,
      10_000,
      'info again after the bridge reconnected',
    );
    await until(() => samples(mark).length > 0, 10_000, 'a sample after the reconnection');
    const [again] = samples(mark);
    expect(again!.ts).toBeGreaterThan(before.at(-1)!.ts);
    expect(again!.energy).toBeGreaterThanOrEqual(before.at(-1)!.energy);
    expect(again!.ts % (PERIOD_S * 1000)).not.toBe(0);
    const topics = inbox.messages.slice(mark).map((m) => m.topic.split('/')[3]);
    expect(topics.indexOf('telemetry')).toBeGreaterThan(topics.indexOf('state'));
    expect(topics).not.toContain('reply');
    await intruder.endAsync(true);
    await until(async () => (await device()).is_online, 10_000, 'online again');
    expect(bridge.proc.exitCode).toBeNull();
    expect(meter.proc.exitCode).toBeNull();
  });
});

describe.skipIf(skipWithoutSocat)('[SP-5.13] the connect reading, line by line', () => {
  let broker: Broker;
  let svc: ServiceSide;
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let bridge: Bridge;
  let wire: Wire;
  const logs: string[] = [];
  const ts0 = Date.now();

  beforeAll(async () => {
    broker = await startTestBroker();
    svc = await ServiceSide.connect(broker.url);
    tmp = tempDir('meterstack-connect-read-');
    pty = await new PtyPair(tmp.dir).start();
    wire = new Wire(pty.a);
    bridge = new Bridge({
      serial: pty.b,
      baud: 115_200,
      broker: { url: broker.url, username: DEVICE, password: PASSWORD },
      log: (level, msg) => logs.push(`${level} ${msg}`),
    });
    bridge.start();
    await wire.next('IDENT', 0);
  });
  afterAll(async () => {
    await bridge?.close();
    await wire?.close();
    await pty?.kill();
    await svc?.close();
    await broker?.close();
    tmp?.remove();
  });

  const { type: _s, ...reported } = state(ts0);
  const ack = (cmd: { seq: number; id: string }, ts: number, energy: number): Frame => ({
    type: 'ACK',
    seq: cmd.seq,
    id: cmd.id,
    op: 'read',
    data: { readings: { ts, energy, active_power: 100, voltage: 230, balance: 900 }, state: reported },
  });

  /** The meter goes away on purpose [SP-4.12]: offline until the next HELLO and STATE. */
  async function bye(): Promise<void> {
    const from = svc.messages.length;
    wire.send({ type: 'BYE' });
    await svc.waitOnline(false, from);
  }

  /** The link comes up with held samples; returns the bridge's own read CMD. */
  async function linkUp(held: Frame[]) {
    const from = wire.lines.length;
    const mqttFrom = svc.messages.length;
    wire.send(hello(), state(ts0), ...held);
    await svc.waitOnline(true, mqttFrom);
    const cmd = await wire.next('CMD', from);
    expect(cmd).toMatchObject({ op: 'read', id: expect.stringMatching(/^bridge-read:[0-9a-f-]{36}$/) });
    return cmd;
  }

  it('the ACK is published as a sample after the held ones, never on reply; a NAK costs only the sample', async () => {
    const cmd = await linkUp([tel(ts0 + 1000, 5), tel(ts0 + 2000, 6)]);
    wire.send(ack(cmd, ts0 + 2500, 6.5));
    await until(() => svc.samples().length === 3, 5_000, 'held samples and the connect sample');
    expect(svc.samples().map((s) => [s.ts, s.energy])).toEqual([
      [ts0 + 1000, 5],
      [ts0 + 2000, 6],
      [ts0 + 2500, 6.5],
    ]);
    // The link drops (BYE) and comes back; this time the meter refuses the read.
    await bye();
    const again = await linkUp([]);
    expect(again.id).not.toBe(cmd.id); // a fresh id each time [MC-8.8]
    const from = wire.lines.length;
    wire.send({ type: 'NAK', seq: again.seq, id: again.id, code: 'unsupported', msg: 'no read here' });
    await until(() => logs.some((l) => l.includes('no connect sample')), 5_000, 'the NAK logged');
    expect(logs.find((l) => l.includes('no connect sample'))).toMatch(/NAK unsupported: no read here/);
    expect(svc.of('reply')).toEqual([]);
    expect(wire.frames(from).filter((f) => f.type === 'ERR')).toEqual([]); // matched, not refused
    expect(svc.samples()).toHaveLength(3);
  });

  it('[MC-7.3] [MC-7.5] a reading no newer than the last sample taken is not published', async () => {
    await bye();
    const cmd = await linkUp([tel(ts0 + 3000, 7)]);
    wire.send(ack(cmd, ts0 + 3000, 7)); // a sample fell due at the same instant: that one serves
    await until(() => logs.some((l) => l.includes('not newer than the last')), 5_000, 'the skip logged');
    await bye();
    const older = await linkUp([]);
    wire.send(ack(older, ts0 + 2900, 6.9)); // the meter's clock went back
    await until(
      () => logs.filter((l) => l.includes('not newer than the last')).length === 2,
      5_000,
      'the second skip logged',
    );
    wire.send(tel(ts0 + 4000, 8)); // the periodic series carries on
    await until(() => svc.samples().some((s) => s.ts === ts0 + 4000), 5_000, 'the next sample');
    expect(svc.samples().map((s) => s.ts)).toEqual([1000, 2000, 2500, 3000, 4000].map((d) => ts0 + d));
    expect(svc.of('reply')).toEqual([]);
  });
});
