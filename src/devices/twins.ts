// Device twins: the service's mirror of every meter, fed only by MQTT (so a virtual meter, a bridged
// serial meter and a real one look the same), plus command round trips with typed failures.

import { randomBytes, randomUUID } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { commandToWire, decode, encode } from '../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload, SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { parseTopic, TOPIC_ROOT, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { type EventBus, silentBus } from '../events/bus.ts';
import { connectMqtt } from '../mqtt/connect.ts';
import { sampleRow } from '../store/sample-row.ts';
import type { SampleRow } from '../store/types.ts';
import { MalformedLog } from './malformed-log.ts';
import { availabilityToWorld, type MeterClock, stateToWorld, telemetryToWorld } from './meter-clock.ts';
import { PendingCommands, type Reply } from './pending-commands.ts';
import { judgeSamples, stateRefusal } from './plausibility.ts';
import { RefusalLog, type RefusalReason } from './refusals.ts';
import type { RegisterContinuity } from './register-continuity.ts';
import { RegisterJoins } from './register-join.ts';
import { ReportBatch } from './report-batch.ts';
import { CHECKED, followTwin, reanchorLine, UNCHECKED } from './series-anchor.ts';
import { TelemetrySummary } from './telemetry-summary.ts';
import {
  infoChanges,
  type OfflineReason,
  offlineReason,
  replacedSerial,
  stateEmissions,
} from './twin-events.ts';
import type { CommandOutcome, Log, Twin, TwinCommand, TwinReport } from './types.ts';

const UNSUBSCRIBE_TIMEOUT_MS = 2_000;
/** [MC-2.4] The retained channels, where a zero-length payload means "cleared". */
const CLEARABLE: ReadonlySet<string> = new Set(['info', 'state', 'availability']);

export interface TwinRegistryOptions {
  mqttUrl: string;
  username: string;
  password: string;
  /** Maps a device id to its storage key; undefined for a device the store does not know. */
  devicePk?: (deviceId: string) => number | undefined;
  /**
   * Where telemetry goes; resolves once durable. Unset: a mirror only (an API instance, issue 11 §4),
   * whose twins follow the meters while the world process stores what they send.
   */
  ingest?: (rows: SampleRow[]) => Promise<void>;
  commandTimeoutMs?: number;
  /** The service's clock, against which meters' timestamps are judged [MC-3.10]. Default: wall time. */
  now?: () => number;
  /**
   * Persists meters' last reported info and state (batched, off the message path) so a restart can
   * restore them with `restore` [MC-5.4].
   */
  saveReports?: (reports: TwinReport[]) => Promise<void>;
  /** How long reports wait to be saved together. Default 250 ms. */
  reportDelayMs?: number;
  log?: Log;
  /** Where meter life, state and command events go (src/events); default: a silent bus. */
  bus?: EventBus;
  /** The account a device belongs to, for the events' context; undefined when not known. */
  accountOf?: (deviceId: string) => number | undefined;
  /** How often accepted telemetry is summed up in one `telemetry.summary` event. Default 1000 ms. */
  summaryIntervalMs?: number;
  /**
   * A topic outside the meters' contract whose messages go to `onWorldClock`, on the same connection as
   * the meters' (so in the order the broker took them): the world's clock jumps, for API instances.
   */
  worldClockTopic?: string;
  onWorldClock?: (payload: Buffer) => void;
  /** [MC-11.1] Which clock a device's meter lives on; default: the world's (virtual). */
  clockOf?: (deviceId: string) => MeterClock;
  /** [MC-11.2] The world's offset from wall time now (virtual − wall, ms); default 0. */
  wallOffset?: () => number;
  /** [MC-7.9] Makes a device's register continuity durable; its samples are stored only after it. */
  saveRegister?: (deviceId: string, register: RegisterContinuity) => Promise<void>;
}

/** What `restore` puts back into a twin before the broker says anything. */
export interface RestoredTwin extends TwinReport {
  latest: SamplePayload | null;
  /** [MC-7.9] How its registers join into the stored series; absent: never reset. */
  register?: RegisterContinuity;
  /** [MC-7.13] Its newest sample agrees with the one stored before it; absent: not known, unchecked. */
  anchorChecked?: boolean;
}

/** [LEDGER-2] Twins never carry money: a credit without its ledger entry first would be money from nowhere. */
/**
 * [MC-8.2] The ids this service sends: its registry's tag, a dot, a UUID. Several service processes
 * share a broker (issue 11 §4) and each sees every reply; a reply in this shape under another tag
 * answers a peer's command, not a meter's guess, and is none of this registry's business.
 */
const SERVICE_COMMAND_ID = /^([0-9a-f]{8})\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const NO_CREDIT_OVER_TWINS: CommandOutcome = {
  ok: false,
  reason: 'rejected',
  code: 'unsupported',
  message: '[LEDGER-2] a recharge goes through the ledger (World.recharge), never straight to a meter',
};

export class TwinRegistry {
  readonly #opts: TwinRegistryOptions;
  readonly #twins = new Map<string, Twin>();
  readonly #pending: PendingCommands;
  readonly #clientSuffix = randomBytes(4).toString('hex');
  #client: MqttClient | null = null;
  /** Malformed or unknown-device messages dropped, by reason [MC-9.2]. */
  readonly dropped = { malformed: 0, unknownDevice: 0, ingestFailed: 0 };
  /** Replies to commands another service process sent (issue 11 §4): ignored, not refused. */
  peerReplies = 0;
  /** [MC-7.13] Series that a run of agreeing samples took over from an unchecked wild one. */
  reanchored = 0;
  readonly #refusals: RefusalLog;
  /** [MC-9.7] Malformed messages' log lines, bounded as refusals' are. */
  readonly #malformed: MalformedLog;
  readonly #now: () => number;
  readonly #bus: EventBus;
  readonly #ingesting = new Set<Promise<void>>();
  readonly #waiters = new Set<{ deviceId: string; online: boolean; resolve: (ok: boolean) => void }>();
  /** Saves reported info and state [MC-5.4]; null when nothing persists them. */
  readonly #reports: ReportBatch | null;
  readonly #summary: TelemetrySummary;
  /** Why the next offline of a device will come, told by whoever knew first (see `expectOffline`). */
  readonly #offlineHints = new Map<string, OfflineReason>();
  readonly #registers: RegisterJoins;

  constructor(opts: TwinRegistryOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#bus = opts.bus ?? silentBus();
    this.#registers = new RegisterJoins({ save: opts.saveRegister, log: opts.log });
    this.#pending = new PendingCommands(this.#bus, (id) => this.#ctx(id));
    this.#summary = new TelemetrySummary({ bus: this.#bus, intervalMs: opts.summaryIntervalMs });
    this.#malformed = new MalformedLog(opts.log ?? (() => {}));
    this.#refusals = new RefusalLog({
      log: opts.log ?? (() => {}),
      // [MC-9.5] Within the log's bounds: each refusal told, and one event per reason summed up.
      report: (r) =>
        this.#bus.emit(
          'contract.refused',
          { reason: r.reason, count: r.count, detail: r.detail },
          r.deviceId === undefined ? undefined : this.#ctx(r.deviceId),
        ),
    });
    const save = opts.saveReports;
    this.#reports = save
      ? new ReportBatch({
          save,
          delayMs: opts.reportDelayMs,
          log: opts.log,
          reportOf: (deviceId) => {
            const t = this.#twins.get(deviceId);
            return t && { deviceId, info: t.info, state: t.state };
          },
        })
      : null;
  }

  /**
   * Well-formed messages refused for what they say, by reason [MC-9.5]: forged and unmatched replies
   * [MC-8.9], implausible times [MC-3.10], stale states [MC-5.1], energy going backwards [MC-7.5], an
   * info naming another device [MC-1.4], retained events [MC-2.7]. Samples count one by one.
   */
  get refused(): Readonly<Record<RefusalReason, number>> {
    return this.#refusals.counts;
  }

  /** Puts back what meters last reported before a restart; call before `start`. Every twin starts offline. */
  restore(twins: Iterable<RestoredTwin>): void {
    for (const r of twins) {
      const twin = this.#twin(r.deviceId);
      twin.info = r.info;
      twin.state = r.state;
      twin.latest = r.latest;
      twin.anchor = r.anchorChecked ? CHECKED : UNCHECKED;
      if (r.register) this.#registers.restore(r.deviceId, r.register);
    }
  }

  /**
   * Forgets every twin and puts back `twins` instead (a world snapshot restored, a reset): commands in
   * flight fail, hints go. Call once the meters that fed the old twins are gone.
   */
  replace(twins: Iterable<RestoredTwin>): void {
    this.#pending.failAll();
    this.#twins.clear();
    this.#offlineHints.clear();
    this.#registers.forget();
    this.restore(twins);
  }

  /** Forgets one device's twin (its meter was reset): the next thing it says starts a new one. */
  forget(deviceId: string): void {
    this.#pending.failDevice(deviceId);
    this.#twins.delete(deviceId);
    this.#offlineHints.delete(deviceId);
    this.#registers.forget(deviceId);
  }

  async start(): Promise<void> {
    const client = await connectMqtt({
      url: this.#opts.mqttUrl,
      username: this.#opts.username,
      password: this.#opts.password,
      clientId: `meterstack-service-${this.#clientSuffix}`,
      reconnectPeriod: 1000,
    });
    this.#client = client;
    this.#summary.start();
    const clockTopic = this.#opts.onWorldClock ? this.#opts.worldClockTopic : undefined;
    client.on('message', (topic, payload, packet) => {
      if (topic === clockTopic) this.#opts.onWorldClock?.(payload);
      else this.#onMessage(topic, payload, packet.retain);
    });
    client.on('error', (err) => this.#opts.log?.('warn', `twins: mqtt: ${err.message}`));
    // [MC-2.3] The service's session is clean, so QoS 1 on the broker→service leg guards nothing a TCP
    // connection does not: in-flight messages die with the session either way. The command path (state,
    // reply) takes QoS 0 and saves two PUBACKs per command; telemetry keeps QoS 1, as measured.
    await client.subscribeAsync(this.#filters());
  }

  #filters(): Record<string, { qos: 0 | 1 }> {
    const clockTopic = this.#opts.onWorldClock ? this.#opts.worldClockTopic : undefined;
    return Object.fromEntries([
      ...(['info', 'availability', 'telemetry'] as const).map((c) => [
        `${TOPIC_ROOT}/+/${c}`,
        { qos: 1 as const },
      ]),
      ...(['state', 'reply'] as const).map((c) => [`${TOPIC_ROOT}/+/${c}`, { qos: 0 as const }]),
      ...(clockTopic ? [[clockTopic, { qos: 1 as const }]] : []),
    ]);
  }

  /** Publishes a service message (QoS 1) on the twins' connection; resolves once the broker took it. */
  async publish(topic: string, payload: string): Promise<void> {
    const client = this.#client;
    if (!client?.connected) return;
    await client.publishAsync(topic, payload, { qos: 1 });
  }

  get(deviceId: string): Twin | undefined {
    return this.#twins.get(deviceId);
  }

  all(): IterableIterator<Twin> {
    return this.#twins.values();
  }

  /**
   * The next offline of `deviceId` is for `reason`: the broker's keep-alive ran out (its will follows),
   * or /sim/v1 unplugs a virtual meter (its goodbye follows). Forgotten once the device is online again.
   */
  expectOffline(deviceId: string, reason: OfflineReason): void {
    if (this.#twins.get(deviceId)?.online) this.#offlineHints.set(deviceId, reason);
  }

  /**
   * [MC-11.1] The clock a device's times are on: the world's for a virtual meter; for an external one,
   * wall time unless its info declares the world's [MC-4.7] (a replayed trace, a test client).
   */
  clockOf(deviceId: string): MeterClock {
    const base = this.#opts.clockOf?.(deviceId) ?? 'virtual';
    return base === 'wall' && this.#twins.get(deviceId)?.info?.clock === 'virtual' ? 'virtual' : base;
  }

  /** Sends a command and waits for the meter's reply. */
  command(
    deviceId: string,
    command: TwinCommand,
    timeoutMs = this.#opts.commandTimeoutMs ?? 5000,
  ): Promise<CommandOutcome> {
    if ((command as MeterCommand).op === 'recharge') return Promise.resolve(NO_CREDIT_OVER_TWINS);
    return this.#send(deviceId, command, timeoutMs);
  }

  /**
   * [LEDGER-2] Sends a credit whose ledger entry is already written, for a meter that runs in a fleet
   * worker (src/world/workers/hub.ts) or an external one (src/world/external-credits.ts, LEDGER-4): the only
   * way money travels over MQTT, and only from the ledger.
   */
  creditLedgerEntry(
    deviceId: string,
    credit: { amount: number; transactionId: string },
    timeoutMs = this.#opts.commandTimeoutMs ?? 5000,
  ): Promise<CommandOutcome> {
    return this.#send(deviceId, { op: 'recharge', ...credit }, timeoutMs);
  }

  #send(deviceId: string, command: MeterCommand, timeoutMs: number): Promise<CommandOutcome> {
    const twin = this.#twins.get(deviceId);
    const client = this.#client;
    if (!twin?.online || !client?.connected) return Promise.resolve({ ok: false, reason: 'offline' });
    // [MC-8.2] [MC-8.9] Unguessable (122 random bits): a meter cannot answer a command it never received.
    const id = `${this.#clientSuffix}.${randomUUID()}`;
    return this.#pending.send(deviceId, id, command.op, timeoutMs, () =>
      client.publish(topicFor(deviceId, 'cmd'), encode('cmd', commandToWire(id, command)), { qos: 1 }),
    );
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
    this.#pending.failAll();
    // Unsubscribed before the end: a message the broker still delivers after it would be PUBACKed into
    // an ended socket ("twins: mqtt: write after end" at SIGTERM with 10,000 meters saying goodbye).
    await this.#unsubscribe();
    await this.settled();
    await this.#client?.endAsync();
    this.#client = null;
    await this.saveReports();
    this.#refusals.stop();
    this.#malformed.stop();
    this.#summary.stop();
  }

  /** Bounded: a connection lost meanwhile would hold mqtt.js' UNSUBSCRIBE until a reconnect. */
  async #unsubscribe(): Promise<void> {
    const client = this.#client;
    if (!client?.connected) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, UNSUBSCRIBE_TIMEOUT_MS);
    });
    await Promise.race([client.unsubscribeAsync(Object.keys(this.#filters())).catch(() => undefined), late]);
    clearTimeout(timer);
  }

  /** Saves every report not yet saved; resolves once they are durable (or the save failed, logged). */
  saveReports(): Promise<void> {
    return this.#reports?.flush() ?? Promise.resolve();
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
        lastFutureTs: 0,
      };
      this.#twins.set(deviceId, twin);
    }
    return twin;
  }

  #onMessage(topic: string, payload: Buffer, retain: boolean): void {
    const parsed = parseTopic(topic);
    if (!parsed || parsed.channel === 'cmd') return;
    const { deviceId, channel } = parsed;
    // [MC-2.4] [MQTT-3.3.1-10] An empty publish clears a retained topic (a retired meter's,
    // world-snapshots.ts): no message. Events have nothing to clear: an empty one is malformed (MC-3.1),
    // counted and logged as any other [MC-9.6].
    if (payload.length === 0 && CLEARABLE.has(channel)) return;
    // [MC-2.7] Events are never retained; one that is would replay old telemetry or answer a new command.
    if (retain && (channel === 'telemetry' || channel === 'reply')) {
      this.#refusals.refuse('retained', deviceId, () => `retained ${channel} of ${deviceId}`);
      return;
    }
    const decoded = decode(channel, payload);
    if (!decoded.ok) {
      this.dropped.malformed++;
      this.#malformed.drop(deviceId, topic, decoded.error.rule, decoded.error.message);
      return;
    }
    const msg = decoded.value;
    // [MC-11.2] A wall-clock meter's times, on the world's clock before anything judges or keeps them.
    const offset = this.clockOf(deviceId) === 'wall' ? (this.#opts.wallOffset?.() ?? 0) : 0;
    switch (channel) {
      case 'info':
        this.#onInfo(deviceId, msg as InfoPayload);
        break;
      case 'state':
        this.#onState(deviceId, stateToWorld(msg as StatePayload, offset));
        break;
      case 'availability': {
        const twin = this.#twin(deviceId);
        const a = availabilityToWorld(msg as { online: boolean; ts?: number }, offset);
        const was = twin.online;
        twin.online = a.online;
        twin.onlineSince = a.ts ?? null;
        if (a.online !== was) this.#emitAvailability(deviceId, a.online, a.ts);
        if (!a.online) this.#pending.failDevice(deviceId);
        for (const w of this.#waiters) {
          if (w.deviceId === deviceId && w.online === a.online) {
            this.#waiters.delete(w);
            w.resolve(true);
          }
        }
        break;
      }
      case 'telemetry':
        this.#onTelemetry(
          this.#twin(deviceId),
          telemetryToWorld(msg as { samples: SamplePayload[] }, offset),
        );
        break;
      case 'reply':
        this.#onReply(deviceId, msg as Reply);
        break;
    }
  }

  /** [MC-1.4] The topic names the device; an info that names another is refused. */
  #onInfo(deviceId: string, info: InfoPayload): void {
    if (info.device_id !== deviceId) {
      this.#refusals.refuse(
        'infoDeviceMismatch',
        deviceId,
        () => `info on ${deviceId}'s topic naming device ${info.device_id}`,
      );
      return;
    }
    const twin = this.#twin(deviceId);
    const changed = infoChanges(twin.info, info);
    const replaced = replacedSerial(twin.info, info); // [MC-4.5]
    if (replaced) this.#bus.emit('meter.replaced', replaced, this.#ctx(deviceId));
    twin.info = info;
    this.#reports?.mark(deviceId);
    if (changed.length === 0) return;
    const { model, firmware, has_relay, telemetry_period_s } = info;
    this.#bus.emit(
      'meter.info',
      { model, firmware, has_relay, telemetry_period_s, changed },
      this.#ctx(deviceId),
    );
  }

  /** [MC-5.1] [MC-3.10] A state older than the one held, or stamped outside the window, changes nothing. */
  #onState(deviceId: string, state: StatePayload): void {
    const twin = this.#twin(deviceId);
    const reason = stateRefusal(state, twin.state, this.#now());
    if (reason !== null) {
      this.#refusals.refuse(
        reason,
        deviceId,
        () =>
          `state of ${deviceId} stamped ${state.ts} (held: ${twin.state?.ts ?? 'none'}, clock: ${this.#now()})`,
      );
      return;
    }
    const was = twin.state;
    twin.state = state;
    this.#reports?.mark(deviceId);
    if (!this.#bus.enabled) return;
    // Stamped when the meter says it happened (a cut-off inside a clock jump happens before the jump
    // ends), never later than now: the ts passed MC-3.10 but may run a little ahead.
    const ctx = { ...this.#ctx(deviceId), vt: Math.min(state.ts, this.#now()) };
    for (const e of stateEmissions(was, state)) this.#bus.emit(e.type, e.data, ctx);
  }

  #emitAvailability(deviceId: string, online: boolean, ts: number | undefined): void {
    const hint = this.#offlineHints.get(deviceId);
    this.#offlineHints.delete(deviceId);
    if (online) this.#bus.emit('meter.online', { since: ts ?? null }, this.#ctx(deviceId));
    else this.#bus.emit('meter.offline', { reason: offlineReason(ts, hint) }, this.#ctx(deviceId));
  }

  /** The events' context of a device: its id and, when known, its account. */
  #ctx(deviceId: string): { deviceId: string; accountId?: number } {
    const accountId = this.#opts.accountOf?.(deviceId);
    return accountId === undefined ? { deviceId } : { deviceId, accountId };
  }

  #onTelemetry(twin: Twin, msg: { samples: SamplePayload[] }): void {
    // [MC-7.9] [MC-7.10] Registers joined into one series; the common case needs none of it.
    const joined = this.#registers.judge(
      twin.deviceId,
      msg.samples,
      twin.latest,
      twin.info?.register_max_kwh,
      this.#now(),
    );
    const verdict = joined ?? judgeSamples(msg.samples, twin.latest, this.#now());
    for (const e of joined?.events ?? [])
      this.#bus.emit(e.type, e.data, { ...this.#ctx(twin.deviceId), vt: Math.min(e.ts, this.#now()) });
    if (verdict.refused.length > 0) {
      const held = twin.latest;
      const was = held ? `ts=${held.ts} energy=${held.energy}` : 'none';
      this.#refusals.refuseGrouped(
        verdict.refused,
        twin.deviceId,
        (first, n) =>
          `${n} sample(s) of ${twin.deviceId}, first ts=${first.sample.ts} energy=${first.sample.energy} ` +
          `(newest held: ${was}, clock: ${this.#now()})`,
      );
    }
    // A sample refused for good counts as handled (World.settle waits for it); a future one does not.
    let handled = 0;
    let future = 0;
    for (const r of verdict.refused)
      if (r.reason !== 'tsInFuture') handled = Math.max(handled, r.sample.ts);
      else future = Math.max(future, r.sample.ts);
    let samples = verdict.accepted;
    let newest = verdict.newest;
    // [MC-7.13] A run of samples that outvoted an unchecked wild one becomes the series.
    const reanchor = followTwin(twin, samples.length, verdict.refused, () =>
      this.#registers.held(twin.deviceId),
    );
    if (reanchor) {
      this.reanchored++;
      this.#opts.log?.('warn', reanchorLine(twin.deviceId, reanchor));
      samples = [...reanchor.run];
      newest = reanchor.run[reanchor.run.length - 1]!;
    }
    if (samples.length === 0) {
      if (handled > twin.lastSampleTs) twin.lastSampleTs = handled;
      if (future > twin.lastFutureTs) twin.lastFutureTs = future;
      return;
    }
    twin.latest = newest;
    if (newest) this.#summary.add(twin.deviceId, samples.length, newest);
    const last = samples[samples.length - 1]!;
    if (!this.#opts.ingest) {
      twin.lastSampleTs = Math.max(twin.lastSampleTs, last.ts, handled);
      twin.lastFutureTs = Math.max(twin.lastFutureTs, future);
      return;
    }
    const pk = this.#opts.devicePk?.(twin.deviceId);
    if (pk === undefined) {
      this.dropped.unknownDevice++;
      this.#opts.log?.('warn', `twins: telemetry from unknown device ${twin.deviceId} not stored`);
      return;
    }
    const rows: SampleRow[] = samples.map((s) => sampleRow(pk, s));
    const ingest = this.#opts.ingest;
    const durable = this.#registers.durable(twin.deviceId); // the continuity first, then its samples
    const done = (durable ? durable.then(() => ingest(rows)) : ingest(rows)).then(
      () => {
        twin.lastSampleTs = Math.max(twin.lastSampleTs, last.ts, handled);
        twin.lastFutureTs = Math.max(twin.lastFutureTs, future);
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

  /** [MC-8.9] A reply counts only from the device its command went to. */
  #onReply(deviceId: string, msg: Reply): void {
    const tag = SERVICE_COMMAND_ID.exec(msg.id)?.[1];
    if (tag !== undefined && tag !== this.#clientSuffix) {
      this.peerReplies++;
      return;
    }
    const verdict = this.#pending.reply(deviceId, msg);
    if (verdict.ok) return;
    if (verdict.why === 'unmatched')
      this.#refusals.refuse(
        'unmatchedReply',
        deviceId,
        () => `reply ${msg.id} from ${deviceId} (no command waits for it)`,
      );
    else
      this.#refusals.refuse(
        'forgedReply',
        deviceId,
        () => `reply ${msg.id} from ${deviceId} to a command sent to ${verdict.to}`,
      );
  }
}
