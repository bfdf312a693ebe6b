// A hand-driven external meter for tests: a real mqtt.js client logged in with a device's credentials,
// speaking firmware-protocol/mqtt/CONTRACT.md by hand, so a test decides what it publishes and when it
// answers. It connects as MC-6.3 says (subscribe cmd, info, state, online, one sample) and answers
// every command honestly after `replyDelayMs`.

import type { MqttClient } from 'mqtt';
import { commandFromWire, encode, replyToWire } from '../../firmware-protocol/mqtt/codec.ts';
import type { ReplyPayload, SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { type Channel, PUBLISH_OPTIONS, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { createMeterClient } from '../../src/mqtt/connect.ts';

export interface ExternalMeterOptions {
  url: string;
  deviceId: string;
  password: string;
  balance: number;
  /** How long the meter takes to answer a command. */
  replyDelayMs?: number;
}

type State = Omit<StatePayload, 'v'>;

export class ExternalMeter {
  readonly deviceId: string;
  readonly client: MqttClient;
  /** Every command this meter received, in order. */
  readonly commands: { id: string; command: MeterCommand }[] = [];
  replyDelayMs: number;
  state: State;
  sample: SamplePayload;
  wifi = { ssid: 'HomeNet', password: 'secret123', rssi: -60, type: 'Primary' as const };

  private constructor(opts: ExternalMeterOptions, client: MqttClient) {
    this.deviceId = opts.deviceId;
    this.client = client;
    this.replyDelayMs = opts.replyDelayMs ?? 0;
    const ts = Date.now();
    this.state = {
      ts,
      mode: 'prepaid',
      relay_commanded: true,
      relay_state: true,
      eb_tariff: 800,
      dg_tariff: 2000,
      active_tariff: 1,
      balance: opts.balance,
      pg_enabled: false,
      wifi_type: 'Primary',
    };
    this.sample = { ts, energy: 12.5, active_power: 0, voltage: 230, balance: opts.balance };
    client.on('message', (topic, payload) => {
      if (topic === topicFor(this.deviceId, 'cmd')) this.#onCommand(payload);
    });
  }

  /** Connects and announces itself as MC-6.3 orders it; resolves once the broker has every publish. */
  static async start(opts: ExternalMeterOptions): Promise<ExternalMeter> {
    const client = createMeterClient({
      url: opts.url,
      deviceId: opts.deviceId,
      password: opts.password,
      reconnectPeriod: 0,
    });
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    const meter = new ExternalMeter(opts, client);
    await client.subscribeAsync(topicFor(opts.deviceId, 'cmd'), { qos: 1 });
    await meter.publish('info', {
      v: 1,
      device_id: opts.deviceId,
      model: 'basic',
      firmware: 'test-external/1.0',
      has_relay: true,
      telemetry_period_s: 60,
      properties: [
        { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
        { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
        { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
      ],
    });
    await meter.publishState();
    await meter.publish('availability', { v: 1, online: true, ts: Date.now() });
    await meter.publishSample(meter.sample);
    return meter;
  }

  /** Publishes an already valid payload on one of this meter's own topics, with the contract's flags. */
  async publish(channel: Channel, payload: unknown, opts: { retain?: boolean } = {}): Promise<void> {
    const text = encode(channel, payload as never);
    await this.client.publishAsync(topicFor(this.deviceId, channel), text, {
      ...PUBLISH_OPTIONS[channel],
      ...opts,
    });
  }

  publishState(): Promise<void> {
    return this.publish('state', { v: 1, ...this.state });
  }

  publishSample(sample: SamplePayload, opts: { retain?: boolean } = {}): Promise<void> {
    return this.publish('telemetry', { v: 1, samples: [sample] }, opts);
  }

  /** A reply that looks like this meter's own, for any id (what a forger sends). */
  publishReply(reply: ReplyPayload): Promise<void> {
    return this.publish('reply', reply);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.client.endAsync(true);
  }

  /** Set by stop(): a reply still in flight then dies with the connection, as on a real meter. */
  #stopped = false;

  #onCommand(payload: Buffer): void {
    const decoded = commandFromWire(payload);
    if (!decoded.ok) return;
    const { id, command } = decoded;
    this.commands.push({ id, command });
    const data = this.#apply(command);
    setTimeout(() => {
      this.publishReply(replyToWire(id, { ok: true, data } as never))
        .then(() => this.publishState())
        .catch((err: unknown) => {
          // Only a stopped meter may lose its reply; otherwise the test hears of it (unhandled).
          if (!this.#stopped) throw err;
        });
    }, this.replyDelayMs);
  }

  #apply(command: MeterCommand): unknown {
    const s = this.state;
    switch (command.op) {
      case 'set_relay':
        s.relay_commanded = command.on;
        s.relay_state = command.on;
        return undefined;
      case 'set_mode':
        s.mode = command.mode;
        return undefined;
      case 'set_tariff':
        if (command.slot === 'eb') s.eb_tariff = command.paise;
        else s.dg_tariff = command.paise;
        return undefined;
      case 'set_active_tariff':
        s.active_tariff = command.tariff;
        return undefined;
      case 'set_gateway':
        s.pg_enabled = command.enabled;
        return undefined;
      case 'set_wifi':
        this.wifi = { ...this.wifi, ssid: command.ssid, password: command.password };
        return undefined;
      case 'get_wifi':
        return { ...this.wifi };
      case 'recharge':
        s.balance += command.amount;
        return { applied: true, balance: s.balance };
      case 'read': {
        const { ts: _ts, ...rest } = s;
        return {
          readings: { ...this.sample, ts: Date.now(), balance: s.balance },
          state: { ts: Date.now(), ...rest },
        };
      }
    }
  }
}
