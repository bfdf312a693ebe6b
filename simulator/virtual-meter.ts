// A virtual meter on the wire: the pure meter state machine (./meter) driven by the virtual clock,
// speaking the MQTT contract (firmware-protocol/mqtt) over a real MQTT connection, exactly as
// firmware would. All behaviour lives in `step`; this file only moves events in and effects out.

import type { MqttClient } from 'mqtt';
import { commandFromWire, encode, replyToWire, stateToWire } from '../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../firmware-protocol/mqtt/topics.ts';
import type { CommandReply, MeterCommand, Sample } from '../firmware-protocol/mqtt/vocabulary.ts';
import { createMeterClient } from '../src/mqtt/connect.ts';
import { LinkSession } from './link-session.ts';
import type { Fault } from './meter/faults/types.ts';
import { meterInfo, reportedState, step } from './meter/index.ts';
import type { PrepaidPolicy } from './meter/policy.ts';
import type { LoadProfile, MeterEvent, MeterState } from './meter/types.ts';
import { TelemetryOutbox } from './outbox.ts';

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
  readonly #outbox = new TelemetryOutbox((dropped) =>
    this.#opts.log?.('warn', `${this.id}: offline buffer full, dropped ${dropped} oldest samples so far`),
  );
  #lastQueuedTs = 0;
  #drainWaiters: (() => void)[] = [];
  /** A connection under way: settles once announced or once its first attempt failed. */
  #connecting: Promise<void> | null = null;
  #announced = false;
  #onAnnounced: (() => void) | null = null;
  /** Issue 12: the link faults' wall-clock side, made when the meter first has a fault. */
  #link: LinkSession | null = null;

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
  /**
   * Connected, announced online [MC-6.3] and speaking: a meter silenced by a fault (issue 12) keeps its
   * connection but publishes nothing, so nothing should wait for what it publishes.
   */
  get connected(): boolean {
    return this.#announced && (this.#client?.connected ?? false) && !this.#link?.silent;
  }
  /**
   * ts of the newest sample this meter has queued to send (published or still queued). Samples a link
   * fault holds back (a backlog, a late sample, issue 12) count once they are let go.
   */
  get lastSampleTs(): number {
    return this.#outbox.lastTs;
  }
  get pendingSamples(): number {
    return this.#outbox.pending;
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

  /**
   * [M-27] Issue 12 §3: a new physical meter takes this one's place (new serial, register from zero in a
   * new epoch). A connected meter reconnects, as a new meter would, announcing its new info [MC-6.3].
   */
  async replace(serial: string, debitPaise = 0, now = this.#opts.now()): Promise<void> {
    this.#apply({ type: 'replace', serial, debitPaise }, now);
    if (!this.#client) return;
    await this.#disconnect();
    await this.#connect();
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
    // Reconnecting (a link fault just ended: power back, a flap's off window over): what it held goes
    // out once it is back, so a clock advance stores it before it returns.
    const connecting = this.#connecting;
    if (connecting) return connecting.then(() => this.drained());
    if (!this.connected || this.pendingSamples === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.#link?.stop();
    await this.#disconnect();
  }

  /**
   * Takes `state` as its own on the same connection (a world snapshot restored, src/world: reconnecting
   * every meter cost ~3 ms each). Samples not yet published belong to the world undone and are dropped;
   * connected, it says who it is again [MC-6.3] and sends a connect sample [MC-6.7].
   */
  rebase(state: MeterState): void {
    if (state.deviceId !== this.id) throw new TypeError(`rebase: ${state.deviceId} is not ${this.id}`);
    this.#state = state;
    this.#link?.stop(); // the restored world's faults, if any, start a session of their own
    this.#link = null;
    this.#outbox.clear();
    this.#lastQueuedTs = 0;
    const client = this.#client;
    this.#announced = false;
    if (client?.connected) void this.#announce(client);
  }

  /**
   * Leaves the broker as if it had never been there: its retained info, state and availability cleared
   * with empty retained payloads [MQTT-3.3.1-10], no goodbye. For a world snapshot restored or a reset
   * (src/world/world-snapshots.ts): what it said must not contradict the world that follows.
   */
  async retire(): Promise<void> {
    const client = this.#client;
    if (client?.connected) {
      const channels = ['info', 'state', 'availability'] as const;
      await Promise.all(
        channels.map((c) =>
          client.publishAsync(topicFor(this.id, c), '', { qos: 1, retain: true }).catch(() => undefined),
        ),
      );
    }
    await this.#disconnect(false);
  }

  #apply(event: MeterEvent, now: number): CommandReply | undefined {
    const before = this.#state;
    const { state, effects } = step(before, event, now);
    this.#state = state;
    const link = state.faults.length !== 0 || this.#link !== null ? this.#linkAt(now) : null;
    let reply: CommandReply | undefined;
    for (const effect of effects) {
      switch (effect.type) {
        case 'telemetry':
          this.#queue(effect.sample);
          break;
        case 'state':
          this.#publish('state', encode('state', stateToWire(effect.state)), true);
          break;
        case 'info':
          if (this.#announced) this.#publishInfo(); // [MC-4.1] a field changed
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
            if (changed && this.#opts.persist) void this.#persistThenReply(effect.id, payload);
            else this.#sendReply(effect.id, payload, now);
          }
          break;
      }
    }
    if (link) for (const sample of link.release(state.faults, now)) this.#outbox.push(sample);
    this.#flush();
    if (event.type !== 'advance' && event.type !== 'connect') this.#opts.onChanged?.(this);
    return reply;
  }

  readonly #replyOverMqtt = new Set<string>();

  async #persistThenReply(id: string, payload: string): Promise<void> {
    try {
      await this.#opts.persist?.(this);
    } catch (err) {
      this.#opts.log?.(
        'error',
        `${this.id}: could not persist before acknowledging: ${(err as Error).message}`,
      );
    }
    this.#sendReply(id, payload, this.#opts.now());
  }

  /** The link faults' session, evaluated at `now`; dropped again once it has nothing left to do. */
  #linkAt(now: number): LinkSession {
    this.#link ??= new LinkSession({
      id: this.id,
      faults: () => this.#state.faults,
      publishReply: (payload) => this.#publish('reply', payload, false),
      publishState: () =>
        this.#publish(
          'state',
          encode('state', stateToWire(reportedState(this.#state, this.#state.lastTs))),
          true,
        ),
      dropAbruptly: () => this.#dropAbruptly(),
      reconnect: () => (this.#wantOnline ? this.#connect() : Promise.resolve()),
      log: this.#opts.log,
    });
    const link = this.#link;
    link.evaluate(this.#state.faults, now);
    if (this.#state.faults.length === 0 && link.idle) this.#link = null;
    return link;
  }

  #sendReply(id: string, payload: string, now: number): void {
    if (this.#link) this.#link.sendReply(id, payload, now);
    else this.#publish('reply', payload, false);
  }

  #onCommandMessage(payload: Buffer): void {
    const parsed = commandFromWire(payload);
    if (!parsed.ok) {
      this.#opts.log?.('warn', `${this.id}: bad command: ${parsed.error.message}`);
      // [MC-9.1] a readable id gets the codec's rejection; [MC-9.2] otherwise nothing is published.
      if (parsed.reply) this.#publish('reply', encode('reply', parsed.reply), false);
      return;
    }
    if (this.#state.faults.length !== 0) {
      const now = this.#opts.now();
      const link = this.#linkAt(now);
      const gate = link.gate(parsed.id, now);
      if (gate.kind === 'ignore') return; // silence: the application is hung
      if (gate.kind === 'busy') {
        link.refuseBusy(parsed.id, gate, now); // refused, not applied [MC-8.7]
        return;
      }
    }
    this.#replyOverMqtt.add(parsed.id);
    this.#apply({ type: 'command', id: parsed.id, command: parsed.command }, this.#opts.now());
  }

  #queue(sample: Sample): void {
    // [MC-7.3] [MC-6.7] One sample per instant: a connect sample at the instant of the last one is not sent.
    if (sample.ts <= this.#lastQueuedTs) return;
    this.#lastQueuedTs = sample.ts;
    if (this.#link === null) this.#outbox.push(sample);
    else for (const s of this.#link.shape(sample)) this.#outbox.push(s);
  }

  #flush(): void {
    const client = this.#client;
    if (!client?.connected || !this.#announced || this.#link?.silent) return;
    for (let batch = this.#outbox.take(); batch !== null; batch = this.#outbox.take()) {
      const sent = batch;
      client.publish(
        topicFor(this.id, 'telemetry'),
        encode('telemetry', { v: 1, samples: sent }),
        { qos: 1 },
        (err) => {
          if (!this.#outbox.settle(sent, err)) return; // put back already: the link dropped
          this.#flush();
          this.#notifyDrained();
        },
      );
    }
    this.#notifyDrained();
  }

  #publishInfo(): void {
    this.#publish('info', encode('info', meterInfo(this.#state)), true);
  }

  #notifyDrained(): void {
    if (this.pendingSamples !== 0 && this.connected) return;
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
  }

  #publish(channel: 'state' | 'reply' | 'info' | 'availability', payload: string, retain: boolean): void {
    if (this.#link?.silent) return;
    this.#client?.publish(topicFor(this.id, channel), payload, { qos: 1, retain });
  }

  async #connect(): Promise<void> {
    if (this.#client || this.#link?.down) return;
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
      if (this.#client === client) this.#announced = false;
    });
    // Resolve once announced (online on the broker), or once the first attempt failed.
    const connecting = new Promise<void>((resolve) => {
      this.#onAnnounced = resolve;
      client.once('close', () => resolve());
    });
    this.#connecting = connecting;
    await connecting;
    if (this.#connecting === connecting) this.#connecting = null;
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
    if (this.#client !== client) return; // dropped meanwhile (a link fault)
    const s = this.#state;
    this.#publishInfo();
    this.#publish('state', encode('state', stateToWire(reportedState(s, this.#opts.now()))), true);
    this.#publish('availability', encode('availability', { v: 1, online: true, ts: this.#opts.now() }), true);
    this.#announced = true;
    this.#onAnnounced?.();
    this.#onAnnounced = null;
    this.#flush();
    this.#apply({ type: 'connect' }, this.#opts.now()); // [MC-6.7] [M-17]
  }

  /**
   * Issue 12: the link dies (no DISCONNECT, so the broker fires the will [MC-6.2]); telemetry not yet
   * acknowledged goes back to the outbox, to be sent again after the next connection [MC-7.6].
   */
  #dropAbruptly(): void {
    const client = this.#client;
    if (!client) return;
    this.#client = null;
    this.#announced = false;
    this.#outbox.requeueInFlight();
    client.end(true);
    this.#onAnnounced?.();
    this.#onAnnounced = null;
  }

  async #disconnect(goodbye = true): Promise<void> {
    const client = this.#client;
    if (!client) return;
    this.#client = null;
    this.#announced = false;
    if (client.connected && goodbye) {
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
