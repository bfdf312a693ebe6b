// Garbage on the wire [SP-6]: the test plays the meter on one end of a socat pty pair with the real bridge
// on the other, writes malformed, oversize, wrong-checksum and otherwise unusable lines, and checks each is
// answered with the right ERR while the bridge keeps serving telemetry and commands. Also: the serial
// meter answers a bad CMD with NAK [SP-6.3], and --record writes the trace of SP-9.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFrame } from '../../firmware-protocol/serial/codec.ts';
import { crcHex } from '../../firmware-protocol/serial/crc16.ts';
import { createMeter } from '../../simulator/meter/index.ts';
import { SerialMeter } from '../../simulator/serial-meter.ts';
import { Bridge } from '../../src/bridge/bridge.ts';
import { Recorder } from '../../src/serial/recorder.ts';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { type Device, data, type V2, v2Client } from '../helpers/v2.ts';
import { PtyPair, skipWithoutSocat, until } from './helpers.ts';
import { Wire } from './wire.ts';

const ID = 'MTR-WIRE-1';
const log = () => undefined;

describe.skipIf(skipWithoutSocat)('[SP-6] unusable lines on the wire', () => {
  let t: TestService;
  let v2: V2;
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let bridge: Bridge;
  let wire: Wire;
  let recording: string;
  const ts0 = Date.now();

  beforeAll(async () => {
    t = await startTestService();
    tmp = tempDir('meterstack-wire-');
    const { account_id, api_key } = await newAccount(t.sim);
    v2 = v2Client(t.svc.httpUrl, api_key);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Lab' }));
    const ext = await provision(t.sim, {
      account_id,
      space_id: space.space_id,
      external: true,
      device_id: ID,
    });
    pty = await new PtyPair(tmp.dir).start();
    wire = new Wire(pty.a);
    recording = join(tmp.dir, 'session.jsonl');
    bridge = new Bridge({
      serial: pty.b,
      baud: 115_200,
      broker: ext.mqtt,
      log,
      recorder: new Recorder(recording),
    });
    bridge.start();
    await wire.next('IDENT', 0); // [SP-5.2]
    wire.send({
      type: 'HELLO',
      proto: 1,
      device_id: ID,
      model: 'basic',
      firmware: 'test-1',
      has_relay: true,
      telemetry_period_s: 1,
      keepalive_s: 5,
      properties: [
        { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
        { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
        { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
      ],
    });
    wire.send({
      type: 'STATE',
      ts: ts0,
      mode: 'prepaid',
      relay_commanded: true,
      relay_state: true,
      eb_tariff: 800,
      dg_tariff: 2000,
      active_tariff: 1,
      balance: 1000,
      pg_enabled: false,
      wifi_type: 'Primary',
    });
    await until(async () => data(await v2<Device>('GET', `/devices/${ID}/`)).is_online, 5_000, 'online');
  });

  afterAll(async () => {
    await bridge?.close();
    await wire?.close();
    await pty?.kill();
    await t?.close();
    tmp?.remove();
  });

  const withCrc = (body: string) => `${body}*${crcHex(body)}\n`;
  it.each([
    ['[SP-2.4] garbage with a good checksum', 'syntax', withCrc('hello there')],
    ['[SP-2.5] garbage without one', 'no_checksum', '}}} hello\n'],
    ['[SP-2.2] an oversize line', 'too_long', `${'x'.repeat(3000)}\n`],
    ['[SP-2.5] a wrong checksum', 'bad_checksum', 'PING*0000\n'],
    ['[SP-2.5] no checksum, CRLF', 'no_checksum', 'PING\r\n'],
    ['[SP-2.1] a NUL byte', 'bad_char', 'PI\u0000NG*6427\n'],
    ['[SP-4] an unknown frame type', 'unknown_type', withCrc('REBOOT')],
    [
      '[SP-4.4] a TEL without its balance',
      'missing_field',
      withCrc('TEL ts=1 energy=0 active_power=0 voltage=1'),
    ],
    ['[SP-1.3] a frame in the wrong direction', 'rejected', `${formatFrame({ type: 'IDENT' })}\n`],
  ])('%s is answered with ERR code=%s', async (_name, code, raw) => {
    const from = wire.lines.length;
    wire.write(raw);
    const err = await wire.next('ERR', from);
    expect(err.code).toBe(code);
  });

  it('[SP-6.5] a TEL the MQTT contract refuses (negative voltage) is answered ERR rejected and not published', async () => {
    const from = wire.lines.length;
    wire.send({ type: 'TEL', ts: ts0 + 1, energy: 1, active_power: 0, voltage: -1, balance: 0 });
    const err = await wire.next('ERR', from);
    expect(err).toMatchObject({ code: 'rejected', msg: expect.stringContaining('MC-7.4') });
  });

  it('[SP-6.4] an ERR line, good or bad, is never answered', async () => {
    const from = wire.lines.length;
    wire.send({ type: 'ERR', code: 'syntax', msg: 'x' });
    wire.write('ERR garbage*0000\n');
    wire.send({ type: 'PING' });
    await wire.next('PONG', from);
    expect(
      wire
        .frames()
        .slice(from)
        .map((f) => f.type),
    ).toEqual(['PONG']);
  });

  it('[SP-6.1] after all that the bridge still serves: telemetry reaches the API and a command round-trips', async () => {
    wire.send({ type: 'TEL', ts: ts0 + 2, energy: 12.5, active_power: 500, voltage: 230, balance: 900 });
    const energy = async () =>
      data(await v2<Device>('GET', `/devices/${ID}/`)).readings.find((r) => r.property_id === 'energy')
        ?.value;
    await until(async () => (await energy()) === 12.5, 3_000, 'the sample in the device readings');
    const from = wire.lines.length;
    const put = v2('PUT', `/devices/${ID}/relay`, { state: false });
    const cmd = await wire.nextWhere('CMD', from, (f) => f.op !== 'read');
    expect(cmd).toMatchObject({ op: 'set_relay', on: false, seq: expect.any(Number) });
    wire.send({ type: 'ACK', seq: cmd.seq, id: cmd.id, op: 'set_relay' });
    data(await put, 'relay state updated');
    expect(bridge.stats.errors).toBeGreaterThanOrEqual(8);
  });

  it('[SP-9] --record wrote the session as JSON Lines: start, rx frames and errors, tx frames, mqtt publishes', async () => {
    await new Promise((r) => setTimeout(r, 50));
    const entries = readFileSync(recording, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries[0]).toMatchObject({
      dir: 'link',
      event: 'start',
      device_id: ID,
      format: 'meterstack-bridge-recording/1',
    });
    for (const e of entries) expect(typeof e['ts']).toBe('number');
    expect(entries).toContainEqual(
      expect.objectContaining({ dir: 'rx', frame: expect.objectContaining({ type: 'HELLO' }) }),
    );
    expect(entries).toContainEqual(expect.objectContaining({ dir: 'rx', line: null, bytes: 3000 }));
    expect(entries).toContainEqual(
      expect.objectContaining({
        dir: 'rx',
        line: 'PING*0000',
        error: expect.objectContaining({ code: 'bad_checksum' }),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ dir: 'tx', frame: { type: 'IDENT', ts: expect.any(Number) } }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        dir: 'mqtt',
        topic: `meterstack/v1/${ID}/availability`,
        payload: expect.objectContaining({ online: true }),
      }),
    );
  });
});

describe.skipIf(skipWithoutSocat)('[SP-6.3] the serial meter answers unusable lines', () => {
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let meter: SerialMeter;
  let wire: Wire;

  beforeAll(async () => {
    tmp = tempDir('meterstack-meter-');
    pty = await new PtyPair(tmp.dir).start();
    wire = new Wire(pty.b);
    const state = createMeter({ deviceId: 'MTR-M1', telemetryPeriodMs: 60_000 }, Date.now());
    meter = new SerialMeter({ state, serial: pty.a, baud: 115_200, now: Date.now, log });
    meter.start();
    await wire.next('HELLO', 0); // [SP-5.1] on open
  });
  afterAll(async () => {
    await meter?.stop();
    await wire?.close();
    await pty?.kill();
    tmp?.remove();
  });

  it('an unknown op gets NAK unsupported, a bad argument NAK bad_request, garbage ERR, IDENT a HELLO', async () => {
    const line = (body: string) => `${body}*${crcHex(body)}\n`;
    let from = wire.lines.length;
    wire.write(line('CMD seq=7 id=c-7 op=reboot'));
    expect(await wire.next('NAK', from)).toMatchObject({ seq: 7, id: 'c-7', code: 'unsupported' });
    from = wire.lines.length;
    wire.write(line('CMD seq=8 id=c-8 op=set_relay on=maybe'));
    expect(await wire.next('NAK', from)).toMatchObject({ seq: 8, id: 'c-8', code: 'bad_request' });
    from = wire.lines.length;
    wire.write('}}}\n');
    expect(await wire.next('ERR', from)).toMatchObject({ code: 'no_checksum' });
    from = wire.lines.length;
    wire.send({ type: 'IDENT' });
    await wire.next('HELLO', from);
    await wire.next('STATE', from);
    from = wire.lines.length;
    wire.send({ type: 'CMD', seq: 9, id: 'c-9', op: 'recharge', amount: 500, transaction_id: 't-1' });
    expect(await wire.next('ACK', from)).toMatchObject({
      seq: 9,
      op: 'recharge',
      data: { applied: true, balance: 500 },
    });
  });
});
