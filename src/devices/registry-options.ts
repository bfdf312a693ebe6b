// What a TwinRegistry is built from, and what `restore` gives back to it.

import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { EventBus } from '../events/bus.ts';
import type { Metrics } from '../events/metrics.ts';
import type { SampleRow } from '../store/types.ts';
import type { MeterClock } from './meter-clock.ts';
import type { RegisterContinuity } from './register-continuity.ts';
import type { Log, TwinReport } from './types.ts';

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
  /** The service's metrics, where the twins count what they drop (TWIN_METRICS); default their own. */
  metrics?: Metrics;
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
  /**
   * [MC-2.3] The QoS the twins subscribe to telemetry with; default 1. The embedded broker's
   * (ServiceBroker.telemetryQos) is 0: the session is clean, so a PUBACK per reading guards nothing.
   */
  telemetryQos?: 0 | 1;
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
