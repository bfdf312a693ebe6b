// What every channel handler works on: the registry's twins and the parts they share (refusals, reports,
// register joins, the summary, commands waiting), built once per registry and handed to each handler as
// aedes hands each of its lib/handlers/ the client. A handler never sees the MQTT connection.

import { type EventBus, silentBus } from '../../events/bus.ts';
import type { Counter, Metrics } from '../../events/metrics.ts';
import { PendingCommands } from '../pending-commands.ts';
import { RefusalLog } from '../refusals.ts';
import { RegisterJoins } from '../register-join.ts';
import type { TwinRegistryOptions } from '../registry-options.ts';
import { ReportBatch } from '../report-batch.ts';
import { TelemetrySummary } from '../telemetry-summary.ts';
import type { Log, Twin } from '../types.ts';

/** The events' context of a device: its id and, when known, its account. */
export type DeviceContext = { deviceId: string; accountId?: number };

/** The twins' counters, metrics of the service's registry (TWIN_METRICS), not public fields. */
export interface TwinCounters {
  /** Malformed messages dropped [MC-9.2]. */
  readonly malformed: Counter;
  /** Messages from devices the service does not know, dropped [MC-9.2]. */
  readonly unknownDevice: Counter;
  /** Samples the store refused to take. */
  readonly ingestFailed: Counter;
  /** Replies to commands another service process sent (issue 11 §4): ignored, not refused. */
  readonly peerReplies: Counter;
  /** [MC-7.13] Series that a run of agreeing samples took over from an unchecked wild one. */
  readonly reanchored: Counter;
}

/** The names the twins count under in the service's metrics (src/events/metrics.ts). */
export const TWIN_METRICS = {
  malformed: 'meterstack_twin_messages_malformed_total',
  unknownDevice: 'meterstack_twin_messages_unknown_device_total',
  ingestFailed: 'meterstack_twin_samples_ingest_failed_total',
  peerReplies: 'meterstack_twin_peer_replies_total',
  reanchored: 'meterstack_twin_series_reanchored_total',
} as const;

/** The twins' counters in `metrics`. */
export function twinCounters(metrics: Metrics): TwinCounters {
  return {
    malformed: metrics.counter(TWIN_METRICS.malformed, 'Malformed MQTT messages the twins dropped [MC-9.2]'),
    unknownDevice: metrics.counter(
      TWIN_METRICS.unknownDevice,
      'MQTT messages from devices the service does not know, dropped [MC-9.2]',
    ),
    ingestFailed: metrics.counter(TWIN_METRICS.ingestFailed, 'Samples the store refused to take'),
    peerReplies: metrics.counter(
      TWIN_METRICS.peerReplies,
      'Replies to commands another service process sent, ignored',
    ),
    reanchored: metrics.counter(
      TWIN_METRICS.reanchored,
      'Series a run of agreeing samples took over from an unchecked wild one [MC-7.13]',
    ),
  };
}

export interface ChannelContext {
  readonly bus: EventBus;
  /** The service's clock, against which meters' timestamps are judged [MC-3.10]. */
  readonly now: () => number;
  readonly log: Log | undefined;
  readonly counters: TwinCounters;
  readonly refusals: RefusalLog;
  /** Saves reported info and state [MC-5.4]; null when nothing persists them. */
  readonly reports: ReportBatch | null;
  readonly registers: RegisterJoins;
  readonly summary: TelemetrySummary;
  readonly pending: PendingCommands;
  /** The twin of `deviceId`, made (offline, knowing nothing) if there was none. */
  twin(deviceId: string): Twin;
  /** The twin of `deviceId` if there is one. */
  get(deviceId: string): Twin | undefined;
  ctx(deviceId: string): DeviceContext;
}

/** The context over the registry's `twins` map and `counters`, built once per registry. */
export function createChannelContext(
  opts: TwinRegistryOptions,
  twins: Map<string, Twin>,
  counters: TwinCounters,
): ChannelContext {
  const bus = opts.bus ?? silentBus();
  const log = opts.log;
  const ctx = (deviceId: string): DeviceContext => {
    const accountId = opts.accountOf?.(deviceId);
    return accountId === undefined ? { deviceId } : { deviceId, accountId };
  };
  const save = opts.saveReports;
  return {
    bus,
    now: opts.now ?? Date.now,
    log,
    counters,
    refusals: new RefusalLog({
      log: log ?? (() => {}),
      // [MC-9.5] Within the log's bounds: each refusal told, and one event per reason summed up.
      report: (r) =>
        bus.emit(
          'contract.refused',
          { reason: r.reason, count: r.count, detail: r.detail },
          r.deviceId === undefined ? undefined : ctx(r.deviceId),
        ),
    }),
    reports: save
      ? new ReportBatch({
          save,
          delayMs: opts.reportDelayMs,
          log,
          reportOf: (deviceId) => {
            const t = twins.get(deviceId);
            return t && { deviceId, info: t.info, state: t.state };
          },
        })
      : null,
    registers: new RegisterJoins({ save: opts.saveRegister, log }),
    summary: new TelemetrySummary({ bus, intervalMs: opts.summaryIntervalMs }),
    pending: new PendingCommands(bus, ctx),
    twin: (deviceId) => {
      let twin = twins.get(deviceId);
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
        twins.set(deviceId, twin);
      }
      return twin;
    },
    get: (deviceId) => twins.get(deviceId),
    ctx,
  };
}
