// The Modbus bridge's side of the meter link (src/meter-link): what an SDM120 behind a poll is, in the
// contract's terms, and the bridge's log lines. The contract itself (will, announcement, outbox,
// commands and replies, reconnection) is the link's. Rule numbers cite firmware-protocol/mqtt/CONTRACT.md.

import { stateToWire, type WireReply } from '../../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import type { MeterCommand, ReportedState, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { BRIDGE_BACKOFF, type LinkEvent, MeterLink, SERVICE_WAIT_MS } from '../../meter-link/index.ts';
import { RepeatedLines } from '../repeats.ts';

export type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string) => void;

export interface MqttMeterOptions {
  broker: { url: string; username: string; password: string };
  deviceId: string;
  /** What the meter is [MC-4]; a function for a meter learnt only once it answers (null until then). */
  info: InfoPayload | (() => InfoPayload | null);
  /** Its state now [MC-5]; null while not known (nothing is announced before). */
  state: (ts: number) => ReportedState | null;
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

/** [MC-8.8] Replies kept for repeated command ids: the meter behind the bridge keeps none. */
const REMEMBERED_REPLIES = 64;

export class MqttMeter {
  readonly #opts: MqttMeterOptions;
  readonly #link: MeterLink;
  #online = false;
  readonly #attempts: RepeatedLines;
  #lastTs = -1;

  constructor(opts: MqttMeterOptions) {
    this.#opts = opts;
    const { deviceId, broker, log } = opts;
    this.#attempts = new RepeatedLines(log);
    this.#link = new MeterLink({
      url: broker.url,
      deviceId,
      username: broker.username,
      password: broker.password,
      backoff: BRIDGE_BACKOFF, // decision 171
      awaitServiceMs: SERVICE_WAIT_MS, // [MC-12.2]
      now: opts.now,
      available: false,
      info: typeof opts.info === 'function' ? opts.info : () => opts.info as InfoPayload,
      state: (ts) => {
        const state = opts.state(ts);
        return state && stateToWire(state);
      },
      answer: (id, command) =>
        opts.answer(command).catch((err: unknown): WireReply => {
          log('error', `${deviceId}: ${command.op} ${id} failed: ${(err as Error).stack ?? err}`);
          return { ok: false, error: { code: 'busy', message: `bridge error: ${(err as Error).message}` } };
        }),
      rememberReplies: REMEMBERED_REPLIES,
      onAnnounced: () => opts.onConnected?.(),
      onEvent: (event) => this.#log(event),
    });
    void this.#link.connect();
  }

  /** Reports the meter online or offline [MC-6.1] (offline saying why, MC-6.8); sent at once when connected, else at the next connection. */
  setOnline(online: boolean, reason?: string): void {
    if (online === this.#online) return;
    this.#online = online;
    this.#link.setAvailable(online, reason);
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
    this.#link.push(sample);
  }

  /**
   * A sample from the meter's own history (a load profile row, CO-10.4), older than live ones: queued as
   * it is, without the live samples' ascending check; the caller pushes each only once.
   */
  addHistory(sample: Sample): void {
    this.#link.push(sample);
  }

  /** [MC-6.3] Announces again: the meter's info became known or changed. */
  announce(): void {
    void this.#link.announce();
  }

  /** [MC-5.1] Publishes a changed state at once (when announced; else the next announcement carries it). */
  publishState(state: ReportedState): void {
    if (this.#link.announced) this.#link.publish('state', stateToWire(state));
  }

  /** [MC-6.4] Goes offline on purpose: an explicit offline, then DISCONNECT (which discards the will). */
  close(): Promise<void> {
    return this.#link.close();
  }

  #log(event: LinkEvent): void {
    if (event.type === 'retrying') {
      // While the broker is down every attempt fails alike: one line, then their sum (decision 171).
      const what = `${this.#opts.deviceId}: mqtt ${this.#opts.broker.url}: ${event.error?.message ?? 'connection closed'}`;
      this.#attempts.note('warn', what, `${what}; retrying in ${event.inMs / 1000} s, then less often`);
      return;
    }
    if (event.type === 'ready') this.#attempts.flush();
    const line = this.#line(event);
    if (line) this.#opts.log(line[0], line[1]);
    if (event.type === 'error' && event.refused)
      this.#opts.onFatal?.(`the broker at ${this.#opts.broker.url} refused the login: ${event.refused}`);
  }

  /** The bridge's words for what the link did, or null for nothing to say. */
  #line(event: LinkEvent): [level: 'info' | 'warn' | 'error', msg: string] | null {
    const { deviceId, broker } = this.#opts;
    switch (event.type) {
      case 'announced':
        return ['info', `${deviceId}: mqtt: online at ${broker.url}`];
      case 'service':
        return [
          'info',
          `${deviceId}: connected to meterstack ${event.announcement.version} at ${broker.url}`,
        ];
      case 'service_missing':
        return [
          'warn',
          `${deviceId}: ${broker.url} accepted the connection but is not meterstack: no service announcement ` +
            `on ${event.topic} within ${event.waitedMs / 1000} s [MC-12.2]`,
        ];
      case 'lost':
        return event.announced ? ['warn', `${deviceId}: mqtt: connection lost, reconnecting`] : null;
      case 'error':
        // A passing error is told with its retry ('retrying', #log).
        return event.refused
          ? ['error', `${deviceId}: mqtt ${broker.url}: login refused: ${event.refused}`]
          : null;
      case 'unavailable':
        return ['warn', `${deviceId}: mqtt: broker says server unavailable (CONNACK 3); retrying`];
      case 'subscribe_failed':
        return ['warn', `${deviceId}: mqtt: subscribe failed: ${event.error.message}`];
      case 'bad_command':
        return ['warn', `${deviceId}: bad command: [${event.error.rule}] ${event.error.message}`];
      case 'repeated':
        return ['info', `${deviceId}: command ${event.id} (${event.op}) repeated: answering again [MC-8.8]`];
      case 'replied': {
        const r = event.reply;
        return r.ok
          ? null
          : ['info', `${deviceId}: ${event.op} ${event.id}: ${r.error.code}: ${r.error.message}`];
      }
      case 'command_failed':
      case 'announce_failed':
        return ['error', `${deviceId}: command handling failed: ${event.error.stack ?? event.error}`];
      case 'publish_failed':
        return ['warn', `${deviceId}: mqtt: publish on ${event.channel} failed: ${event.error.message}`];
      case 'overflow':
        return ['warn', `${deviceId}: broker unreachable, dropped the oldest sample`];
      case 'telemetry_dropped':
        return [
          'error',
          `${deviceId}: telemetry message of ${event.samples} samples dropped: ${event.error.message}`,
        ];
      default:
        return null;
    }
  }
}
