// Device twins: the service's mirror of every meter, fed only by MQTT (so a virtual meter, a bridged
// serial meter and a real one look the same), plus command round trips with typed failures.

import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { commandToWire, decode, encode } from '../../firmware-protocol/mqtt/codec.ts';
import { parseTopic, TOPIC_ROOT, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand } from '../../simulator/meter/types.ts';
import { connectMqtt } from '../mqtt/connect.ts';
import { sampleRow } from '../store/sample-row.ts';
import type { SampleRow } from '../store/types.ts';
import type { CommandOutcome, Twin, TwinCommand } from './types.ts';

export interface TwinRegistryOptions {
  mqttUrl: string;
  username: string;
  password: string;
  /** Maps a device id to its storage key; undefined for a device the store does not know. */
  devicePk: (deviceId: string) => number | undefined;
  /** Where telemetry goes; resolves once durable. */
  ingest: (rows: SampleRow[]) => Promise<void>;
  commandTimeoutMs?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

/** [LEDGER-2] Twins never carry money: a credit without its ledger entry first would be money from nowhere. */
const NO_CREDIT_OVER_TWINS: CommandOutcome = {
  ok: false,
  reason: 'rejected',
  code: 'unsupported',
  message: '[LEDGER-2] a recharge goes through the ledger (World.recharge), never straight to a meter',
};

interface Pending {
  resolve: (outcome: CommandOutcome) => void;
  timer: NodeJS.Timeout;
  deviceId: string;
}

export class TwinRegistry {
  readonly #opts: TwinRegistryOptions;
  readonly #twins = new Map<string, Twin>();
  readonly #pending = new Map<string, Pending>();
  readonly #idPrefix = randomBytes(4).toString('hex');
  #seq = 0;
  #client: MqttClient | null = null;
  /** Malformed or unknown-device messages dropped, by reason [MC-9.2]. */
  readonly dropped = { malformed: 0, unknownDevice: 0, ingestFailed: 0 };
  readonly #ingesting = new Set<Promise<void>>();
  readonly #waiters = new Set<{ deviceId: string; online: boolean; resolve: (ok: boolean) => void }>();

  constructor(opts: TwinRegistryOptions) {
    this.#opts = opts;
  }

  async start(): Promise<void> {
    const client = await connectMqtt({
      url: this.#opts.mqttUrl,
      username: this.#opts.username,
      password: this.#opts.password,
      clientId: `meterstack-service-${this.#idPrefix}`,
      reconnectPeriod: 1000,
    });
    this.#client = client;
    client.on('message', (topic, payload) => this.#onMessage(topic, payload));
    client.on('error', (err) => this.#opts.log?.('warn', `twins: mqtt: ${err.message}`));
    // [MC-2.3] The service's session is clean, so QoS 1 on the broker→service leg guards nothing a TCP
    // connection does not: in-flight messages die with the session either way. The command path (state,
    // reply) takes QoS 0 and saves two PUBACKs per command; telemetry keeps QoS 1, as measured.
    await client.subscribeAsync(
      Object.fromEntries([
        ...(['info', 'availability', 'telemetry'] as const).map((c) => [
          `${TOPIC_ROOT}/+/${c}`,
          { qos: 1 as const },
        ]),
        ...(['state', 'reply'] as const).map((c) => [`${TOPIC_ROOT}/+/${c}`, { qos: 0 as const }]),
      ]),
    );
  }

  get(deviceId: string): Twin | undefined {
    return this.#twins.get(deviceId);
  }

  all(): IterableIterator<Twin> {
    return this.#twins.values();
  }

  /** Sends a command and waits for the meter's reply. */
  command(
    deviceId: string,
    command: TwinCommand,
    timeoutMs = this.#opts.commandTimeoutMs ?? 5000,
  ): Promise<CommandOutcome> {
    if ((command as MeterCommand).op === 'recharge') return Promise.resolve(NO_CREDIT_OVER_TWINS);
    const twin = this.#twins.get(deviceId);
    const client = this.#client;
    if (!twin?.online || !client?.connected) return Promise.resolve({ ok: false, reason: 'offline' });
    const id = `${this.#idPrefix}-${++this.#seq}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve({ ok: false, reason: 'timeout', afterMs: timeoutMs });
      }, timeoutMs);
      this.#pending.set(id, { resolve, timer, deviceId });
      client.publish(topicFor(deviceId, 'cmd'), encode('cmd', commandToWire(id, command)), { qos: 1 });
    });
  }

  /** Resolves true once the twin's availability equals `online`, false after `timeoutMs`. */
  waitForAvailability(deviceId: string, online: boolean, timeoutMs = 5000): Promise<boolean> {
    if ((this.#twins.get(deviceId)?.online ?? false) === online) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { deviceId, online, resolve: (ok: boolean) => resolve(ok) };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      waiter.resolve = (ok) => {
        clearTimeout(timer);
        resolve(ok);
      };
      this.#waiters.add(waiter);
    });
  }

  /** Resolves when every telemetry message received so far is durable in storage. */
  async settled(): Promise<void> {
    while (this.#ingesting.size > 0) await Promise.allSettled([...this.#ingesting]);
  }

  async stop(): Promise<void> {
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, reason: 'offline' });
      this.#pending.delete(id);
    }
    await this.settled();
    await this.#client?.endAsync();
    this.#client = null;
  }

  #twin(deviceId: string): Twin {
    let twin = this.#twins.get(deviceId);
    if (!twin) {
      twin = {
        deviceId,
        online: false,
        onlineSince: null,
        info: null,
        state: null,
        latest: null,
        lastSampleTs: 0,
      };
      this.#twins.set(deviceId, twin);
    }
    return twin;
  }

  #onMessage(topic: string, payload: Buffer): void {
    const parsed = parseTopic(topic);
    if (!parsed || parsed.channel === 'cmd') return;
    const decoded = decode(parsed.channel, payload);
    if (!decoded.ok) {
      this.dropped.malformed++;
      this.#opts.log?.('warn', `twins: dropped malformed message on ${topic}: ${decoded.error.message}`);
      return;
    }
    const twin = this.#twin(parsed.deviceId);
    const msg = decoded.value;
    switch (parsed.channel) {
      case 'info':
        twin.info = msg as Twin['info'];
        break;
      case 'state':
        twin.state = msg as Twin['state'];
        break;
      case 'availability': {
        const a = msg as { online: boolean; ts?: number };
        twin.online = a.online;
        twin.onlineSince = a.ts ?? null;
        if (!a.online) this.#failPending(parsed.deviceId);
        for (const w of this.#waiters) {
          if (w.deviceId === parsed.deviceId && w.online === a.online) {
            this.#waiters.delete(w);
            w.resolve(true);
          }
        }
        break;
      }
      case 'telemetry':
        this.#onTelemetry(twin, msg as { samples: NonNullable<Twin['latest']>[] });
        break;
      case 'reply':
        this.#onReply(
          msg as { id: string; ok: boolean; data?: unknown; error?: { code: string; message: string } },
        );
        break;
    }
  }

  #onTelemetry(twin: Twin, msg: { samples: NonNullable<Twin['latest']>[] }): void {
    const last = msg.samples[msg.samples.length - 1];
    if (last && (!twin.latest || last.ts >= twin.latest.ts)) twin.latest = last;
    const pk = this.#opts.devicePk(twin.deviceId);
    if (pk === undefined) {
      this.dropped.unknownDevice++;
      this.#opts.log?.('warn', `twins: telemetry from unknown device ${twin.deviceId} not stored`);
      return;
    }
    const rows: SampleRow[] = msg.samples.map((s) => sampleRow(pk, s));
    const done = this.#opts.ingest(rows).then(
      () => {
        if (last && last.ts > twin.lastSampleTs) twin.lastSampleTs = last.ts;
      },
      (err: Error) => {
        this.dropped.ingestFailed += rows.length;
        this.#opts.log?.(
          'error',
          `twins: storing ${rows.length} samples of ${twin.deviceId} failed: ${err.message}`,
        );
      },
    );
    this.#ingesting.add(done);
    void done.finally(() => this.#ingesting.delete(done));
  }

  #onReply(msg: {
    id: string;
    ok: boolean;
    data?: unknown;
    error?: { code: string; message: string };
  }): void {
    const pending = this.#pending.get(msg.id);
    if (!pending) return; // a late reply after a timeout, or a duplicate: nothing waits for it
    this.#pending.delete(msg.id);
    clearTimeout(pending.timer);
    if (msg.ok) pending.resolve({ ok: true, data: msg.data });
    else
      pending.resolve({
        ok: false,
        reason: 'rejected',
        code: msg.error?.code ?? 'unknown',
        message: msg.error?.message ?? '',
      });
  }

  #failPending(deviceId: string): void {
    for (const [id, p] of this.#pending) {
      if (p.deviceId !== deviceId) continue;
      clearTimeout(p.timer);
      this.#pending.delete(id);
      p.resolve({ ok: false, reason: 'offline' });
    }
  }
}
