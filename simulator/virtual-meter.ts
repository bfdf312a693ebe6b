// A virtual meter on the wire: the pure meter state machine (./meter) driven by the virtual clock,
// behind the meter link (src/meter-link), which speaks the MQTT contract over a real MQTT connection
// exactly as for firmware. All behaviour lives in `step`; this file only moves events in and effects
// out, and lets its link faults (link-session.ts) act on the connection.

import { encode, replyToWire, stateToWire } from '../firmware-protocol/mqtt/codec.ts';
import type { CommandReply, MeterCommand, Sample } from '../firmware-protocol/mqtt/vocabulary.ts';
import { MeterLink } from '../src/meter-link/index.ts';
import { LinkSession } from './link-session.ts';
import type { Fault } from './meter/faults/types.ts';
import { meterInfo, reportedState, step } from './meter/index.ts';
import type { PrepaidPolicy } from './meter/policy.ts';
import type { LoadProfile, MeterEvent, MeterState } from './meter/types.ts';

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
  readonly #mqtt: MeterLink;
  #wantOnline: boolean;
  #lastQueuedTs = 0;
  /** Issue 12: the link faults' wall-clock side, made when the meter first has a fault. */
  #link: LinkSession | null = null;

  constructor(opts: VirtualMeterOptions) {
    this.#opts = opts;
    this.#state = opts.state;
    this.#wantOnline = opts.online ?? true;
    const id = opts.state.deviceId;
    this.#mqtt = new MeterLink({
      url: opts.mqttUrl,
      deviceId: id,
      password: opts.password,
      now: opts.now,
      info: () => meterInfo(this.#state),
      state: (now) => stateToWire(reportedState(this.#state, now)),
      answer: (commandId, command) => this.#onCommand(commandId, command),
      onAnnounced: () => this.#apply({ type: 'connect' }, this.#opts.now()), // [MC-6.7] [M-17]
      muted: () => this.#link?.silent ?? false,
      onEvent: (e) => {
        const log = this.#opts.log;
        if (e.type === 'error') log?.('warn', `${id}: mqtt: ${e.error.message}`);
        else if (e.type === 'subscribe_failed') log?.('warn', `${id}: subscribe failed: ${e.error.message}`);
        else if (e.type === 'bad_command') log?.('warn', `${id}: bad command: ${e.error.message}`);
        else if (e.type === 'overflow')
          log?.('warn', `${id}: offline buffer full, dropped ${e.droppedSoFar} oldest samples so far`);
      },
    });
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
    return this.#mqtt.connected;
  }
  /** A reconnect_storm fault is still dropping and reconnecting this meter's connection. */
  get storming(): boolean {
    return this.#link?.storming ?? false;
  }
  /**
   * ts of the newest sample this meter has queued to send (published or still queued). Samples a link
   * fault holds back (a backlog, a late sample, issue 12) count once they are let go.
   */
  get lastSampleTs(): number {
    return this.#mqtt.lastSampleTs;
  }
  get pendingSamples(): number {
    return this.#mqtt.pending;
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
    if (!this.#mqtt.started) return;
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
    return this.#mqtt.drained();
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
    this.#lastQueuedTs = 0;
    this.#mqtt.reset();
  }

  /**
   * Leaves the broker as if it had never been there: its retained info, state and availability cleared
   * with empty retained payloads [MQTT-3.3.1-10], no goodbye. For a world snapshot restored or a reset
   * (src/world/world-snapshots.ts): what it said must not contradict the world that follows.
   */
  async retire(): Promise<void> {
    await this.#mqtt.clearRetained();
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
          this.#mqtt.publish('state', stateToWire(effect.state));
          break;
        case 'info':
          if (this.#mqtt.announced) this.#mqtt.publish('info', meterInfo(state)); // [MC-4.1] a field changed
          break;
        case 'reply':
          // [M-32] A sample taken for this event goes before its reply: whoever acts on the reply
          // (the service answering a relay PUT) already holds the readings it caused.
          this.#mqtt.flush();
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
    if (link) for (const sample of link.release(state.faults, now)) this.#mqtt.queue(sample);
    this.#mqtt.flush();
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
      publishReply: (payload) => this.#mqtt.publishRaw('reply', payload),
      publishState: () =>
        this.#mqtt.publish('state', stateToWire(reportedState(this.#state, this.#state.lastTs))),
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
    else this.#mqtt.publishRaw('reply', payload);
  }

  /** A decoded command from the broker; the reply goes out through the link faults, or not at all. */
  #onCommand(id: string, command: MeterCommand): undefined {
    if (this.#state.faults.length !== 0) {
      const now = this.#opts.now();
      const link = this.#linkAt(now);
      const gate = link.gate(id, now);
      if (gate.kind === 'ignore') return; // silence: the application is hung
      if (gate.kind === 'busy') {
        link.refuseBusy(id, gate, now); // refused, not applied [MC-8.7]
        return;
      }
    }
    this.#replyOverMqtt.add(id);
    this.#apply({ type: 'command', id, command }, this.#opts.now());
  }

  #queue(sample: Sample): void {
    // [MC-7.3] [MC-6.7] One sample per instant: a connect sample at the instant of the last one is not sent.
    if (sample.ts <= this.#lastQueuedTs) return;
    this.#lastQueuedTs = sample.ts;
    if (this.#link === null) this.#mqtt.queue(sample);
    else for (const s of this.#link.shape(sample)) this.#mqtt.queue(s);
  }

  async #connect(): Promise<void> {
    if (this.#mqtt.started || this.#link?.down) return;
    await this.#mqtt.connect();
  }

  /**
   * Issue 12: the link dies (no DISCONNECT, so the broker fires the will [MC-6.2]); telemetry not yet
   * acknowledged goes back to the outbox, to be sent again after the next connection [MC-7.6].
   */
  #dropAbruptly(): void {
    this.#mqtt.drop();
  }

  /** [MC-6.4] offline, then DISCONNECT; without the goodbye when it leaves as if never there. */
  #disconnect(goodbye = true): Promise<void> {
    return this.#mqtt.close({ goodbye });
  }
}
