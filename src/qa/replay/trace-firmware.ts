// The firmware of a trace-driven meter: the pure meter (simulator/meter, rule M-14) behind the meter link
// (src/meter-link), which speaks the contract exactly as for a virtual or bridged meter [MC-6.3] [MC-7]
// [MC-8]. The replay feeds it trace entries; the service may send it commands at any time. All behaviour
// is in `step`; this file moves events in and effects out.

import { stateToWire } from '../../../firmware-protocol/mqtt/codec.ts';
import type { CommandReply, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { PROPERTY_CATALOGUE, reportedState, step } from '../../../simulator/meter/index.ts';
import type { MeterEvent, MeterState, TraceReadings } from '../../../simulator/meter/types.ts';
import { MeterLink } from '../../meter-link/index.ts';

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
  /** Sees each state and telemetry message as the meter makes it (the HTML report, src/qa/report). */
  watch?: (deviceId: string, channel: 'state' | 'telemetry', json: unknown) => void;
}

export class TraceFirmware {
  #state: MeterState;
  readonly #opts: TraceFirmwareOptions;
  readonly #link: MeterLink;
  /** What the trace last said the meter measures; it holds until the next sample [M-17]. */
  #readings: TraceReadings | null = null;
  /** ts of the newest sample queued: never two at one instant [MC-7.3]. */
  #lastTs = Number.NEGATIVE_INFINITY;
  /** The trace has a sample at the instant of this connection: it serves as the connect sample. */
  #sampleFollows = false;

  constructor(opts: TraceFirmwareOptions) {
    this.#opts = opts;
    this.#state = opts.state;
    const id = opts.state.deviceId;
    this.#link = new MeterLink({
      url: opts.mqttUrl,
      deviceId: id,
      password: opts.password,
      now: opts.now,
      info: () => ({
        v: 1,
        device_id: id,
        model: this.#state.model,
        firmware: 'meterstack-replay/1.0.0',
        has_relay: true,
        clock: 'virtual', // [MC-4.7] a trace's times are the world's (the replay sets its clock to them)
        telemetry_period_s: opts.periodS,
        properties: [...PROPERTY_CATALOGUE[this.#state.model]],
      }),
      state: (now) => {
        const wire = stateToWire(reportedState(this.#state, now));
        opts.watch?.(id, 'state', wire); // the state it announces on each connection [MC-6.3]
        return wire;
      },
      answer: (id, command) => this.apply({ type: 'command', id, command }, opts.now()),
      onAnnounced: () => this.#connectSample(),
      holdPartial: opts.batch,
      // Samples made by the meter are valid by construction [M-13]: a year-long replay is spared the
      // codec's per-sample validation (the service still validates every message).
      trustedSamples: true,
      onEvent: (e) => {
        if (e.type === 'bad_command') opts.log?.(`bad command: ${e.error.message}`);
      },
    });
  }

  get state(): MeterState {
    return this.#state;
  }
  get online(): boolean {
    return this.#link.started;
  }
  /** Samples produced but not yet acknowledged by the broker. */
  get backlog(): number {
    return this.#link.pending;
  }
  /** Samples acknowledged by the broker. */
  get published(): number {
    return this.#link.published;
  }

  /** Applies one event at meter time `now`; returns the reply of a command. */
  apply(event: MeterEvent, now: number): CommandReply | undefined {
    const { state, effects } = step(this.#state, event, now);
    this.#state = state;
    if (event.type === 'sample') this.#readings = event.readings;
    let reply: CommandReply | undefined;
    for (const effect of effects) {
      if (effect.type === 'telemetry') this.#queue(effect.sample);
      else if (effect.type === 'state') {
        const wire = stateToWire(effect.state);
        this.#opts.watch?.(this.#state.deviceId, 'state', wire);
        this.#link.publish('state', wire);
      } else if (effect.type === 'reply') reply = effect.reply;
    }
    this.#link.flush(!this.#opts.batch);
    return reply;
  }

  #queue(sample: Sample): void {
    if (sample.ts <= this.#lastTs) return; // [MC-6.7] a connect sample at the instant of the last one
    this.#lastTs = sample.ts;
    this.#opts.watch?.(this.#state.deviceId, 'telemetry', { v: 1, samples: [sample] });
    this.#link.queue(sample); // apply() flushes once its effects are in
  }

  /**
   * Connects and announces itself [MC-6.3], then, on this and every automatic reconnection, publishes
   * its present readings [MC-6.7]: the last trace sample's readings with the registers as they stand.
   * Not when it has read nothing yet, nor when the trace has a sample at this very instant
   * (`sampleFollows`): that sample is the true reading, and a connect sample before it would take its
   * place in the service's history [MC-7.6]. Resolves once online (or rejects: bad credentials).
   */
  async connect(opts: { sampleFollows?: boolean } = {}): Promise<void> {
    if (this.#link.started) return;
    this.#sampleFollows = opts.sampleFollows ?? false;
    await this.#link.connect();
    if (!this.#link.connected) throw this.#link.lastError ?? new Error('the broker closed the connection');
  }

  /** Sends everything queued, says goodbye [MC-6.4] and disconnects. */
  disconnect(): Promise<void> {
    return this.#link.close({ drain: true });
  }

  /** Resolves once at most `below` samples are unacknowledged (0: all of them), flushing partial batches. */
  drained(below = 0): Promise<void> {
    return this.#link.drained(below);
  }

  #connectSample(): void {
    const readings = this.#readings;
    if (readings && !this.#sampleFollows) this.apply({ type: 'connect', readings }, this.#opts.now());
    this.#sampleFollows = false;
  }
}
