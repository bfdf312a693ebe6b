// Issue 21's evidence for the bridge: `meterstack meter --protocol dlms` (the DLMS virtual meter) on one
// end of a socat pty pair and on a TCP port, and two `meterstack bridge --dlms` processes in front of it,
// one over HDLC on the pty's other end and one over the wrapper on TCP, each for a device of its own in
// one real meterstack. For each link: the meter's registers, read independently over its TCP port with
// our client, equal what GET /api/v2/devices/{id} reports; the relay round-trips through disconnect
// control; a recharge credits once. One service, one meter process and both bridges are shared by the
// file (started together: process starts were most of its time).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attribute } from '../../../firmware-protocol/dlms/client/calls.ts';
import { DEFAULT_SESSION } from '../../../firmware-protocol/dlms/client/session.ts';
import { numberFrom } from '../../../firmware-protocol/dlms/client/values.ts';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import { DlmsClient } from '../../../src/bridge/dlms/client.ts';
import { WrapperTcpTransport } from '../../../src/bridge/dlms/wrapper-tcp.ts';
import {
  newAccount,
  ok,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../../helpers/service.ts';
import { data, type V2, v2Client } from '../../helpers/v2.ts';
import { CliProcess, PtyPair, skipWithoutSocat, until } from '../helpers.ts';

const PASSWORD = 'ABCDEFGH'; // the DLMS meter's default meter reader password

/** The register → the v2 reading, at the register's scaler (objects-registers.ts). */
const REGISTERS: [obis: string, property: string, scale: number][] = [
  [OBIS.voltage, 'voltage', 0.01],
  [OBIS.phaseCurrent, 'current', 0.001],
  [OBIS.powerFactor, 'power_factor', 0.001],
  [OBIS.apparentPower, 'apparent_power', 0.1],
  [OBIS.activePower, 'active_power', 0.1],
  [OBIS.energyKwh, 'energy', 0.001],
];

const LINKS = ['serial', 'tcp'] as const;
type Link = (typeof LINKS)[number];
const DEVICE: Record<Link, string> = { serial: 'MTR-DLMS-SERIAL', tcp: 'MTR-DLMS-TCP' };

let t: TestService;
let v2: V2;
let pty: PtyPair;
let meter: CliProcess;
const bridges: CliProcess[] = [];
let tmp: { dir: string; remove: () => void };
let tcpPort = 0;

/** Reads the meter's registers over its TCP port, with our own client as the meter reader. */
async function meterRegisters(): Promise<Record<string, number>> {
  const client = new DlmsClient({
    transport: new WrapperTcpTransport({ host: '127.0.0.1', port: tcpPort, client: 32, server: 1 }),
    session: { ...DEFAULT_SESSION, password: PASSWORD },
    now: Date.now,
    onBad: () => undefined,
    onLost: () => undefined,
  });
  await client.open();
  const out = await client.call({
    kind: 'get-list',
    items: REGISTERS.map(([o]) => ({ attribute: attribute(3, o, 2) })),
  });
  await client.close();
  if (out.kind !== 'list') throw new Error(`registers: ${JSON.stringify(out)}`);
  return Object.fromEntries(
    REGISTERS.map(([, property, scale], i) => {
      const r = out.results[i]!;
      const n = r.kind === 'data' ? numberFrom(r.data) : null;
      return [property, Number(((n ?? Number.NaN) * scale).toFixed(3))];
    }),
  );
}

/** `bridge --dlms` for `device` over `link` (the pty's other end, or the meter's TCP port). */
function startBridge(link: Link, ext: Provisioned): CliProcess {
  const where = link === 'serial' ? ['--serial', pty.b] : ['--tcp', `127.0.0.1:${tcpPort}`];
  return new CliProcess(
    [
      'bridge',
      '--dlms',
      ...where,
      '--password',
      PASSWORD,
      '--broker',
      t.svc.mqttUrl,
      '--username',
      ext.device_id,
      '--poll-s',
      '1',
      '--state-file',
      join(tmp.dir, `bridge-${link}.json`),
    ],
    { ...process.env, METERSTACK_BRIDGE_PASSWORD: ext.mqtt.password },
  );
}

beforeAll(async () => {
  if (skipWithoutSocat) return;
  tmp = tempDir('meterstack-dlms-e2e-');
  pty = new PtyPair(tmp.dir);
  // The service and the meter process start side by side.
  const service = startTestService({ creditRetryMs: 300 });
  await pty.start();
  meter = new CliProcess([
    'meter',
    '--protocol',
    'dlms',
    '--serial',
    pty.a,
    '--tcp',
    '0',
    '--device',
    'MTR-DLMS-E2E',
    '--model',
    'full',
    '--mode',
    'prepaid',
    '--balance',
    '50000',
    '--load-watts',
    '1000',
    '--energy-kwh',
    '100',
    '--telemetry-period-s',
    '3600',
  ]);
  t = await service;
  const { account_id, api_key } = await newAccount(t.sim);
  v2 = v2Client(t.svc.httpUrl, api_key);
  const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Lab' }));
  const devices: Provisioned[] = [];
  for (const link of LINKS)
    devices.push(
      await provision(t.sim, {
        account_id,
        space_id: space.space_id,
        external: true,
        model: 'full',
        device_id: DEVICE[link],
      }),
    );
  await until(() => /listening on port (\d+)/.test(meter.output), 15_000, 'the meter on TCP');
  tcpPort = Number(/listening on port (\d+)/.exec(meter.output)![1]);
  LINKS.forEach((link, i) => {
    bridges.push(startBridge(link, devices[i]!));
  });
  for (const link of LINKS) await t.svc.world.twins.waitForAvailability(DEVICE[link], true, 20_000);
}, 60_000);

afterAll(async () => {
  for (const b of bridges) await b.stop();
  await meter?.stop();
  await pty?.kill();
  await t?.close();
  tmp?.remove();
});

describe.skipIf(skipWithoutSocat).each(LINKS.map((l) => [l]))(
  'meter --protocol dlms + bridge --dlms --%s through meterstack',
  (over) => {
    const device = DEVICE[over];

    it("[CL-9.2] every register the meter holds equals GET /api/v2/devices/{id}'s reading", async () => {
      // The bridge reads over the link this case names.
      const bridge = bridges[LINKS.indexOf(over)]!;
      expect(bridge.output).toContain(`reading ${over === 'tcp' ? `127.0.0.1:${tcpPort}` : pty.b}`);
      const registers = await meterRegisters();
      await until(
        () => t.svc.world.twins.get(device)?.latest?.energy === registers['energy'],
        10_000,
        'the same sample',
      );
      const found = data(
        await v2<{ readings: { property_id: string; value: number }[] }>('GET', `/devices/${device}/`),
      );
      const readings = Object.fromEntries(found.readings.map((r) => [r.property_id, r.value]));
      for (const [, property] of REGISTERS)
        expect({ property, value: readings[property] }).toEqual({ property, value: registers[property] });
    });

    it('[CL-9.5] PUT relay off and on goes through disconnect control; metrics reads it back', async () => {
      expect((await v2('PUT', `/devices/${device}/relay`, { state: false })).status).toBe(200);
      expect(data(await v2<{ relay_state: boolean }>('GET', `/devices/${device}/metrics`)).relay_state).toBe(
        false,
      );
      expect((await v2('PUT', `/devices/${device}/relay`, { state: true })).status).toBe(200);
      expect(data(await v2<{ relay_state: boolean }>('GET', `/devices/${device}/metrics`)).relay_state).toBe(
        true,
      );
    });

    it('[CL-9.6] a recharge credits the meter once, also when sent again', async () => {
      const before = t.svc.world.twins.get(device)?.state?.balance ?? 0;
      const transaction_id = `e2e-pay-${over}`;
      const res = await t.sim<{ applied: boolean; balance: number }>('POST', `/devices/${device}/recharge`, {
        amount: 1000,
        transaction_id,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.applied).toBe(true);
      expect(res.body.data.balance).toBeGreaterThanOrEqual(before + 1000 - 50); // the load spends a little meanwhile
      expect(res.body.data.balance).toBeLessThanOrEqual(before + 1000);
      const again = await t.sim<{ applied: boolean; balance: number }>(
        'POST',
        `/devices/${device}/recharge`,
        {
          amount: 1000,
          transaction_id,
        },
      );
      expect(again.body.data.applied).toBe(false);
      expect(again.body.data.balance).toBeLessThanOrEqual(res.body.data.balance);
    });
  },
);
