// What a twin's news means as events (issue 9 §1): pure functions of what the twin held and what the
// meter says now, so the rules (which field change is which event, what is a prepaid cut-off) are
// tested from a table. twins.ts only hands the results to the bus.

import type { InfoPayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { EventData, EventType } from '../events/schemas.ts';

export type OfflineReason = EventData<'meter.offline'>['reason'];

/** One event to emit: its type and payload. */
export type Emission = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/**
 * Why a meter went offline. [MC-6.2] The meter's own goodbye carries `ts`, the will (published by the
 * broker when the connection died) does not. A hint, set by whoever knew first (the broker's keep-alive
 * timeout, /sim/v1 unplugging a virtual meter), says more than either.
 */
export function offlineReason(ts: number | undefined, hint: OfflineReason | undefined): OfflineReason {
  if (hint !== undefined) return hint;
  return ts === undefined ? 'will' : 'bye';
}

const INFO_FIELDS = ['model', 'firmware', 'has_relay', 'telemetry_period_s', 'properties'] as const;

/** The info fields that differ; every field when nothing was held. */
export function infoChanges(was: InfoPayload | null, now: InfoPayload): string[] {
  if (was === null) return [...INFO_FIELDS];
  return INFO_FIELDS.filter((f) =>
    f === 'properties'
      ? JSON.stringify(was.properties) !== JSON.stringify(now.properties)
      : was[f] !== now[f],
  );
}

/** [MC-4.5] Another physical meter behind the device id: both infos name a serial, and they differ. */
export function replacedSerial(
  was: InfoPayload | null,
  now: InfoPayload,
): { old_serial: string; new_serial: string } | null {
  if (was?.serial === undefined || now.serial === undefined || was.serial === now.serial) return null;
  return { old_serial: was.serial, new_serial: now.serial };
}

/**
 * A prepaid meter cut off: its relay is commanded closed but stays open because the balance is below
 * zero (simulator/meter/relay.ts, spec §3).
 */
export function isCutOff(s: StatePayload): boolean {
  return s.mode === 'prepaid' && s.relay_commanded && !s.relay_state && s.balance < 0;
}

/**
 * The state events of a new accepted state against the one held. Nothing when nothing was held: the
 * first state the service learns of a meter is not news (nor what a restart restored, unless it differs).
 */
export function stateEmissions(was: StatePayload | null, now: StatePayload): Emission[] {
  if (was === null) return [];
  const out: Emission[] = [];
  if (was.relay_commanded !== now.relay_commanded || was.relay_state !== now.relay_state) {
    out.push({
      type: 'meter.relay',
      data: {
        commanded: now.relay_commanded,
        effective: now.relay_state,
        was: { commanded: was.relay_commanded, effective: was.relay_state },
      },
    });
  }
  if (was.mode !== now.mode) out.push({ type: 'meter.mode', data: { mode: now.mode, was: was.mode } });
  if (
    was.active_tariff !== now.active_tariff ||
    was.eb_tariff !== now.eb_tariff ||
    was.dg_tariff !== now.dg_tariff
  ) {
    out.push({
      type: 'meter.tariff',
      data: {
        active_tariff: now.active_tariff,
        was: was.active_tariff,
        eb_tariff: now.eb_tariff,
        dg_tariff: now.dg_tariff,
      },
    });
  }
  // [MC-5] wifi_type is `Secondary` exactly while the meter is in configuration mode (button hold).
  if (was.wifi_type !== now.wifi_type) {
    out.push({
      type: 'meter.wifi',
      data: { wifi_type: now.wifi_type, config_mode: now.wifi_type === 'Secondary' },
    });
  }
  // [MC-5.5] tamper conditions appeared or cleared (absent: none).
  const tamperWas = was.tamper ?? [];
  const tamperNow = now.tamper ?? [];
  if (String(tamperWas) !== String(tamperNow))
    out.push({ type: 'meter.tamper', data: { tamper: [...tamperNow], was: [...tamperWas] } });
  // [MC-5.6] a warning threshold fell through: the reported one is lower than before (or new).
  const low = now.low_balance ?? null;
  const wasLow = was.low_balance ?? null;
  if (low !== null && (wasLow === null || low < wasLow))
    out.push({ type: 'meter.low_balance', data: { threshold: low, balance: now.balance } });
  const cut = isCutOff(now);
  if (cut && !isCutOff(was)) out.push({ type: 'meter.cutoff', data: { balance: now.balance } });
  else if (!cut && isCutOff(was) && now.relay_state)
    out.push({ type: 'meter.restored', data: { balance: now.balance } });
  return out;
}
