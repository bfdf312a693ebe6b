// Issue 8 item 9 [SP-6.8, SP-6.1, SP-4.13]: nothing a meter or the service sends makes `meterstack bridge`
// exit. The real command line runs against the real broker over a socat pty; the test throws hostile
// lines at its serial side (a fixed list and a bounded fast-check fuzz) and hostile cmds at its MQTT side,
// then checks the process is alive, logged no fault, and still serves. A second part goes through the
// whole service: the emoji WiFi of the audit comes back from the v2 API as 422 and never reaches the meter.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crcHex } from '../../firmware-protocol/serial/crc16.ts';
import { loadVectors } from '../../firmware-protocol/serial/golden/vectors.ts';
import { Bridge } from '../../src/bridge/bridge.ts';
import type { Broker } from '../../src/broker/index.ts';
import { MAX_PAYLOAD_BYTES } from '../../src/broker/packet-limit.ts';
import { CliProcess, PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { data, v2Client } from '../helpers/v2.ts';
import { DEVICE, hello, PASSWORD, ServiceSide, startTestBroker, state, tel, Wire } from './serial-harness.ts';

const withCrc = (body: string) => `${body}*${crcHex(body)}\n`;
const EMOJI = '\u{1F600}';

/** Lines a broken or hostile meter might send. */
const HOSTILE_LINES: (string | Buffer)[] = [
  Buffer.from([0, 1, 2, 0xff, 0xfe, 10]),
  `${'A'.repeat(5000)}\n`,
  '*\n',
  '*0000\n',
  'ERR\n',
  withCrc('ERR code=nonsense msg=%ZZ'),
  withCrc(`ACK seq=99999999999 id=x op=read`),
  withCrc(`ACK seq=1 id=${'%F0%9F%98%80'.repeat(60)} op=set_relay`),
  withCrc('NAK seq=-1 id=x code=busy msg='),
  withCrc(
    `HELLO proto=1 device_id=MTR-SOMEONE-ELSE model=basic firmware=1 has_relay=1 telemetry_period_s=1 keepalive_s=5 properties=`,
  ),
  withCrc(
    `HELLO proto=2 device_id=${DEVICE} model=full firmware=1 has_relay=1 telemetry_period_s=1 keepalive_s=5 properties=`,
  ),
  withCrc(
    `HELLO proto=1 device_id=${DEVICE} model=full firmware=1 has_relay=1 telemetry_period_s=0 keepalive_s=1 properties=energy;cumulative;kWh`,
  ),
  withCrc(
    'STATE ts=-1 mode=prepaid relay_commanded=1 relay_state=1 eb_tariff=-5 dg_tariff=1 active_tariff=9 balance=0 pg_enabled=1 wifi_type=Primary',
  ),
  withCrc('TEL ts=1 energy=1e308 active_power=-1e308 voltage=1e-320 balance=-9007199254740991'),
  withCrc('CMD seq=1 id=x op=set_relay on=1'),
  withCrc('IDENT ts=99999999999999999999'),
  withCrc(`LOG level=error msg=${'%E2%80%AE'.repeat(300)}`),
  withCrc(`LOG level=info msg=${'%C0%80'}`),
  withCrc('BYE'),
  'PING*6427\r\r\n',
];

/**
 * Cmd payloads a broken or hostile service might publish, as far as the broker lets them reach the bridge.
 * Some it now stops itself, and the bridge never sees them: a cmd from anyone but the service closes the
 * publisher [MC-2.6], a retained cmd is refused [MC-2.7], and a packet over 263,168 bytes closes the
 * connection before it is buffered [MC-10.1] (src/broker tests and test/hardening/broker-acl.test.ts,
 * mqtt-limits.test.ts prove those). So the largest payload here is the largest one allowed [MC-3.1].
 */
const HOSTILE_CMDS: (string | Buffer | object)[] = [
  '',
  'not json',
  '[]',
  'null',
  '"x"',
  Buffer.from([0xc3, 0x28, 0xff]),
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  'x'.repeat(MAX_PAYLOAD_BYTES), // [MC-3.1]; 300,000 bytes would close the service's own connection [MC-10.1]
  { v: 1 },
  { v: 2, id: 'h-v2', op: 'read' },
  { v: 1, id: 'h-op', op: 'explode' },
  { v: 1, id: 'h-proto', op: 'read', __proto__: { admin: true } },
  JSON.parse('{"v":1,"id":"h-proto2","op":"read","__proto__":{"x":1}}') as object,
  { v: 1, id: 'h-wifi', op: 'set_wifi', ssid: EMOJI.repeat(32), password: EMOJI.repeat(64) },
  { v: 1, id: 'h-nul', op: 'set_wifi', ssid: '\u0000', password: '\uD800' },
  { v: 1, id: 'h-amount', op: 'recharge', amount: 1e308, transaction_id: 't' },
  { v: 1, id: 'h-tx', op: 'recharge', amount: 1, transaction_id: `${EMOJI}` },
  { v: 1, id: 'x'.repeat(65), op: 'read' },
  { v: 1, id: 'h-extra', op: 'set_relay', on: true, extra: 'x'.repeat(100_000) },
];

describe.skipIf(skipWithoutSocat)(
  '[SP-6.8] issue 8 item 9: the bridge process survives hostile input',
  () => {
    let broker: Broker;
    let svc: ServiceSide;
    let tmp: { dir: string; remove: () => void };
    let pty: PtyPair;
    let wire: Wire;
    let bridge: CliProcess;
    let ts = Date.now();

    beforeAll(async () => {
      broker = await startTestBroker();
      svc = await ServiceSide.connect(broker.url);
      tmp = tempDir('meterstack-hostile-');
      pty = await new PtyPair(tmp.dir).start();
      wire = new Wire(pty.a);
      bridge = new CliProcess([
        'bridge',
        ...['--serial', pty.b, '--broker', broker.url, '--username', DEVICE, '--password', PASSWORD],
      ]);
      await wire.next('IDENT', 0, 10_000);
    });
    afterAll(async () => {
      await bridge?.stop();
      await wire?.close();
      await pty?.kill();
      await svc?.close();
      await broker?.close();
      tmp?.remove();
    });

    /** HELLO + STATE: the link comes (or stays) up, and the state is published. */
    async function up(): Promise<void> {
      const from = svc.messages.length;
      ts += 1000;
      wire.send(hello(), state(ts));
      await until(
        () => svc.of('state', from).length > 0 && svc.of('availability').at(-1)?.['online'] === true,
        5_000,
        'the link up',
      );
    }

    const alive = () => bridge.proc.exitCode === null && bridge.proc.signalCode === null;

    it('hostile and fuzzed lines on the serial side', async () => {
      await up();
      for (const line of HOSTILE_LINES) wire.write(line);
      const { valid } = loadVectors();
      const fuzz = fc.sample(
        fc.oneof(
          fc.string({ unit: 'binary-ascii', maxLength: 300 }).map((s) => `${s.replaceAll('\n', '')}\n`),
          fc
            .tuple(fc.constantFrom(...valid.map((v) => v.line)), fc.nat(), fc.string({ maxLength: 3 }))
            .map(([l, at, ins]) => {
              const i = at % (l.length + 1);
              return `${l.slice(0, i)}${ins.replaceAll('\n', '')}${l.slice(i + 1)}\n`;
            }),
        ),
        { numRuns: 300, seed: 8 },
      );
      for (const line of fuzz) wire.write(line);
      const from = wire.lines.length;
      await up();
      wire.send({ type: 'PING' });
      await wire.next('PONG', from, 10_000);
      expect(alive()).toBe(true);
    });

    it('hostile cmds on the MQTT side, with the link up', async () => {
      await up();
      const from = wire.lines.length;
      for (const cmd of HOSTILE_CMDS) await svc.cmd(cmd);
      expect(await svc.reply('h-wifi')).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
      expect(await svc.reply('h-op')).toMatchObject({ ok: false, error: { code: 'unsupported' } });
      // [SP-3.4][SP-4.13] A lone surrogate is refused before anything is sent, never sent as U+FFFD.
      expect(await svc.reply('h-nul')).toMatchObject({
        ok: false,
        error: {
          code: 'invalid_argument',
          message: expect.stringMatching(/SP-4\.13.*lone UTF-16 surrogate/),
        },
      });
      expect(alive()).toBe(true);
      // Only the decodable, frameable ones reached the meter.
      await until(
        () => wire.frames(from).some((f) => f.type === 'CMD' && f.id === 'h-extra'),
        5_000,
        'h-extra',
      );
      const ids = wire.frames(from).flatMap((f) => (f.type === 'CMD' ? [f.id] : []));
      expect(ids).not.toContain('h-wifi');
      expect(ids).not.toContain('h-nul');
    });

    it('afterwards it still serves: a command round-trips, telemetry flows, and no fault was logged', async () => {
      await up();
      const from = wire.lines.length;
      await svc.cmd({ v: 1, id: 'final', op: 'set_relay', on: false });
      const cmd = await wire.nextWhere('CMD', from, (f) => f.op !== 'read');
      wire.send({ type: 'ACK', seq: cmd.seq, id: cmd.id, op: 'set_relay' });
      expect(await svc.reply('final')).toMatchObject({ ok: true });
      wire.send(tel(ts + 1, 42));
      await until(() => svc.samples().some((s) => s.energy === 42), 5_000, 'the sample');
      expect(alive()).toBe(true);
      expect(bridge.output).not.toMatch(/ error .*(failed|cannot send)/);
    });
  },
);

describe.skipIf(skipWithoutSocat)('[SP-4.13] issue 8 item 9: the emoji WiFi through the v2 API', () => {
  let t: TestService;
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let wire: Wire;
  let bridge: Bridge;
  const ID = 'MTR-HARD-WIFI';

  beforeAll(async () => {
    t = await startTestService();
    tmp = tempDir('meterstack-wifi-');
    const { account_id, api_key } = await newAccount(t.sim);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Lab' }));
    const ext = await provision(t.sim, {
      account_id,
      space_id: space.space_id,
      external: true,
      device_id: ID,
    });
    pty = await new PtyPair(tmp.dir).start();
    wire = new Wire(pty.a);
    bridge = new Bridge({ serial: pty.b, baud: 115_200, broker: ext.mqtt, log: () => undefined });
    bridge.start();
    await wire.next('IDENT', 0);
    wire.send(hello({ device_id: ID }), state(Date.now()));
    const v2 = v2Client(t.svc.httpUrl, api_key);
    await until(
      async () => data(await v2<{ is_online: boolean }>('GET', `/devices/${ID}/`)).is_online,
      5_000,
      'online',
    );
    apiKey = api_key;
  });
  let apiKey = '';
  afterAll(async () => {
    await bridge?.close();
    await wire?.close();
    await pty?.kill();
    await t?.close();
    tmp?.remove();
  });

  it('POST wifi with 32 emoji of SSID and 64 of password: HTTP 422 validation_error with the reason; no CMD reaches the meter; the bridge lives', async () => {
    const v2 = v2Client(t.svc.httpUrl, apiKey);
    const from = wire.lines.length;
    const res = await v2('POST', `/devices/${ID}/wifi`, {
      ssid: EMOJI.repeat(32),
      password: EMOJI.repeat(64),
    });
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
    expect(res.body.error?.code).toBe('validation_error');
    // The API may refuse the SSID first once it counts bytes (item 18); until then the bridge does [SP-4.13].
    expect(JSON.stringify(res.body.error?.detail)).toMatch(/SP-4\.13|32/);
    expect(wire.frames(from).some((f) => f.type === 'CMD')).toBe(false);
    // A network that fits still goes through.
    const put = v2('POST', `/devices/${ID}/wifi`, { ssid: 'Home 5G', password: `${EMOJI}x` });
    const cmd = await wire.nextWhere('CMD', from, (f) => f.op !== 'read');
    wire.send({ type: 'ACK', seq: cmd.seq, id: cmd.id, op: 'set_wifi' });
    expect((await put).status).toBe(200);
    expect(bridge.faults).toBe(0);
  });
});
