// Device twins: the service's mirror of every meter, fed only by MQTT (so a virtual meter, a bridged
// serial meter and a real one look the same), plus command round trips with typed failures.
//
// This file is the narrow core: the twins map, the connection's lifecycle, commands out, and the one
// `switch` on the channel that hands each message to its handler in channels/ (info, state,
// availability, telemetry, reply), as aedes picks one lib/handlers/ file per packet type.

import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { decode } from '../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload, SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { parseTopic } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { Metrics } from '../events/metrics.ts';
import { connectMqtt } from '../mqtt/connect.ts';
import { registerCensus } from './census.ts';
import { Availability } from './channels/availability.ts';
import { NO_CREDIT_OVER_TWINS, sendCommand } from './channels/cmd.ts';
import {
  type ChannelContext,
  createChannelContext,
  type TwinCounters,
  twinCounters,
} from './channels/context.ts';
import { onInfo } from './channels/info.ts';
import { onReply } from './channels/reply.ts';
import { onState } from './channels/state.ts';
import { Telemetry } from './channels/telemetry.ts';
import { MalformedLog } from './malformed-log.ts';
import { availabilityToWorld, type MeterClock, stateToWorld, telemetryToWorld } from './meter-clock.ts';
import type { Reply } from './pending-commands.ts';
import type { RefusalReason } from './refusals.ts';
import type { RestoredTwin, TwinRegistryOptions } from './registry-options.ts';
import { CHECKED, UNCHECKED } from './series-anchor.ts';
import { twinFilters, unsubscribeWithin } from './subscriptions.ts';
import type { OfflineReason } from './twin-events.ts';
import type { CommandOutcome, Twin, TwinCommand } from './types.ts';

export type { RestoredTwin, TwinRegistryOptions } from './registry-options.ts';

/** [MC-2.4] The retained channels, where a zero-length payload means "cleared". */
const CLEARABLE: ReadonlySet<string> = new Set(['info', 'state', 'availability']);

export class TwinRegistry {
  readonly #opts: TwinRegistryOptions;
  readonly #twins = new Map<string, Twin>();
  readonly #clientSuffix = randomBytes(4).toString('hex');
  #client: MqttClient | null = null;
  /** Counted in the service's metrics (TWIN_METRICS), or in a registry of this one's own. */
  readonly #counters: TwinCounters;
  /** [MC-9.7] Malformed messages' log lines, bounded as refusals' are. */
  readonly #malformed: MalformedLog;
  /** What the channel handlers work on (channels/context.ts). */
  readonly #cx: ChannelContext;
  readonly #availability: Availability;
  readonly #telemetry: Telemetry;

  constructor(opts: TwinRegistryOptions) {
    this.#opts = opts;
    const metrics = opts.metrics ?? new Metrics();
    this.#counters = twinCounters(metrics);
    registerCensus(metrics, () => this.#twins.values());
    this.#cx = createChannelContext(opts, this.#twins, this.#counters);
    this.#malformed = new MalformedLog(opts.log ?? (() => {}));
    this.#availability = new Availability(this.#cx);
    this.#telemetry = new Telemetry(this.#cx, { devicePk: opts.devicePk, ingest: opts.ingest });
  }

  /**
   * Well-formed messages refused for what they say, by reason [MC-9.5]: forged and unmatched replies
   * [MC-8.9], implausible times [MC-3.10], stale states [MC-5.1], energy going backwards [MC-7.5], an
   * info naming another device [MC-1.4], retained events [MC-2.7]. Samples count one by one.
   */
  get refused(): Readonly<Record<RefusalReason, number>> {
    return this.#cx.refusals.counts;
  }

  /** Puts back what meters last reported before a restart; call before `start`. Every twin starts offline. */
  restore(twins: Iterable<RestoredTwin>): void {
    for (const r of twins) {
      const twin = this.#cx.twin(r.deviceId);
      twin.info = r.info;
      twin.state = r.state;
      twin.latest = r.latest;
      twin.anchor = r.anchorChecked ? CHECKED : UNCHECKED;
      if (r.register) this.#cx.registers.restore(r.deviceId, r.register);
    }
  }

  /**
   * Forgets every twin and puts back `twins` instead (a world snapshot restored, a reset): commands in
   * flight fail, hints go. Call once the meters that fed the old twins are gone.
   */
  replace(twins: Iterable<RestoredTwin>): void {
    this.#cx.pending.failAll();
    this.#twins.clear();
    this.#availability.forget();
    this.#cx.registers.forget();
    this.restore(twins);
  }

  /** Forgets one device's twin (its meter was reset): the next thing it says starts a new one. */
  forget(deviceId: string): void {
    this.#cx.pending.failDevice(deviceId);
    this.#twins.delete(deviceId);
    this.#availability.forget(deviceId);
    this.#cx.registers.forget(deviceId);
  }

  async start(): Promise<void> {
    const client = await connectMqtt({
      url: this.#opts.mqttUrl,
      username: this.#opts.username,
      password: this.#opts.password,
      clientId: `meterstack-service-${this.#clientSuffix}`,
      reconnectPeriod: 1000,
      // Telemetry comes at QoS 1 from an external broker: one write per turn for its PUBACKs.
      coalesceWrites: true,
      packetLog: false,
    });
    this.#client = client;
    this.#cx.summary.start();
    const clockTopic = this.#opts.onWorldClock ? this.#opts.worldClockTopic : undefined;
    client.on('message', (topic, payload, packet) => {
      if (topic === clockTopic) this.#opts.onWorldClock?.(payload);
      else this.#onMessage(topic, payload, packet.retain);
    });
    client.on('error', (err) => this.#opts.log?.('warn', `twins: mqtt: ${err.message}`));
    await client.subscribeAsync(this.#filters());
  }

  #filters(): Record<string, { qos: 0 | 1 }> {
    return twinFilters(
      this.#opts.onWorldClock ? this.#opts.worldClockTopic : undefined,
      this.#opts.telemetryQos,
    );
  }

  /** Publishes a service message (QoS 1) on the twins' connection; resolves once the broker took it. */
  async publish(topic: string, payload: string): Promise<void> {
    const client = this.#client;
    if (!client?.connected) return;
    await client.publishAsync(topic, payload, { qos: 1 });
  }

  /** Whether the twins' MQTT connection is up now (GET /readyz's `broker`, PM-7). */
  get connected(): boolean {
    return this.#client?.connected === true;
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
    if (this.#twins.get(deviceId)?.online) this.#availability.expectOffline(deviceId, reason);
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
    return sendCommand(this.#cx, this.#client, this.#clientSuffix, deviceId, command, timeoutMs);
  }

  /** Resolves true once the twin's availability equals `online`, false after `timeoutMs`. */
  waitForAvailability(deviceId: string, online: boolean, timeoutMs = 5000): Promise<boolean> {
    if ((this.#twins.get(deviceId)?.online ?? false) === online) return Promise.resolve(true);
    return this.#availability.waitFor(deviceId, online, timeoutMs);
  }

  /** Resolves when every telemetry message received so far is durable in storage. */
  settled(): Promise<void> {
    return this.#telemetry.settled();
  }

  async stop(): Promise<void> {
    this.#cx.pending.failAll();
    // Unsubscribed before the end: a message the broker still delivers after it would be PUBACKed into
    // an ended socket ("twins: mqtt: write after end" at SIGTERM with 10,000 meters saying goodbye).
    if (this.#client) await unsubscribeWithin(this.#client, Object.keys(this.#filters()));
    await this.settled();
    await this.#client?.endAsync();
    this.#client = null;
    await this.saveReports();
    this.#cx.refusals.stop();
    this.#malformed.stop();
    this.#cx.summary.stop();
  }

  /** Saves every report not yet saved; resolves once they are durable (or the save failed, logged). */
  saveReports(): Promise<void> {
    return this.#cx.reports?.flush() ?? Promise.resolve();
  }

  /** The one switch: each channel's message to its handler in channels/. */
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
      this.#cx.refusals.refuse('retained', deviceId, () => `retained ${channel} of ${deviceId}`);
      return;
    }
    const decoded = decode(channel, payload);
    if (!decoded.ok) {
      this.#counters.malformed.inc();
      this.#malformed.drop(deviceId, topic, decoded.error.rule, decoded.error.message);
      return;
    }
    const msg = decoded.value;
    // [MC-11.2] A wall-clock meter's times, on the world's clock before anything judges or keeps them.
    const offset = this.clockOf(deviceId) === 'wall' ? (this.#opts.wallOffset?.() ?? 0) : 0;
    switch (channel) {
      case 'info':
        onInfo(this.#cx, deviceId, msg as InfoPayload);
        break;
      case 'state':
        onState(this.#cx, deviceId, stateToWorld(msg as StatePayload, offset));
        break;
      case 'availability':
        this.#availability.on(
          deviceId,
          availabilityToWorld(msg as { online: boolean; ts?: number; reason?: string }, offset),
        );
        break;
      case 'telemetry':
        this.#telemetry.on(
          this.#cx.twin(deviceId),
          telemetryToWorld(msg as { samples: SamplePayload[] }, offset),
        );
        break;
      case 'reply':
        onReply(this.#cx, deviceId, msg as Reply, this.#clientSuffix);
        break;
    }
  }
}
