// Issue 8, items 9-13: the serial bridge at its edges. Each test runs the real Bridge on one end of a socat
// pty pair against the real meterstack broker, plays the meter with raw lines on the other end and the
// service with an MQTT client, and checks what crosses each side. Rule numbers: PROTOCOL.md (SP-x.y).

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { crcHex } from '../../firmware-protocol/serial/crc16.ts';
import { Bridge } from '../../src/bridge/bridge.ts';
import type { Broker } from '../../src/broker/index.ts';
import { PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import { tempDir } from '../helpers/service.ts';
import { DEVICE, hello, PASSWORD, ServiceSide, startTestBroker, state, tel, Wire } from './serial-harness.ts';

const withCrc = (body: string) => `${body}*${crcHex(body)}\n`;
const EMOJI = '\u{1F600}';

describe.skipIf(skipWithoutSocat)('issue 8 items 9-13: the serial bridge', () => {
  let broker: Broker;
  let svc: ServiceSide;
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let bridge: Bridge;
  let wire: Wire;
  const logs: string[] = [];
  let ts0 = Date.now();

  beforeAll(async () => {
    broker = await startTestBroker();
    svc = await ServiceSide.connect(broker.url);
  });
  afterAll(async () => {
    await svc?.close();
    await broker?.close();
  });

  beforeEach(async () => {
    tmp = tempDir('meterstack-hard-');
    pty = await new PtyPair(tmp.dir).start();
    wire = new Wire(pty.a);
    logs.length = 0;
    bridge = new Bridge({
      serial: pty.b,
      baud: 115_200,
      broker: { url: broker.url, username: DEVICE, password: PASSWORD },
      log: (level, msg) => logs.push(`${level} ${msg}`),
    });
    bridge.start();
    await wire.next('IDENT', 0); // [SP-5.2]
    ts0 += 1_000_000;
  });
  afterEach(async () => {
    await bridge?.close();
    await wire?.close();
    await pty?.kill();
    tmp?.remove();
  });

  /** HELLO + STATE, and wait for the bridge to announce the meter online. */
  async function up(): Promise<void> {
    const from = svc.messages.length;
    wire.send(hello(), state(ts0));
    await svc.waitOnline(true, from);
  }

  it('[SP-4.13] issue 8 item 9: a set_wifi whose escaped credentials cannot be a line is answered invalid_argument by the bridge; nothing reaches the meter', async () => {
    await up();
    const from = wire.lines.length;
    await svc.cmd({
      v: 1,
      id: 'wifi-big',
      op: 'set_wifi',
      ssid: EMOJI.repeat(32),
      password: EMOJI.repeat(64),
    });
    const reply = await svc.reply('wifi-big');
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect((reply['error'] as { message: string }).message).toMatch(
      /^\[SP-4\.13\] .*1152 bytes.*at most 885/,
    );
    // A command that fits still goes through as a CMD line, and it was the first set_wifi written (the
    // bridge's own connect `read` may come before it on a loaded machine).
    await svc.cmd({ v: 1, id: 'wifi-ok', op: 'set_wifi', ssid: 'Home 5G', password: EMOJI.repeat(10) });
    const cmd = await wire.nextWhere('CMD', from, (f) => f.op !== 'read');
    expect(cmd).toMatchObject({ id: 'wifi-ok', op: 'set_wifi' });
    expect(bridge.stats.unframeable).toBe(1);
    expect(bridge.faults).toBe(0);
  });

  it('[SP-6.6][MC-7.5][MC-7.3] issue 8 item 10: a TEL whose energy falls or whose ts repeats is refused alone with ERR rejected; its neighbours are published', async () => {
    await up();
    const from = wire.lines.length;
    // One write, so the lines arrive together and would go out as one batch.
    wire.send(
      tel(ts0 + 1, 10),
      tel(ts0 + 2, 9.5), // energy down [MC-7.5]
      tel(ts0 + 3, 10.5),
      tel(ts0 + 3, 10.6), // ts repeated, other values [MC-7.3]
      tel(ts0 + 4, 11),
    );
    await until(() => svc.samples().some((s) => s.ts === ts0 + 4), 5_000, 'the last good sample published');
    const published = svc.samples().filter((s) => s.ts > ts0);
    expect(published).toEqual([
      expect.objectContaining({ ts: ts0 + 1, energy: 10 }),
      expect.objectContaining({ ts: ts0 + 3, energy: 10.5 }),
      expect.objectContaining({ ts: ts0 + 4, energy: 11 }),
    ]);
    await until(() => wire.frames(from).filter((f) => f.type === 'ERR').length === 2, 3_000, 'two ERRs');
    const errs = wire.frames(from).filter((f) => f.type === 'ERR');
    expect(errs).toEqual([
      expect.objectContaining({ code: 'rejected', msg: expect.stringMatching(/^\[MC-7\.5\] energy 9\.5/) }),
      expect.objectContaining({ code: 'rejected', msg: expect.stringMatching(/^\[MC-7\.3\] ts /) }),
    ]);
  });

  it('[SP-6.6][SP-5.6] a TEL repeating a sample already taken (a resend) is dropped without an answer', async () => {
    await up();
    wire.send(tel(ts0 + 1, 1), tel(ts0 + 2, 2));
    await until(() => svc.samples().some((s) => s.ts === ts0 + 2), 5_000, 'the samples');
    const from = wire.lines.length;
    wire.send(tel(ts0 + 1, 1), tel(ts0 + 2, 2), tel(ts0 + 3, 3), { type: 'PING' });
    await wire.next('PONG', from);
    await until(() => svc.samples().some((s) => s.ts === ts0 + 3), 5_000, 'the new sample');
    expect(wire.frames(from).map((f) => f.type)).toEqual(['PONG']);
    expect(svc.samples().filter((s) => s.ts === ts0 + 1)).toHaveLength(1);
    expect(bridge.stats.repeats).toBe(2);
  });

  it('[SP-5.7] issue 8 item 11: HELLO then a corrupted STATE while the link is down: the bridge asks again with IDENT until a valid STATE comes', async () => {
    let from = wire.lines.length;
    const good = withCrc(
      'STATE ts=1 mode=prepaid relay_commanded=1 relay_state=1 eb_tariff=1 dg_tariff=1 active_tariff=1 balance=0 pg_enabled=0 wifi_type=Primary',
    );
    wire.send(hello());
    wire.write(good.replace('balance=0', 'balance=7')); // one flipped digit: bad_checksum
    await wire.next('ERR', from);
    // The meter goes on with its keep-alive; before SP-5.7 each PING got a PONG and nothing else.
    const pinger = setInterval(() => wire.send({ type: 'PING' }), 300);
    try {
      await wire.next('IDENT', from, 5_000);
      expect(wire.frames(from).some((f) => f.type === 'PONG')).toBe(false);
      from = svc.messages.length;
      wire.send(hello(), state(ts0));
      await svc.waitOnline(true, from);
    } finally {
      clearInterval(pinger);
    }
    expect(bridge.online).toBe(true);
  });

  it('[SP-5.10] issue 8 item 12: an ACK naming another op, id or seq answers nothing (ERR rejected, no reply); the right ACK then counts', async () => {
    await up();
    const from = wire.lines.length;
    const replies = svc.of('reply').length;
    await svc.cmd({ v: 1, id: 'relay-1', op: 'set_relay', on: false });
    // The bridge's own connect reading (a `read` CMD) may still be in flight on a loaded machine.
    const cmd = await wire.nextWhere('CMD', from, (f) => f.op === 'set_relay');
    wire.send({ type: 'ACK', seq: cmd.seq, id: cmd.id, op: 'recharge', data: { applied: true, balance: 1 } });
    wire.send({ type: 'ACK', seq: cmd.seq, id: 'someone-else', op: 'set_relay' });
    wire.send({ type: 'ACK', seq: cmd.seq + 100, id: cmd.id, op: 'set_relay' });
    wire.send({ type: 'NAK', seq: cmd.seq + 101, id: cmd.id, code: 'busy', msg: 'x' });
    await until(() => wire.frames(from).filter((f) => f.type === 'ERR').length === 4, 3_000, 'four ERRs');
    const msgs = wire
      .frames(from)
      .filter((f) => f.type === 'ERR')
      .map((f) => (f as { code: string; msg: string }).code + ' ' + (f as { msg: string }).msg);
    expect(msgs).toEqual([
      expect.stringMatching(/^rejected \[SP-5\.10\] .* is op set_relay, not recharge/),
      expect.stringMatching(/^rejected \[SP-5\.10\] .* has id relay-1, not someone-else/),
      expect.stringMatching(/^rejected \[SP-5\.10\] no CMD seq=\d+ in flight/),
      expect.stringMatching(/^rejected \[SP-5\.10\] no CMD seq=\d+ in flight/),
    ]);
    expect(svc.of('reply').length).toBe(replies);
    wire.send({ type: 'ACK', seq: cmd.seq, id: cmd.id, op: 'set_relay' });
    expect(await svc.reply('relay-1')).toMatchObject({ ok: true });
    expect(bridge.stats.unmatchedReplies).toBe(4);
  });

  it('[SP-4.1] issue 8 item 12: a HELLO with keepalive_s outside 1..60 is refused bad_value and the link stays down', async () => {
    const from0 = svc.messages.length;
    for (const k of [0, 61]) {
      const from = wire.lines.length;
      wire.write(
        withCrc(
          `HELLO proto=1 device_id=${DEVICE} model=basic firmware=1 has_relay=1 telemetry_period_s=1 keepalive_s=${k} properties=energy;cumulative;kWh,active_power;instantaneous;W,voltage;instantaneous;V`,
        ),
      );
      wire.send(state(ts0));
      const err = await wire.next('ERR', from);
      expect(err).toMatchObject({ code: 'bad_value', msg: expect.stringContaining('keepalive_s') });
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(bridge.online).toBe(false);
    expect(svc.of('availability', from0).some((a) => a['online'] === true)).toBe(false);
  });

  it('[SP-5.4][SP-8.1] issue 8 item 12: a proto=2 HELLO on an up link takes it down (offline published)', async () => {
    await up();
    const from = svc.messages.length;
    const fromLine = wire.lines.length;
    wire.write(
      withCrc(
        `HELLO proto=2 device_id=${DEVICE} model=basic firmware=2 has_relay=1 telemetry_period_s=1 keepalive_s=5 properties=`,
      ),
    );
    expect(await wire.next('ERR', fromLine)).toMatchObject({ code: 'bad_version' });
    await svc.waitOnline(false, from);
    expect(bridge.online).toBe(false);
  });

  it('[SP-5.5] at most 8 commands in flight to the meter; the ninth is answered busy by the bridge', async () => {
    await up();
    for (let i = 0; i < 9; i++) await svc.cmd({ v: 1, id: `r-${i}`, op: 'read' });
    expect(await svc.reply('r-8')).toMatchObject({
      ok: false,
      error: { code: 'busy', message: expect.stringContaining('[SP-5.5]') },
    });
    await until(() => wire.frames().filter((f) => f.type === 'CMD').length === 8, 3_000, '8 CMD lines');
  });

  it('[SP-5.9] IDENT and PONG carry the bridge clock for meters without a real-time clock', async () => {
    const ident = wire.frames().find((f) => f.type === 'IDENT') as { ts?: number };
    expect(Math.abs((ident.ts ?? 0) - Date.now())).toBeLessThan(60_000);
    await up();
    const from = wire.lines.length;
    wire.send({ type: 'PING' });
    const pong = await wire.next('PONG', from);
    expect(Math.abs((pong.ts ?? 0) - Date.now())).toBeLessThan(60_000);
  });
});
