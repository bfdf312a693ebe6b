// A virtual meter on the wire: the pure meter state machine (./meter) driven by the virtual clock,
// speaking the MQTT contract (firmware-protocol/mqtt) over a real MQTT connection, exactly as
// firmware would. All behaviour lives in `step`; this file only moves events in and effects out.

import type { MqttClient } from 'mqtt';
import { commandFromWire, encode, replyToWire, stateToWire } from '../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../firmware-protocol/mqtt/topics.ts';
import { createMeterClient } from '../src/mqtt/connect.ts';
import type { Fault } from './meter/faults/types.ts';
import { PROPERTY_CATALOGUE, reportedState, step } from './meter/index.ts';
import type { PrepaidPolicy } from './meter/policy.ts';
import type {
  CommandReply,
  LoadProfile,
  MeterCommand,
  MeterEvent,
  MeterState,
  Sample,
} from './meter/types.ts';

/** [MC-7.2] at most this many samples in one telemetry message. */
const MAX_SAMPLES_PER_MESSAGE = 1000;
/** A meter that cannot reach the broker keeps this many samples (about 70 days at 60 s) and drops the oldest. */
const OUTBOX_LIMIT = 100_000;
const MAX_IN_FLIGHT = 8;
/**
 * Commands whose acknowledgement waits until the meter's state is durable: money. Other changes (relay,
 * mode, tariffs) reach disk with the batched save within ~20 ms; a full snapshot per relay command
 * would halve command throughput.
 */
const PERSIST_BEFORE_ACK: ReadonlySet<string> = new Set(['recharge']);

export type Logger = (level: 'info' | 'warn' | 'error', msg: string) => void;

export interface VirtualMeterOptions {
  state: MeterState;
  now: () => number;
  mqttUrl: string;
  /** The meter's own credentials: username = device id. */
  password: string;
  online?: boolean;
  log?: Logger;
  /** Called after every event that changed the state discretely (commands, load, button), for persistence. */
  onChanged?: (meter: VirtualMeter) => void;
  /**
   * Makes the meter's state durable. The reply over MQTT to a recharge waits for it, as firmware writes
   * flash before it acknowledges money: an acknowledged recharge survives a crash.
   */
  persist?: (meter: VirtualMeter) => Promise<void>;
}

export class VirtualMeter {
  #state: MeterState;
  readonly #opts: VirtualMeterOptions;
  #client: MqttClient | null = null;
  #wantOnline: boolean;
  #outbox: Sample[] = [];
  #inFlight = 0;
  #dropped = 0;
  #lastQueuedTs = 0;
  #drainWaiters: (() => void)[] = [];
  #announced = false;
  #onAnnounced: (() => void) | null = null;

  constructor(opts: VirtualMeterOptions) {
    this.#opts = opts;
    this.#state = opts.state;
    this.#wantOnline = opts.online ?? true;
  }

  get id(): string {
    return this.#state.deviceId;
  }
  get state(): MeterState {
    return this.#state;
  }
  get online(): boolean {
    return this.#wantOnline;
  }
  /** Connected and announced online [MC-6.3]. */
  get connected(): boolean {
    return this.#announced && (this.#client?.connected ?? false);
  }
  /** ts of the newest sample this meter has produced (published or still queued). */
  get lastSampleTs(): number {
    return this.#lastQueuedTs;
  }
  get pendingSamples(): number {
    return this.#outbox.length + this.#inFlight;
  }

  async start(): Promise<void> {
    if (this.#wantOnline) await this.#connect();
  }

  /** Integrates up to the clock's present, queueing and publishing every telemetry sample due. */
  tick(now = this.#opts.now()): void {
    this.#apply({ type: 'advance' }, now);
  }

  /** Applies a command directly to the hardware (a technician at the meter), not over MQTT. */
  command(id: string, command: MeterCommand, now = this.#opts.now()): CommandReply {
    return this.#apply({ type: 'command', id, command }, now) ?? { ok: true };
  }

  setLoad(load: LoadProfile, now = this.#opts.now()): void {
    this.#apply({ type: 'set_load', load }, now);
  }

  pressButton(holdSeconds: number, now = this.#opts.now()): void {
    this.#apply({ type: 'button', holdSeconds }, now);
  }

  /** Issue 12: switches a fault on (or schedules it); see meter/faults/types.ts. */
  addFault(fault: Fault, now = this.#opts.now()): void {
    this.#apply({ type: 'add_fault', fault }, now);
  }

  /** Issue 12: clears faults by id, or all of them. */
  clearFaults(ids: readonly string[] | 'all', now = this.#opts.now()): void {
    this.#apply({ type: 'clear_faults', ids }, now);
  }

  /** Issue 12 §4 [M-31]: the prepaid policy from now (null: none). The caller checks it first (policyProblem). */
  setPrepaidPolicy(policy: PrepaidPolicy | null, now = this.#opts.now()): void {
    this.#apply({ type: 'set_prepaid_policy', policy }, now);
  }

  /** Really disconnects from (publishing offline first) or reconnects to the broker. */
  async setOnline(online: boolean): Promise<void> {
    this.#wantOnline = online;
    if (online) await this.#connect();
    else await this.#disconnect();
  }

  /** Resolves once every queued sample is acknowledged by the broker (or at once when offline). */
  drained(): Promise<void> {
    if (!this.connected || this.pendingSamples === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    await this.#disconnect();
  }

  #apply(event: MeterEvent, now: number): CommandReply | undefined {
    const before = this.#state;
    const { state, effects } = step(before, event, now);
    this.#state = state;
    let reply: CommandReply | undefined;
    for (const effect of effects) {
      switch (effect.type) {
        case 'telemetry':
          this.#queue(effect.sample);
          break;
        case 'state':
          this.#publish('state', encode('state', stateToWire(effect.state)), true);
          break;
        case 'reply':
          reply = effect.reply;
          if (event.type === 'command' && this.#replyOverMqtt.has(effect.id)) {
            this.#replyOverMqtt.delete(effect.id);
            const payload = encode('reply', replyToWire(effect.id, effect.reply));
            const changed =
              state !== before &&
              effect.reply.ok &&
              !effect.duplicate &&
              PERSIST_BEFORE_ACK.has(event.command.op);
            if (changed && this.#opts.persist) void this.#persistThenReply(payload);
            else this.#publish('reply', payload, false);
          }
          break;
      }
    }
    this.#flush();
    if (event.type !== 'advance' && event.type !== 'connect') this.#opts.onChanged?.(this);
    return reply;
  }

  readonly #replyOverMqtt = new Set<string>();

  async #persistThenReply(payload: string): Promise<void> {
    try {
      await this.#opts.persist?.(this);
    } catch (err) {
      this.#opts.log?.(
        'error',
        `${this.id}: could not persist before acknowledging: ${(err as Error).message}`,
      );
    }
    this.#publish('reply', payload, false);
  }

  #onCommandMessage(payload: Buffer): void {
    const parsed = commandFromWire(payload);
    if (!parsed.ok) {
      this.#opts.log?.('warn', `${this.id}: bad command: ${parsed.error.message}`);
      // [MC-9.1] a readable id gets the codec's rejection; [MC-9.2] otherwise nothing is published.
      if (parsed.reply) this.#publish('reply', encode('reply', parsed.reply), false);
      return;
    }
    this.#replyOverMqtt.add(parsed.id);
    this.#apply({ type: 'command', id: parsed.id, command: parsed.command }, this.#opts.now());
  }

  #queue(sample: Sample): void {
    // [MC-7.3] [MC-6.7] One sample per instant: a connect sample at the instant of the last one is not sent.
    if (sample.ts <= this.#lastQueuedTs) return;
    this.#outbox.push(sample);
    this.#lastQueuedTs = sample.ts;
    if (this.#outbox.length > OUTBOX_LIMIT) {
      const excess = this.#outbox.length - OUTBOX_LIMIT;
      this.#outbox.splice(0, excess);
      this.#dropped += excess;
      this.#opts.log?.(
        'warn',
        `${this.id}: offline buffer full, dropped ${this.#dropped} oldest samples so far`,
      );
    }
  }

  #flush(): void {
    const client = this.#client;
    if (!client?.connected || !this.#announced) return;
    while (this.#outbox.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      const batch = this.#outbox.splice(0, MAX_SAMPLES_PER_MESSAGE);
      this.#inFlight += batch.length;
      client.publish(
        topicFor(this.id, 'telemetry'),
        encode('telemetry', { v: 1, samples: batch }),
        { qos: 1 },
        (err) => {
          this.#inFlight -= batch.length;
          if (err) this.#outbox.unshift(...batch); // not acknowledged: keep it for the next connection
          this.#flush();
          this.#notifyDrained();
        },
      );
    }
    this.#notifyDrained();
  }

  #notifyDrained(): void {
    if (this.pendingSamples !== 0 && this.connected) return;
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
  }

  #publish(channel: 'state' | 'reply' | 'info' | 'availability', payload: string, retain: boolean): void {
    this.#client?.publish(topicFor(this.id, channel), payload, { qos: 1, retain });
  }

  async #connect(): Promise<void> {
    if (this.#client) return;
    const id = this.id;
    const client = createMeterClient({
      url: this.#opts.mqttUrl,
      deviceId: id,
      password: this.#opts.password,
    });
    this.#client = client;
    client.on('connect', () => void this.#announce(client));
    client.on('message', (_topic, payload, packet) => {
      if (!packet.retain) this.#onCommandMessage(payload); // [MC-8.1] a retained cmd is ignored
    });
    client.on('error', (err) => this.#opts.log?.('warn', `${id}: mqtt: ${err.message}`));
    client.on('close', () => {
      this.#announced = false;
    });
    // Resolve once announced (online on the broker), or once the first attempt failed.
    await new Promise<void>((resolve) => {
      this.#onAnnounced = resolve;
      client.once('close', () => resolve());
    });
  }

  /**
   * [MC-6.3] subscribe to cmd first, then info, state, online, then buffered telemetry; then [MC-6.7]
   * one sample of the present readings, on every (re)connection.
   */
  async #announce(client: MqttClient): Promise<void> {
    const id = this.id;
    try {
      await client.subscribeAsync(topicFor(id, 'cmd'), { qos: 1 });
    } catch (err) {
      this.#opts.log?.('warn', `${id}: subscribe failed: ${(err as Error).message}`);
      return;
    }
    const s = this.#state;
    this.#publish(
      'info',
      encode('info', {
        v: 1,
        device_id: id,
        model: s.model,
        firmware: s.firmware,
        has_relay: true,
        telemetry_period_s: s.telemetryPeriodMs / 1000,
        properties: [...PROPERTY_CATALOGUE[s.model]],
      }),
      true,
    );
    this.#publish('state', encode('state', stateToWire(reportedState(s, this.#opts.now()))), true);
    this.#publish('availability', encode('availability', { v: 1, online: true, ts: this.#opts.now() }), true);
    this.#announced = true;
    this.#onAnnounced?.();
    this.#onAnnounced = null;
    this.#flush();
    this.#apply({ type: 'connect' }, this.#opts.now()); // [MC-6.7] [M-17]
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    this.#client = null;
    this.#announced = false;
    if (client.connected) {
      await new Promise<void>((resolve) =>
        client.publish(
          topicFor(this.id, 'availability'),
          encode('availability', { v: 1, online: false, ts: this.#opts.now() }),
          { qos: 1, retain: true },
          () => resolve(),
        ),
      );
    }
    await client.endAsync();
    this.#notifyDrained();
  }
}
