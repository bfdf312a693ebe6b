// A meter driven by hand: a real mqtt.js client with a device's own credentials that announces itself
// as MC-6.3 says, publishes exactly what a test tells it to, and answers commands through a handler
// the test sets (or holds them for the test to answer when it chooses).

import type { MqttClient } from 'mqtt';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { ServiceClients } from '../helpers/mqtt.ts';

export interface Cmd {
  v: 1;
  id: string;
  op: string;
  [k: string]: unknown;
}

export const sample = (ts: number, energy: number, balance = 0) => ({
  ts,
  energy,
  active_power: 100,
  voltage: 230,
  balance,
});

export const statePayload = (ts: number, over: Record<string, unknown> = {}) => ({
  v: 1,
  ts,
  mode: 'prepaid',
  relay_commanded: true,
  relay_state: true,
  eb_tariff: 800,
  dg_tariff: 2000,
  active_tariff: 1,
  balance: 5000,
  pg_enabled: false,
  wifi_type: 'Primary',
  ...over,
});

export const infoPayload = (deviceId: string) => ({
  v: 1,
  device_id: deviceId,
  model: 'basic',
  firmware: 'hand-1.0',
  has_relay: true,
  telemetry_period_s: 60,
  properties: [
    { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
    { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
    { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
  ],
});

export class HandMeter {
  readonly commands: Cmd[] = [];
  /** Answers a command; return null to leave it unanswered (the test answers with `reply`). */
  onCommand: (cmd: Cmd) => Record<string, unknown> | null = () => null;

  private constructor(
    readonly id: string,
    readonly client: MqttClient,
  ) {
    client.on('message', (_topic, payload) => {
      const cmd = JSON.parse(payload.toString('utf8')) as Cmd;
      this.commands.push(cmd);
      const answer = this.onCommand(cmd);
      if (answer) void this.reply(answer);
    });
  }

  /** Connects and announces info, state and online [MC-6.3]. */
  static async connect(
    clients: ServiceClients,
    creds: { username: string; password: string },
    state: Record<string, unknown>,
  ): Promise<HandMeter> {
    const client = await clients.device(creds);
    const m = new HandMeter(creds.username, client);
    await client.subscribeAsync(topicFor(m.id, 'cmd'), { qos: 1 });
    await m.publish('info', infoPayload(m.id), true);
    await m.publish('state', state, true);
    await m.publish('availability', { v: 1, online: true, ts: state.ts }, true);
    return m;
  }

  publish(
    channel: 'info' | 'state' | 'availability' | 'telemetry' | 'reply',
    payload: unknown,
    retain = false,
  ): Promise<unknown> {
    return this.client.publishAsync(topicFor(this.id, channel), JSON.stringify(payload), { qos: 1, retain });
  }

  reply(payload: Record<string, unknown>): Promise<unknown> {
    return this.publish('reply', { v: 1, ...payload });
  }

  /** The next command to arrive (or the first one not yet taken). */
  async nextCommand(timeoutMs = 3_000, after = 0): Promise<Cmd> {
    const deadline = Date.now() + timeoutMs;
    while (this.commands.length <= after) {
      if (Date.now() > deadline) throw new Error(`${this.id}: no command within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return this.commands[after]!;
  }

  /** Publishes offline and disconnects [MC-6.4]. */
  async goOffline(ts: number): Promise<void> {
    await this.publish('availability', { v: 1, online: false, ts }, true);
    await this.client.endAsync();
  }
}

/** Polls until `check` holds (a busy machine is slow: generous default). */
export async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
