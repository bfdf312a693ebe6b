// The firmware of a trace-driven meter: the pure meter (simulator/meter, rule M-14) on a real MQTT
// connection, speaking the contract exactly as a virtual or real meter does [MC-6.3] [MC-7] [MC-8].
// The replay feeds it trace entries; the service may send it commands at any time. All behaviour is
// in `step`; this file moves events in and effects out, batching telemetry up to 1000 samples.

import type { MqttClient } from 'mqtt';
import { commandFromWire, encode, replyToWire, stateToWire } from '../../../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../../../firmware-protocol/mqtt/topics.ts';
import type { CommandReply, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { PROPERTY_CATALOGUE, reportedState, step } from '../../../simulator/meter/index.ts';
import type { MeterEvent, MeterState, TraceReadings } from '../../../simulator/meter/types.ts';
import { createMeterClient } from '../../mqtt/connect.ts';

/** [MC-7.2] */
export const MAX_SAMPLES_PER_MESSAGE = 1000;
const MAX_IN_FLIGHT = 8;

export interface TraceFirmwareOptions {
  state: MeterState;
  mqttUrl: string;
  /** The device's MQTT password; the username is its id [MC-2.5]. */
  password: string;
  /** Meter time: where the replay is in the trace. */
  now: () => number;
  /** The nominal telemetry period it announces in `info` [MC-4.2]. */
  periodS: number;
  /** Hold samples until a full message's worth is queued (instant replay), rather than send each at once. */
  batch: boolean;
  log?: (msg: string) => void;
}

export class TraceFirmware {
  #state: MeterState;
  readonly #opts: TraceFirmwareOptions;
  #client: MqttClient | null = null;
  #announced = false;
  #outbox: Sample[] = [];
  #inFlight = 0;
  #waiters: { below: number; resolve: () => void }[] = [];
  /** What the trace last said the meter measures; it holds until the next sample [M-17]. */
  #readings: TraceReadings | null = null;
  /** ts of the newest sample queued: never two at one instant [MC-7.3]. */
  #lastTs = Number.NEGATIVE_INFINITY;
  /** The trace has a sample at the instant of this connection: it serves as the connect sample. */
  #sampleFollows = false;
  /** Samples acknowledged by the broker. */
  published = 0;

  constructor(opts: TraceFirmwareOptions) {
    this.#opts = opts;
    this.#state = opts.state;
  }

  get state(): MeterState {
    return this.#state;
  }
  get online(): boolean {
    return this.#client !== null;
  }
  /** Samples produced but not yet acknowledged by the broker. */
  get backlog(): number {
    return this.#outbox.length + this.#inFlight;
  }

  /** Applies one event at meter time `now`; returns the reply of a command. */
  apply(event: MeterEvent, now: number): CommandReply | undefined {
    const { state, effects } = step(this.#state, event, now);
    this.#state = state;
    if (event.type === 'sample') this.#readings = event.readings;
    let reply: CommandReply | undefined;
    for (const effect of effects) {
      if (effect.type === 'telemetry') this.#queue(effect.sample);
      else if (effect.type === 'state')
        this.#publish('state', encode('state', stateToWire(effect.state)), true);
      else if (effect.type === 'reply') reply = effect.reply;
    }
    this.#flush(false);
    return reply;
  }

  #queue(sample: Sample): void {
    if (sample.ts <= this.#lastTs) return; // [MC-6.7] a connect sample at the instant of the last one
    this.#lastTs = sample.ts;
    this.#outbox.push(sample);
  }

  /**
   * Connects and announces itself [MC-6.3], then, on this and every automatic reconnection, publishes
   * its present readings [MC-6.7]: the last trace
   * sample's readings with the registers as they stand. Not when it has read nothing yet, nor when the
   * trace has a sample at this very instant (`sampleFollows`): that sample is the true reading, and a
   * connect sample before it would take its place in the service's history [MC-7.6].
   * Resolves once online (or rejects: bad credentials).
   */
  async connect(opts: { sampleFollows?: boolean } = {}): Promise<void> {
    if (this.#client) return;
    this.#sampleFollows = opts.sampleFollows ?? false;
    const id = this.#state.deviceId;
    const client = createMeterClient({
      url: this.#opts.mqttUrl,
      deviceId: id,
      password: this.#opts.password,
    });
    this.#client = client;
    client.on('message', (_t, payload, packet) => {
      if (!packet.retain) this.#onCommand(payload); // [MC-8.1]
    });
    client.on('close', () => {
      this.#announced = false;
    });
    await new Promise<void>((resolve, reject) => {
      client.once('error', reject);
      client.on('connect', () => {
        client.off('error', reject);
        void this.#announce(client).then(resolve, reject);
      });
    });
  }

  /** Sends everything queued, says goodbye [MC-6.4] and disconnects. */
  async disconnect(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    await this.drained();
    this.#client = null;
    this.#announced = false;
    await client.publishAsync(
      topicFor(this.#state.deviceId, 'availability'),
      encode('availability', { v: 1, online: false, ts: this.#opts.now() }),
      { qos: 1, retain: true },
    );
    await client.endAsync();
  }

  /** Resolves once at most `below` samples are unacknowledged (0: all of them), flushing partial batches. */
  drained(below = 0): Promise<void> {
    this.#flush(below === 0);
    if (this.backlog <= below || !this.#announced) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ below, resolve }));
  }

  #onCommand(payload: Buffer): void {
    const parsed = commandFromWire(payload);
    if (!parsed.ok) {
      this.#opts.log?.(`bad command: ${parsed.error.message}`);
      if (parsed.reply) this.#publish('reply', encode('reply', parsed.reply), false); // [MC-9.1]
      return;
    }
    const reply = this.apply({ type: 'command', id: parsed.id, command: parsed.command }, this.#opts.now());
    if (reply) this.#publish('reply', encode('reply', replyToWire(parsed.id, reply)), false); // [MC-8.5]
  }

  async #announce(client: MqttClient): Promise<void> {
    const id = this.#state.deviceId;
    const s = this.#state;
    await client.subscribeAsync(topicFor(id, 'cmd'), { qos: 1 });
    const info = encode('info', {
      v: 1,
      device_id: id,
      model: s.model,
      firmware: 'meterstack-replay/1.0.0',
      has_relay: true,
      clock: 'virtual', // [MC-4.7] a trace's times are the world's (the replay sets its clock to them)
      telemetry_period_s: this.#opts.periodS,
      properties: [...PROPERTY_CATALOGUE[s.model]],
    });
    this.#publish('info', info, true);
    this.#publish('state', encode('state', stateToWire(reportedState(s, this.#opts.now()))), true);
    await client.publishAsync(
      topicFor(id, 'availability'),
      encode('availability', { v: 1, online: true, ts: this.#opts.now() }),
      { qos: 1, retain: true },
    );
    this.#announced = true;
    this.#flush(true);
    // [MC-6.7] on every (re)connection, unless the trace itself has a sample at this instant
    const readings = this.#readings;
    if (readings && !this.#sampleFollows) this.apply({ type: 'connect', readings }, this.#opts.now());
    this.#sampleFollows = false;
  }

  #flush(partial: boolean): void {
    const client = this.#client;
    if (!client || !this.#announced) return;
    while (this.#outbox.length > 0 && this.#inFlight < MAX_IN_FLIGHT * MAX_SAMPLES_PER_MESSAGE) {
      if (this.#opts.batch && !partial && this.#outbox.length < MAX_SAMPLES_PER_MESSAGE) break;
      const samples = this.#outbox.splice(0, MAX_SAMPLES_PER_MESSAGE);
      this.#inFlight += samples.length;
      client.publish(
        topicFor(this.#state.deviceId, 'telemetry'),
        // Samples made by the meter are valid by construction [M-13]; JSON.stringify spares a year-long
        // replay the codec's per-sample validation (the service still validates every message).
        JSON.stringify({ v: 1, samples }),
        { qos: 1 },
        (err) => {
          this.#inFlight -= samples.length;
          if (err)
            this.#outbox.unshift(...samples); // kept for the next connection [MC-7.6]
          else this.published += samples.length;
          this.#flush(this.#waiters.some((w) => w.below === 0));
          this.#wake();
        },
      );
    }
  }

  #wake(): void {
    this.#waiters = this.#waiters.filter((w) => {
      if (this.backlog > w.below) return true;
      w.resolve();
      return false;
    });
  }

  #publish(channel: 'state' | 'reply' | 'info', payload: string, retain: boolean): void {
    this.#client?.publish(topicFor(this.#state.deviceId, channel), payload, { qos: 1, retain });
  }
}
