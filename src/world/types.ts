// The world's shared vocabulary: its log, the input of a new device, its errors, and what it keeps
// per virtual meter beside the meter itself.

import type { MeterModel, Mode, TariffSlot } from '../../firmware-protocol/mqtt/vocabulary.ts';
import type { PrepaidPolicy } from '../../simulator/meter/policy.ts';
import type { LoadProfile } from '../../simulator/meter/types.ts';
import type { Udfs } from '../store/types.ts';

export type { Log } from '../log/types.ts';

/** Per virtual meter: its MQTT secret, the highest ledger seq its state includes, its device pk. */
export interface MeterMeta {
  secret: string;
  ledgerSeq: number;
  pk: number;
}

export interface NewDeviceInput extends Partial<Udfs> {
  accountId: number;
  spaceId: number | null;
  deviceId?: string;
  name?: string;
  description?: string;
  model?: MeterModel;
  mode?: Mode;
  balance?: number;
  ebTariff?: number;
  dgTariff?: number;
  activeTariff?: TariffSlot;
  load?: LoadProfile;
  telemetryPeriodS?: number;
  online?: boolean;
  /** Days of past readings to give the meter before it starts. */
  backfillDays?: number;
  /** Telemetry period of the backfilled history (default: the live period). */
  backfillPeriodS?: number;
  seed?: number;
  /**
   * An external meter (a real one, a bridged serial meter, or a virtual meter in another process):
   * the device and its MQTT credentials are created, but no meter runs here.
   */
  external?: boolean;
  /** Issue 12 §4: the meter's prepaid policy (simulator/meter/policy.ts); absent or null = none. */
  prepaidPolicy?: PrepaidPolicy | null;
}

export class WorldError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}
