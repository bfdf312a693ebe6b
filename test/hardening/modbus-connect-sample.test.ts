// Issue 8 item 16 [MC-6.7] for the Modbus bridge: on every (re)connection to the broker the bridge polls
// the meter at once, so the service gets present readings right away, not a poll period later. The real
// service, broker and MQTT clients; the SDM120 is a stand-in port answering fixed register words (the
// end-to-end test over a pty needs pymodbus, test/bridge/modbus.test.ts).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { ModbusBridge } from '../../src/bridge/modbus/bridge.ts';
import type { ModbusPort, ReadResult } from '../../src/bridge/modbus/port.ts';
import { SDM120_REGISTERS } from '../../src/bridge/modbus/registers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { newAccount, provision, startTestService, type TestService } from '../helpers/service.ts';

/** float32 → two registers, high word first. */
function words(value: number): [number, number] {
  const b = Buffer.alloc(4);
  b.writeFloatBE(value, 0);
  return [b.readUInt16BE(0), b.readUInt16BE(2)];
}

/** A port that answers every read with one SDM120 reading, and counts the reads. */
class FakeSdm120 {
  reads = 0;
  read(): Promise<ReadResult> {
    this.reads++;
    const live = new Array<number>(0x20).fill(0);
    const put = (address: number, v: number) => {
      [live[address], live[address + 1]] = words(v);
    };
    put(0x00, 230.1234);
    put(0x06, 5.123456);
    put(0x0c, 1178.123);
    put(0x12, 1179.987);
    put(0x18, -12.3456);
    put(0x1e, 0.99876);
    return Promise.resolve({
      ok: true,
      words: new Map([
        [0x0000, live],
        [0x0156, words(942.2416)],
      ]),
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

let t: TestService;
let clients: ServiceClients;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  clients = new ServiceClients(t.svc.mqttUrl, t.svc.adminToken);
});
afterAll(async () => {
  await clients?.endAll();
  await t?.close();
});

describe('[MC-6.7] issue 8 item 16: the Modbus bridge', () => {
  it('polls and publishes a sample on every (re)connection, at its declared resolution [MC-7.7]', async () => {
    const { account_id } = await newAccount(t.sim, 'modbus');
    const ext = await provision(t.sim, { account_id, external: true, model: 'full', device_id: 'SDM-1' });
    const id = ext.device_id;
    const admin = await clients.admin();
    const inbox = new Inbox(admin);
    await admin.subscribeAsync(`meterstack/v1/${id}/#`, { qos: 1 });
    const port = new FakeSdm120();
    const bridge = new ModbusBridge({
      port: port as unknown as ModbusPort,
      registers: SDM120_REGISTERS,
      broker: ext.mqtt,
      deviceId: id,
      pollMs: 3_600_000, // no periodic poll during the test: every sample comes from a connection
      log: () => {},
      now: Date.now,
      where: 'fake',
    });
    bridge.start();
    try {
      const telemetry = () => inbox.messages.filter((m) => m.topic === topicFor(id, 'telemetry'));
      await inbox.waitFor((m) => m.topic === topicFor(id, 'telemetry'), 5_000, 'first telemetry');
      await expect.poll(() => port.reads, { timeout: 5_000 }).toBe(2); // the start poll and the connect poll
      const mark = inbox.messages.length;
      const before = telemetry().length;

      // Take the bridge's session over with its own credentials: the broker drops it, it reconnects.
      const intruder = await clients.device(ext.mqtt);
      await inbox.waitFor(
        (m) => m.topic === topicFor(id, 'info') && inbox.messages.indexOf(m) >= mark,
        10_000,
        'info again after reconnecting',
      );
      await expect.poll(() => telemetry().length, { timeout: 10_000 }).toBeGreaterThan(before);
      expect(port.reads).toBe(3);
      const topics = inbox.messages.slice(mark).map((m) => m.topic);
      const infoAt = topics.indexOf(topicFor(id, 'info'));
      expect(topics.indexOf(topicFor(id, 'state'))).toBeGreaterThan(infoAt);
      expect(topics.lastIndexOf(topicFor(id, 'telemetry'))).toBeGreaterThan(infoAt);
      const sample = (telemetry().at(-1)!.json['samples'] as Record<string, number>[]).at(-1);
      expect(sample).toMatchObject({
        voltage: 230.12,
        current: 5.123,
        active_power: 1178.1,
        apparent_power: 1180,
        reactive_power: -12.3,
        power_factor: 0.999,
        energy: 942.242,
      });
      await intruder.endAsync(true);
    } finally {
      await bridge.close();
    }
  });
});
