// The serial bridge's edges for hardening tests: the real meterstack broker (src/broker, with its login
// and topic rules) on an ephemeral port, a socat pty pair, the test playing the meter on one end with raw
// lines, and an MQTT client playing the service (it may publish cmd, MC-2.3) that records what the
// bridge publishes. No fixed ports, no shared state: each test file makes its own.

import { connectAsync, type MqttClient } from 'mqtt';
import type { Frame, HelloFrame, StateFrame } from '../../firmware-protocol/serial/frames.ts';
import { type Broker, startBroker } from '../../src/broker/index.ts';
import { until } from '../bridge/helpers.ts';

/** The test's end of a serial line: one class for every serial test (test/bridge/wire.ts). */
export { Wire } from '../bridge/wire.ts';

export const DEVICE = 'MTR-HARD-1';
export const PASSWORD = 'meter-secret';
const SERVICE = { username: 'service', password: 'service-secret' };

/** The real broker, admitting the one meter and a service login. */
export function startTestBroker(): Promise<Broker> {
  return startBroker({
    port: 0,
    authenticate: (username, password) => {
      if (username === DEVICE && password === PASSWORD) return { kind: 'meter', deviceId: DEVICE };
      if (username === SERVICE.username && password === SERVICE.password) return { kind: 'service' };
      return null;
    },
  });
}

export interface Published {
  channel: string;
  payload: Record<string, unknown>;
}

/** The service's side of MQTT: sees everything the meter publishes, sends cmds. */
export class ServiceSide {
  readonly messages: Published[] = [];
  constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload) => {
      const channel = topic.split('/')[3] ?? '';
      if (payload.length === 0) return;
      try {
        this.messages.push({ channel, payload: JSON.parse(payload.toString('utf8')) });
      } catch {
        this.messages.push({ channel, payload: { unparsable: payload.toString('latin1') } });
      }
    });
  }

  static async connect(url: string): Promise<ServiceSide> {
    const client = await connectAsync(url, { ...SERVICE, clientId: 'svc-test', reconnectPeriod: 0 });
    await client.subscribeAsync(`meterstack/v1/${DEVICE}/+`, { qos: 1 });
    return new ServiceSide(client);
  }

  /** Publishes a raw cmd payload (not retained unless told). */
  async cmd(payload: string | Buffer | object, retain = false): Promise<void> {
    const body = typeof payload === 'object' && !Buffer.isBuffer(payload) ? JSON.stringify(payload) : payload;
    await this.client.publishAsync(`meterstack/v1/${DEVICE}/cmd`, body, { qos: 1, retain });
  }

  of(channel: string, from = 0): Record<string, unknown>[] {
    return this.messages
      .slice(from)
      .filter((m) => m.channel === channel)
      .map((m) => m.payload);
  }

  async reply(id: string, timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const find = () => this.of('reply').find((r) => r['id'] === id);
    await until(() => find() !== undefined, timeoutMs, `the reply to ${id}`);
    return find()!;
  }

  /** Every sample published on telemetry, in arrival order. */
  samples(): { ts: number; energy: number }[] {
    return this.of('telemetry').flatMap((t) => t['samples'] as { ts: number; energy: number }[]);
  }

  async waitOnline(online: boolean, from = 0, timeoutMs = 5_000): Promise<void> {
    await until(
      () => this.of('availability', from).some((a) => a['online'] === online),
      timeoutMs,
      `availability online=${online}`,
    );
  }

  close(): Promise<void> {
    return this.client.endAsync(true);
  }
}

export const hello = (over: Partial<HelloFrame> = {}): HelloFrame => ({
  type: 'HELLO',
  proto: 1,
  device_id: DEVICE,
  model: 'basic',
  firmware: 'hard-1',
  has_relay: true,
  telemetry_period_s: 1,
  keepalive_s: 5,
  properties: [
    { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
    { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
    { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
  ],
  ...over,
});

export const state = (ts: number, over: Partial<StateFrame> = {}): StateFrame => ({
  type: 'STATE',
  ts,
  mode: 'prepaid',
  relay_commanded: true,
  relay_state: true,
  eb_tariff: 800,
  dg_tariff: 2000,
  active_tariff: 1,
  balance: 1000,
  pg_enabled: false,
  wifi_type: 'Primary',
  ...over,
});

export const tel = (ts: number, energy: number): Frame => ({
  type: 'TEL',
  ts,
  energy,
  active_power: 100,
  voltage: 230,
  balance: 900,
});
