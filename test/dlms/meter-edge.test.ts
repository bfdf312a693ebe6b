// `meterstack meter --protocol dlms` at its edges [AS-8, AS-9]: a real child process, HDLC on a socat
// pty pair and the wrapper on a real TCP port, read and operated by a client made of our own codecs.
// Both associations, the clock, registers with scalers, the object list, the block load profile by
// range, the relay through disconnect control; wrong passwords and garbage do not kill the meter.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rangeToAccess } from '../../firmware-protocol/dlms/apdu/cosem.ts';
import type { Data } from '../../firmware-protocol/dlms/apdu/data.ts';
import {
  dateTimeFromInstant,
  dateTimeToInstant,
  decodeDateTime,
  encodeDateTime,
} from '../../firmware-protocol/dlms/apdu/datetime.ts';
import { OBIS } from '../../firmware-protocol/dlms/cosem/obis.ts';
import { objectList } from '../../firmware-protocol/dlms/cosem/object-list.ts';
import { CliProcess, PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import { tempDir } from '../helpers/service.ts';
import { DlmsTestClient, HdlcTransport, TcpTransport } from './client.ts';

const SERVER = { bytes: 2 as const, upper: 1, lower: 16 }; // the documented default [AS-8.1]
const PASSWORD = 'ABCDEFGH';
const METER = [
  'meter',
  '--protocol',
  'dlms',
  '--device',
  'MTR-DLMS',
  '--balance',
  '50000',
  '--load-watts',
  '1000',
  '--telemetry-period-s',
  '1',
  '--log-level',
  'debug',
];

const clockOf = (d: Data): number => {
  if (d.type !== 'octet-string') throw new Error(d.type);
  const dt = decodeDateTime(d.value);
  if (!dt.ok) throw new Error(dt.error.message);
  return dateTimeToInstant(dt.value)!;
};
const num = (d: Data): number => {
  if (!('value' in d) || typeof d.value !== 'number') throw new Error(d.type);
  return d.value;
};
const items = (d: Data): Data[] => (d.type === 'array' || d.type === 'structure' ? d.items : []);
const byRange = (from: number, to: number) =>
  rangeToAccess({
    restrictingObject: { classId: 8, logicalName: OBIS.clock, attributeIndex: 2, dataIndex: 0 },
    from: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(from, 330)) },
    to: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(to, 330)) },
    selectedValues: [],
  });

/** The same checks over either link, given a way to open a client of either association. */
function readsAndOperates(open: (client: 16 | 32) => Promise<DlmsTestClient & { close(): Promise<void> }>) {
  it('[AS-2.1, AS-3.3, CO-2.5] the public client reads the clock and its own object list, not the registers', async () => {
    const c = await open(16);
    try {
      expect(await c.associate()).toBe(0);
      expect(Math.abs(clockOf(await c.data(8, OBIS.clock, 2)) - Date.now())).toBeLessThan(5_000);
      const list = await c.data(15, OBIS.associationCurrent, 2);
      expect(items(list)).toHaveLength(objectList('public', { hasRelay: true, model: 'basic' }).length);
      expect(await c.get(3, OBIS.voltage, 2)).toEqual({ kind: 'error', result: 4 });
      await c.release();
    } finally {
      await c.close();
    }
  });

  it('[AS-2.1, AS-1.4] a wrong password is refused (authentication-failure), nothing is served; the right one is accepted', async () => {
    const c = await open(32);
    try {
      expect(await c.associate('WRONGPWD')).toBe(-13);
      await expect(c.get(8, OBIS.clock, 2)).rejects.toThrow('exception-response');
      expect(await c.associate(PASSWORD)).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('[AS-3, AS-4, AS-6, CO-8] the meter reader: registers with scalers, the object list in blocks, block load by range, the relay off and on', async () => {
    const c = await open(32);
    try {
      expect(await c.associate(PASSWORD, 256)).toBe(0);
      const list = await c.data(15, OBIS.associationCurrent, 2); // ~3 kB: block transfer at 256 bytes
      expect(items(list)).toHaveLength(objectList('reader', { hasRelay: true, model: 'basic' }).length);
      const volts = num(await c.data(3, OBIS.voltage, 2));
      expect(await c.data(3, OBIS.voltage, 3)).toEqual({
        type: 'structure',
        items: [
          { type: 'integer', value: -2 },
          { type: 'enum', value: 35 },
        ],
      });
      expect(volts / 100).toBeGreaterThan(200);
      expect(volts / 100).toBeLessThan(260);
      expect(num(await c.data(3, OBIS.activePower, 2))).toBe(10_000); // 1000.0 W at scaler −1
      expect(num(await c.data(3, OBIS.energyKwh, 2))).toBeGreaterThanOrEqual(0);
      const now = Date.now();
      const rows = items(await c.data(7, OBIS.blockLoadProfile, 2, byRange(now - 3_600_000, now + 900_000)));
      // [AS-4.7] Closed blocks only: none from a meter started seconds ago, unless a block ended since.
      expect(rows.length).toBeLessThanOrEqual(1);
      for (const row of rows) {
        expect(clockOf(items(row)[0]!)).toBeLessThanOrEqual(Date.now());
        expect(items(row)).toHaveLength(6);
        expect(num(items(row)[5]!)).toBeLessThanOrEqual(50_000); // the credit column
      }
      expect(num(await c.data(7, OBIS.blockLoadProfile, 7))).toBeGreaterThanOrEqual(rows.length); // entries_in_use
      expect(
        items(await c.data(7, OBIS.blockLoadProfile, 2, byRange(now - 7_200_000, now - 3_600_000))),
      ).toHaveLength(0);

      expect(await c.action(70, OBIS.disconnectControl, 1, { type: 'integer', value: 0 })).toBe(0);
      expect(await c.data(70, OBIS.disconnectControl, 2)).toEqual({ type: 'boolean', value: false });
      expect(await c.data(70, OBIS.disconnectControl, 3)).toEqual({ type: 'enum', value: 0 });
      expect(await c.action(70, OBIS.disconnectControl, 2, { type: 'integer', value: 0 })).toBe(0);
      expect(await c.data(70, OBIS.disconnectControl, 2)).toEqual({ type: 'boolean', value: true });
      expect(await c.data(70, OBIS.disconnectControl, 3)).toEqual({ type: 'enum', value: 1 });
      await c.release();
    } finally {
      await c.close();
    }
  });
}

describe.skipIf(skipWithoutSocat)('DLMS meter over HDLC on a serial line [AS-8]', () => {
  const tmp = tempDir('meterstack-dlms-');
  const pty = new PtyPair(tmp.dir);
  let meter: CliProcess;
  beforeAll(async () => {
    await pty.start();
    meter = new CliProcess([...METER, '--serial', pty.a]);
    await until(() => meter.output.includes('8N1, HDLC'), 10_000, 'the meter to open its port');
  });
  afterAll(async () => {
    await meter?.stop();
    await pty.kill();
    tmp.remove();
  });

  const open = async (client: 16 | 32) => {
    const t = new HdlcTransport(pty.b, client, SERVER);
    await t.open();
    return Object.assign(new DlmsTestClient(t), { close: () => t.close(), t });
  };

  it("[AS-8.1] opens its serial port at 9600 baud by default, not the line protocol's rate", () => {
    expect(meter.output).toContain('open at 9600 baud, 8N1, HDLC');
  });
  readsAndOperates(open);

  it('[AS-8.3, HD-8.2] noise and broken frames on the line are dropped and counted; the meter keeps answering', async () => {
    const c = await open(32);
    try {
      const t = c.t as HdlcTransport;
      await t.raw(
        Uint8Array.from([0x00, 0xff, 0x7e, 0x7e, 0xa0, 0x08, 0x02, 0x21, 0x41, 0x93, 0xde, 0xad, 0x7e, 0x55]),
      );
      await t.raw(Uint8Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff));
      await new Promise((r) => setTimeout(r, 100));
      expect(await c.associate(PASSWORD)).toBe(0);
      expect(Math.abs(clockOf(await c.data(8, OBIS.clock, 2)) - Date.now())).toBeLessThan(5_000);
    } finally {
      await c.close();
    }
    expect(meter.output).toMatch(/bad frame dropped|frame dropped/);
    expect(meter.proc.exitCode).toBeNull();
  });
});

describe('DLMS meter over TCP with the wrapper [AS-9]', () => {
  let meter: CliProcess;
  let port = 0;
  beforeAll(async () => {
    meter = new CliProcess([...METER, '--tcp', '0']);
    await until(() => /listening on port (\d+)/.test(meter.output), 10_000, 'the meter to listen');
    port = Number(/listening on port (\d+)/.exec(meter.output)![1]);
  });
  afterAll(async () => {
    await meter?.stop();
  });

  const open = async (client: 16 | 32) => {
    const t = await TcpTransport.open(port, client);
    return Object.assign(new DlmsTestClient(t), { close: () => t.close(), t });
  };
  readsAndOperates(open);

  it('[AS-9.1, WR-1.1] two clients at once, each with its own association', async () => {
    const pub = await open(16);
    const reader = await open(32);
    try {
      expect(await pub.associate()).toBe(0);
      expect(await reader.associate(PASSWORD)).toBe(0);
      const [a, b] = await Promise.all([pub.get(3, OBIS.voltage, 2), reader.get(3, OBIS.voltage, 2)]);
      expect(a).toEqual({ kind: 'error', result: 4 });
      expect(b.kind).toBe('data');
    } finally {
      await pub.close();
      await reader.close();
    }
  });

  it('[AS-9.4, WR-3.3] a stream out of step is closed; the meter keeps serving others', async () => {
    const bad = await open(32);
    bad.t.socket.write(Buffer.from('7EA0070221419375EC7E', 'hex')); // HDLC on the wrapper: bad_version
    await until(() => bad.t.closed, 5_000, 'the server to close the connection');
    const good = await open(16);
    try {
      expect(await good.associate()).toBe(0);
      expect((await good.get(8, OBIS.clock, 2)).kind).toBe('data');
    } finally {
      await good.close();
    }
    expect(meter.output).toContain('bad_version');
  });
});

describe('DLMS meter cut off by its prepaid balance [AS-3, CO-8.2]', () => {
  let meter: CliProcess;
  let port = 0;
  beforeAll(async () => {
    meter = new CliProcess([
      'meter',
      '--protocol',
      'dlms',
      '--device',
      'MTR-EMPTY',
      '--balance',
      '0',
      '--load-watts',
      '500',
      // The default telemetry period (60 s): the meter lives up to each request, so the cut-off is seen
      // as soon as energy has flowed, not at the next boundary a minute later.
      '--tcp',
      '0',
    ]);
    await until(() => /listening on port (\d+)/.test(meter.output), 10_000, 'the meter to listen');
    port = Number(/listening on port (\d+)/.exec(meter.output)![1]);
  });
  afterAll(async () => {
    await meter?.stop();
  });

  it('[CO-8.2] a prepaid cut-off is output_state false, control_state ready_for_reconnection; a DLMS recharge closes it', async () => {
    const t = await TcpTransport.open(port, 32);
    const c = new DlmsTestClient(t);
    try {
      expect(await c.associate(PASSWORD)).toBe(0);
      // Cut off once energy has flowed with no credit: within a few ms of the start, read at once.
      await until(
        async () => ((await c.data(70, OBIS.disconnectControl, 2)) as { value: unknown }).value === false,
        5_000,
        'the prepaid cut-off',
      );
      expect(await c.data(70, OBIS.disconnectControl, 2)).toEqual({ type: 'boolean', value: false });
      expect(await c.data(70, OBIS.disconnectControl, 3)).toEqual({ type: 'enum', value: 2 });
      const before = num(await c.data(112, OBIS.credit, 2));
      expect(before).toBeLessThanOrEqual(0); // what flowed before the cut-off, rounded down (paise)
      // A recharge over DLMS closes the relay again (local reconnection, CO-8.2).
      expect(await c.action(112, OBIS.credit, 1, { type: 'double-long', value: 10_000 })).toBe(0);
      expect(await c.data(70, OBIS.disconnectControl, 2)).toEqual({ type: 'boolean', value: true });
      const after = num(await c.data(112, OBIS.credit, 2)); // a few paise less if a sample fell between
      expect(after).toBeLessThanOrEqual(before + 10_000);
      expect(after).toBeGreaterThan(before + 10_000 - 10);
    } finally {
      await t.close();
    }
  });
});
