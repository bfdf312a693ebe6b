// The meter's half of the MQTT contract, once (firmware-protocol/mqtt/CONTRACT.md): the connection
// with its will [MC-6.2], the announcement [MC-6.3], the goodbye [MC-6.4], the telemetry outbox
// [MC-7.6], commands in and replies out [MC-8], and reconnection. An adapter (a virtual meter, a trace,
// a serial line, Modbus) says what the meter is and answers its commands; see README.md.

import type { MqttClient } from 'mqtt';
import { encode, replyToWire, type WireReply } from '../../firmware-protocol/mqtt/codec.ts';
import type { DecodeError } from '../../firmware-protocol/mqtt/errors.ts';
import type { InfoPayload, PayloadOf, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { type Channel, PUBLISH_OPTIONS, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand, Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { createMeterClient } from '../mqtt/connect.ts';
import { type Answer, Commands } from './commands.ts';
import { type LinkEvent, refusedLogin, SERVER_UNAVAILABLE } from './events.ts';
import { Outbox } from './outbox.ts';
import { type BackoffOptions, Retries } from './reconnect.ts';
import { watchService } from './service-watch.ts';

export type MeterChannel = Exclude<Channel, 'cmd'>;

/** [MC-6.8] An offline's `reason` is at most this long. */
const MAX_REASON = 200;

export interface MeterLinkOptions {
  url: string;
  /** The device id: client id, topics [MC-1] and, by default, the username [MC-2.5]. */
  deviceId: string;
  username?: string;
  password: string;
  connectTimeout?: number;
  /** Meter time, for the `ts` of availability and state. */
  now: () => number;
  /** What the meter is [MC-4]; null while not known (then the link does not announce). */
  info: () => InfoPayload | null;
  /** Its state now [MC-5]; null while not known. */
  state: (now: number) => StatePayload | null;
  /** A decoded command [MC-8]; see Answer. */
  answer: (id: string, command: MeterCommand) => Answer;
  /** [MC-8.8] Answer a repeated id from memory (this many newest) instead of asking again. 0: the meter does it. */
  rememberReplies?: number;
  /** After each announcement and its buffered telemetry: take a present reading [MC-6.7]. */
  onAnnounced?: () => void;
  /** While true the meter publishes nothing, yet stays connected (a silenced meter). */
  muted?: () => boolean;
  /** Sends only full telemetry messages until drained() or flush(true) asks for the rest. */
  holdPartial?: boolean;
  /** Samples made by a pure meter are valid by construction [M-13]: spare them the codec's check. */
  trustedSamples?: boolean;
  onEvent?: (event: LinkEvent) => void;
  /** Every publish, for a recorder. */
  onPublish?: (topic: string, payload: unknown) => void;
  /** Wait before another try after CONNACK "server unavailable" (default 2 s). */
  retryUnavailableMs?: number;
  /** What availability says until setAvailable (default true): a bridge whose meter has not answered yet says false. */
  available?: boolean;
  /** Retry a lost or failed connection after waits that double up to a cap, not every second (decision 171). */
  backoff?: BackoffOptions;
  /** [MC-12.2] Wait this long after each connection for the service announcement (events `service`, `service_missing`). */
  awaitServiceMs?: number;
}

export class MeterLink {
  readonly #o: MeterLinkOptions;
  readonly #outbox: Outbox;
  readonly #commands: Commands;
  #client: MqttClient | null = null;
  #subscribed = false;
  #announced = false;
  #available = true;
  /** [MC-6.8] Why availability says offline, when the adapter said. */
  #offlineReason: string | undefined;
  /** With `backoff`: the link's own retries (mqtt.js' are off). */
  readonly #retries: Retries | null;
  #connecting: Promise<void> | null = null;
  #onAnnounce: (() => void) | null = null;
  #waiters: { below: number; resolve: () => void }[] = [];
  /** A flush is due on the next turn of the event loop (pushSoon). */
  #soon = false;
  /** Samples acknowledged by the broker. */
  published = 0;
  /** The last error of the connection, e.g. a refused login. */
  lastError: Error | null = null;

  constructor(opts: MeterLinkOptions) {
    this.#o = opts;
    this.#available = opts.available ?? true;
    this.#retries = opts.backoff ? new Retries(opts.backoff, (e) => this.#emit(e)) : null;
    this.#outbox = new Outbox({
      onOverflow: (dropped, droppedSoFar) => this.#emit({ type: 'overflow', dropped, droppedSoFar }),
    });
    this.#commands = new Commands({
      answer: opts.answer,
      remember: opts.rememberReplies ?? 0,
      reply: (id, reply) => this.reply(id, reply),
      reject: (payload) => this.publish('reply', payload),
      emit: (event) => this.#emit(event),
    });
  }

  get deviceId(): string {
    return this.#o.deviceId;
  }
  /** Connected and subscribed to cmd [MC-6.3]. */
  get ready(): boolean {
    return this.#subscribed && (this.#client?.connected ?? false);
  }
  /** Announced online on this connection [MC-6.3] and speaking (not muted). */
  get connected(): boolean {
    return this.#announced && (this.#client?.connected ?? false) && !this.#muted();
  }
  /** Announced on the present connection [MC-6.3] (it may be muted). */
  get announced(): boolean {
    return this.#announced && this.#client !== null;
  }
  /** A client exists (connected, or trying to be). */
  get started(): boolean {
    return this.#client !== null;
  }
  /** Queued and unacknowledged samples. */
  get pending(): number {
    return this.#outbox.pending;
  }
  /** ts of the newest sample ever queued. */
  get lastSampleTs(): number {
    return this.#outbox.lastTs;
  }

  /** Connects, then announces [MC-6.3] on this and every reconnection. Resolves once announced or once the first attempt ended. */
  connect(): Promise<void> {
    if (this.#client) return this.#connecting ?? Promise.resolve();
    const o = this.#o;
    const client = createMeterClient({
      url: o.url,
      deviceId: o.deviceId,
      username: o.username,
      password: o.password,
      ...(o.connectTimeout === undefined ? {} : { connectTimeout: o.connectTimeout }),
      ...(this.#retries ? { reconnectPeriod: 0 } : {}), // the link retries itself (Retries)
    });
    this.#client = client;
    const cmdTopic = topicFor(o.deviceId, 'cmd');
    client.on('connect', () => {
      this.#retries?.connected();
      void this.#onConnect(client);
    });
    client.on('message', (topic, payload, packet) => {
      if (topic !== cmdTopic) return; // [MC-12.2] the service announcement is service-watch.ts's
      if (packet.retain) return; // [MC-8.1] a retained command is ignored
      try {
        this.#commands.receive(payload);
      } catch (error) {
        this.#emit({ type: 'command_failed', error: error as Error }); // [SP-6.1] the meter stays up
      }
    });
    client.on('error', (error) => this.#onError(client, error));
    client.on('close', () => {
      if (this.#client !== client) return;
      const ready = this.#subscribed;
      const announced = this.#announced;
      this.#subscribed = false;
      this.#announced = false;
      this.#emit({ type: 'lost', ready, announced });
      this.#wake();
      this.#retries?.closed(client, () => this.#client === client);
    });
    const connecting = new Promise<void>((resolve) => {
      this.#onAnnounce = resolve;
      client.once('close', () => resolve());
    });
    this.#connecting = connecting;
    void connecting.then(() => {
      if (this.#connecting === connecting) this.#connecting = null;
    });
    return connecting;
  }

  /**
   * [MC-6.3] info, state, availability, then buffered telemetry [MC-7.6], then a present reading
   * [MC-6.7]; on the present connection, once subscribed and the meter is known. `available` sets what
   * availability says (default: as it is). Resolves once the broker has the availability.
   */
  announce(available = this.#available): Promise<void> {
    this.#available = available;
    const info = this.#o.info();
    const state = info && this.#o.state(this.#o.now());
    if (!this.ready || !info || !state) return Promise.resolve();
    this.publish('info', info);
    this.publish('state', state);
    this.#announced = true;
    const online = this.#publishAvailability();
    this.#emit({ type: 'announced' });
    const announced = this.#onAnnounce;
    this.#onAnnounce = null;
    if (announced) void online.then(announced); // connect() resolves once the broker has it
    this.flush(true);
    this.#o.onAnnounced?.();
    return online;
  }

  /**
   * [MC-6.1] What availability says; published at once when announced. Telemetry waits while offline.
   * `reason` [MC-6.8]: why it went offline, in the meter's words (e.g. "serial port closed").
   */
  setAvailable(online: boolean, reason?: string): void {
    if (online === this.#available) return;
    this.#available = online;
    this.#offlineReason = online || !reason ? undefined : reason.slice(0, MAX_REASON);
    if (this.#announced) void this.#publishAvailability();
    if (online) this.flush();
  }

  /** Queues a sample [MC-7.1]; sent at once while announced, kept while not [MC-7.6]. */
  push(sample: Sample): void {
    this.#outbox.push(sample);
    this.flush();
  }

  /** Queues a sample to go with others: flush() sends them, in as few messages as [MC-7.2] allows. */
  queue(sample: Sample): void {
    this.#outbox.push(sample);
  }

  /** Samples taken in one go leave together: queue now, send on the next turn of the event loop. */
  pushSoon(sample: Sample): void {
    this.#outbox.push(sample);
    if (this.#soon) return;
    this.#soon = true;
    setImmediate(() => {
      this.#soon = false;
      this.flush();
    });
  }

  /** Publishes what may go now: [MC-7.2] messages of at most MAX_SAMPLES, ascending [MC-7.3]. */
  flush(partial = !this.#o.holdPartial || this.#waiters.some((w) => w.below === 0)): void {
    const client = this.#client;
    if (!client?.connected || !this.#announced || !this.#available || this.#muted()) return;
    const topic = topicFor(this.#o.deviceId, 'telemetry');
    for (let batch = this.#outbox.take(partial); batch !== null; batch = this.#outbox.take(partial)) {
      const sent = batch;
      let text: string;
      try {
        text = this.#o.trustedSamples
          ? JSON.stringify({ v: 1, samples: sent })
          : encode('telemetry', { v: 1, samples: sent });
      } catch (error) {
        this.#outbox.discard(sent); // a bug, not input: it costs a message, not the process
        this.#emit({ type: 'telemetry_dropped', samples: sent.length, error: error as Error });
        continue;
      }
      this.#o.onPublish?.(topic, JSON.parse(text));
      client.publish(topic, text, PUBLISH_OPTIONS.telemetry, (err) => {
        if (err) this.#emit({ type: 'publish_failed', channel: 'telemetry', error: err });
        if (!this.#outbox.settle(sent, err ?? undefined)) return; // put back already: the link dropped
        if (!err) this.published += sent.length;
        this.flush();
        this.#wake();
      });
    }
    this.#wake();
  }

  /** Resolves once at most `below` samples are unacknowledged (0: all), or at once when not connected. */
  drained(below = 0): Promise<void> {
    const connecting = this.#connecting;
    if (connecting) return connecting.then(() => this.drained(below));
    this.flush(below === 0 || !this.#o.holdPartial);
    if (this.#outbox.pending <= below || !this.connected) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ below, resolve }));
  }

  /** Publishes on one of the meter's channels with its QoS and retain flag [MC-2.3], validated. */
  publish<C extends MeterChannel>(channel: C, payload: PayloadOf<C>, done?: (err?: Error) => void): void {
    this.publishRaw(channel, encode(channel, payload), done);
  }

  /** Publishes text as it is (a payload encoded before, or deliberately broken by a fault). */
  publishRaw(channel: MeterChannel, text: string, done?: (err?: Error) => void): void {
    const client = this.#client;
    if (!client || this.#muted()) {
      done?.();
      return;
    }
    const topic = topicFor(this.#o.deviceId, channel);
    if (this.#o.onPublish) this.#o.onPublish(topic, safeParse(text));
    client.publish(topic, text, PUBLISH_OPTIONS[channel], (err) => {
      if (err) this.#emit({ type: 'publish_failed', channel, error: err });
      done?.(err ?? undefined);
    });
  }

  /** [MC-8.5] The reply to command `id`. */
  reply(id: string, reply: WireReply): void {
    this.publish('reply', replyToWire(id, reply));
  }

  /** [MC-6.4] Goes offline on purpose: offline (with `reason`, MC-6.8), then DISCONNECT (which discards the will). */
  async close(opts: { drain?: boolean; goodbye?: boolean; reason?: string } = {}): Promise<void> {
    this.#retries?.stop();
    const client = this.#client;
    if (!client) return;
    if (opts.drain) await this.drained();
    this.#client = null;
    this.#subscribed = false;
    this.#announced = false;
    if (client.connected && (opts.goodbye ?? true)) {
      const reason = opts.reason ? { reason: opts.reason.slice(0, MAX_REASON) } : {};
      const goodbye = encode('availability', { v: 1, online: false, ts: this.#o.now(), ...reason });
      const topic = topicFor(this.#o.deviceId, 'availability');
      this.#o.onPublish?.(topic, JSON.parse(goodbye));
      await new Promise<void>((resolve) =>
        client.publish(topic, goodbye, PUBLISH_OPTIONS.availability, () => resolve()),
      );
    }
    // Not connected: forced, since a non-forced end waits for unacknowledged packets that, with no
    // reconnection left to send them again, would never be acknowledged.
    await client.endAsync(!client.connected);
    this.#wake();
  }

  /** The connection dies without DISCONNECT, so the broker fires the will [MC-6.2]; what was in flight is sent again later [MC-7.6]. */
  drop(): void {
    this.#retries?.stop();
    const client = this.#client;
    if (!client) return;
    this.#client = null;
    this.#subscribed = false;
    this.#announced = false;
    this.#outbox.requeueInFlight();
    client.end(true);
    this.#onAnnounce?.();
    this.#onAnnounce = null;
  }

  /** [MC-2.4] Clears its retained info, state and availability with empty retained payloads. */
  async clearRetained(): Promise<void> {
    const client = this.#client;
    if (!client?.connected) return;
    const channels = ['info', 'state', 'availability'] as const;
    await Promise.all(
      channels.map((c) =>
        client
          .publishAsync(topicFor(this.#o.deviceId, c), '', { qos: 1, retain: true })
          .catch(() => undefined),
      ),
    );
  }

  /** Forgets every queued sample (they belong to a world undone) and announces again when connected. */
  reset(): void {
    this.#outbox.clear();
    this.#announced = false;
    if (this.ready) void this.announce();
  }

  async #onConnect(client: MqttClient): Promise<void> {
    const cmd = topicFor(this.#o.deviceId, 'cmd');
    try {
      await client.subscribeAsync(cmd, { qos: 1 }); // [MC-6.3] [MC-2.2] first, and only its own
    } catch (error) {
      this.#emit({ type: 'subscribe_failed', topic: cmd, error: error as Error });
      return;
    }
    if (this.#client !== client) return; // dropped meanwhile
    this.#subscribed = true;
    this.#emit({ type: 'ready' });
    if (this.#o.awaitServiceMs !== undefined)
      watchService(client, this.#o.awaitServiceMs, (e) => this.#emit(e));
    try {
      await this.announce();
    } catch (error) {
      // an async path: a throw here would be an unhandled rejection, which ends the process [SP-6.8]
      this.#emit({ type: 'announce_failed', error: error as Error });
    }
  }

  #onError(client: MqttClient, error: Error & { code?: unknown }): void {
    this.lastError = error;
    const refused = refusedLogin(error);
    const code = typeof error.code === 'number' ? error.code : undefined;
    this.#retries?.failed(error, code !== undefined);
    if (!refused && code === SERVER_UNAVAILABLE) {
      // mqtt.js does not reconnect after a refused CONNACK; this refusal is the broker's own trouble.
      const ms = this.#o.retryUnavailableMs ?? 2_000;
      this.#emit({ type: 'unavailable', retryMs: ms });
      setTimeout(() => {
        if (this.#client === client && !client.disconnecting && !client.connected) client.reconnect();
      }, ms).unref();
      return;
    }
    this.#emit({ type: 'error', error, refused });
  }

  #publishAvailability(): Promise<void> {
    const reason = !this.#available && this.#offlineReason ? { reason: this.#offlineReason } : {};
    const payload = { v: 1, online: this.#available, ts: this.#o.now(), ...reason } as const;
    return new Promise((resolve) => this.publish('availability', payload, () => resolve()));
  }

  #muted(): boolean {
    return this.#o.muted?.() ?? false;
  }

  #wake(): void {
    const connected = this.connected;
    const pending = this.#outbox.pending;
    this.#waiters = this.#waiters.filter((w) => {
      if (connected && pending > w.below) return true;
      w.resolve();
      return false;
    });
  }

  #emit(event: LinkEvent): void {
    this.#o.onEvent?.(event);
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export type { Answer, DecodeError, LinkEvent };
