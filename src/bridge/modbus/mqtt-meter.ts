// The MQTT side of a bridged meter: it speaks the contract (firmware-protocol/mqtt/CONTRACT.md) for a
// device whose readings and answers come from elsewhere (here, a Modbus poll). Rule numbers cite the contract.

import type { MqttClient } from 'mqtt';
import {
  commandFromWire,
  encode,
  replyToWire,
  stateToWire,
  type WireReply,
} from '../../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload, ReplyPayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import { MAX_SAMPLES } from '../../../firmware-protocol/mqtt/schemas.ts';
import { topicFor } from '../../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand, ReportedState, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { createMeterClient } from '../../mqtt/connect.ts';
import { refusedLogin } from '../mqtt-session.ts';

export type Log = (level: 'info' | 'warn' | 'error', msg: string) => void;

export interface MqttMeterOptions {
  broker: { url: string; username: string; password: string };
  deviceId: string;
  info: InfoPayload;
  state: (ts: number) => ReportedState;
  /** Answers one command; called once per command id [MC-8.8]. */
  answer: (command: MeterCommand) => Promise<WireReply>;
  now: () => number;
  log: Log;
  /**
   * [MC-6.7] Called after every (re)connection is announced: the device should take a reading now and
   * pass it to addSample, so the service has present readings at once.
   */
  onConnected?: () => void;
  /** [SP-7.5] The broker refused the login for good (wrong password, ...); the command line exits 2. */
  onFatal?: (reason: string) => void;
}

/** [MC-8.8] Replies kept for repeated command ids. */
const REMEMBERED_REPLIES = 64;
/** Samples kept while the broker is unreachable [MC-7.6]; the oldest are dropped beyond this. */
const OUTBOX_LIMIT = 10_000;

export class MqttMeter {
  readonly #opts: MqttMeterOptions;
  readonly #client: MqttClient;
  #announced = false;
  #online = false;
  #outbox: Sample[] = [];
  #lastTs = -1;
  readonly #replies = new Map<string, Promise<ReplyPayload>>();

  constructor(opts: MqttMeterOptions) {
    this.#opts = opts;
    const { deviceId, broker } = opts;
    this.#client = createMeterClient({
      url: broker.url,
      deviceId,
      username: broker.username,
      password: broker.password,
    });
    this.#client.on('connect', () => void this.#announce());
    this.#client.on('close', () => {
      if (this.#announced) opts.log('warn', `${deviceId}: mqtt: connection lost, reconnecting`);
      this.#announced = false;
    });
    this.#client.on('error', (err) => {
      const fatal = refusedLogin(err);
      if (!fatal) return opts.log('warn', `${deviceId}: mqtt: ${err.message}`);
      opts.log('error', `${deviceId}: mqtt ${broker.url}: login refused: ${fatal}`);
      opts.onFatal?.(`the broker at ${broker.url} refused the login: ${fatal}`);
    });
    this.#client.on('message', (_topic, payload, packet) => {
      if (packet.retain) return; // [MC-8.1] a retained command is ignored
      this.#onCommand(payload).catch((err: unknown) =>
        opts.log('error', `${deviceId}: command handling failed: ${(err as Error).stack ?? err}`),
      );
    });
  }

  /** Reports the meter online or offline [MC-6.1]; sent at once when connected, else at the next connection. */
  setOnline(online: boolean): void {
    if (online === this.#online) return;
    this.#online = online;
    if (this.#announced) this.#publishAvailability();
    if (online) this.#flush();
  }

  /** Queues a sample [MC-7.1]; published at once while online, kept while not [MC-7.6]. */
  addSample(sample: Sample): void {
    if (sample.ts <= this.#lastTs) {
      // [MC-7.3] ts strictly ascends: the system clock stepped back.
      this.#opts.log(
        'warn',
        `${this.#opts.deviceId}: sample at ${sample.ts} not after ${this.#lastTs}; dropped`,
      );
      return;
    }
    this.#lastTs = sample.ts;
    this.#outbox.push(sample);
    if (this.#outbox.length > OUTBOX_LIMIT) {
      this.#outbox.shift();
      this.#opts.log('warn', `${this.#opts.deviceId}: broker unreachable, dropped the oldest sample`);
    }
    this.#flush();
  }

  /** [MC-6.4] Goes offline on purpose: an explicit offline, then DISCONNECT (which discards the will). */
  async close(): Promise<void> {
    const client = this.#client;
    if (client.connected) {
      try {
        await client.publishAsync(
          topicFor(this.#opts.deviceId, 'availability'),
          encode('availability', { v: 1, online: false, ts: this.#opts.now() }),
          { qos: 1, retain: true },
        );
      } catch {
        // closing anyway: the will covers a lost goodbye
      }
    }
    await client.endAsync();
  }

  /**
   * [MC-6.3] cmd subscription first, then info, state, availability, then buffered telemetry; then
   * [MC-6.7] a reading of the present values (onConnected).
   */
  async #announce(): Promise<void> {
    const { deviceId, log, info, state, now } = this.#opts;
    try {
      await this.#client.subscribeAsync(topicFor(deviceId, 'cmd'), { qos: 1 });
    } catch (err) {
      log('warn', `${deviceId}: mqtt: subscribe failed: ${(err as Error).message}`);
      return;
    }
    this.#publish('info', encode('info', info), true);
    this.#publish('state', encode('state', stateToWire(state(now()))), true);
    this.#announced = true;
    this.#publishAvailability();
    log('info', `${deviceId}: mqtt: connected to ${this.#opts.broker.url}`);
    this.#flush();
    this.#opts.onConnected?.();
  }

  #publishAvailability(): void {
    const payload = encode('availability', { v: 1, online: this.#online, ts: this.#opts.now() });
    this.#publish('availability', payload, true);
  }

  /** Telemetry goes out only while the meter is announced and online [MC-7.1]; batches of at most 1000 [MC-7.2]. */
  #flush(): void {
    if (!this.#announced || !this.#online) return;
    while (this.#outbox.length > 0) {
      const batch = this.#outbox.splice(0, MAX_SAMPLES);
      this.#publish('telemetry', encode('telemetry', { v: 1, samples: batch }), false);
    }
  }

  async #onCommand(payload: Buffer): Promise<void> {
    const { deviceId, log } = this.#opts;
    const parsed = commandFromWire(payload);
    if (!parsed.ok) {
      log('warn', `${deviceId}: bad command: [${parsed.error.rule}] ${parsed.error.message}`);
      // [MC-9.1] a readable id gets the codec's rejection; [MC-9.2] otherwise nothing is published.
      if (parsed.reply) this.#publish('reply', encode('reply', parsed.reply), false);
      return;
    }
    const { id, command } = parsed;
    let reply = this.#replies.get(id);
    if (reply) {
      log('info', `${deviceId}: command ${id} (${command.op}) repeated: answering again [MC-8.8]`);
    } else {
      reply = this.#opts
        .answer(command)
        .catch((err: unknown): WireReply => {
          log('error', `${deviceId}: ${command.op} ${id} failed: ${(err as Error).stack ?? err}`);
          return { ok: false, error: { code: 'busy', message: `bridge error: ${(err as Error).message}` } };
        })
        .then((r) => replyToWire(id, r));
      this.#remember(id, reply);
    }
    const wire = await reply;
    if (!wire.ok) log('info', `${deviceId}: ${command.op} ${id}: ${wire.error.code}: ${wire.error.message}`);
    this.#publish('reply', encode('reply', wire), false);
  }

  #remember(id: string, reply: Promise<ReplyPayload>): void {
    this.#replies.set(id, reply);
    if (this.#replies.size > REMEMBERED_REPLIES) {
      const oldest = this.#replies.keys().next().value as string;
      this.#replies.delete(oldest);
    }
  }

  #publish(
    channel: 'info' | 'state' | 'availability' | 'telemetry' | 'reply',
    payload: string,
    retain: boolean,
  ): void {
    this.#client.publish(topicFor(this.#opts.deviceId, channel), payload, { qos: 1, retain }, (err) => {
      if (err)
        this.#opts.log('warn', `${this.#opts.deviceId}: mqtt: publish on ${channel} failed: ${err.message}`);
    });
  }
}
