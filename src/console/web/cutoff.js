// The low-balance hint [spec-decisions 193]: how long a prepaid meter's balance lasts at the power it
// draws now, shown when that is under a day, so a cut-off is seen coming, not only when it happened.

import { span } from './format.js';

/** Shown when the balance lasts less than this at the current draw. */
export const HINT_UNDER_S = 24 * 3600;

/**
 * Seconds until a prepaid meter's balance reaches zero at its current power and active tariff, or
 * null when it is not drawing down (not prepaid, relay open, no power, no tariff, nothing left).
 */
export function secondsToCutoff(row) {
  if (row.mode !== 'prepaid' || row.relay_state !== true) return null;
  const tariff = row.active_tariff === 2 ? row.dg_tariff : row.eb_tariff; // paise per kWh
  if (!(row.balance > 0) || !(row.active_power > 0) || !(tariff > 0)) return null;
  const paisePerHour = (row.active_power / 1000) * tariff;
  return (row.balance / paisePerHour) * 3600;
}

/** "about 5 h to cut-off" when under HINT_UNDER_S, else null. */
export function cutoffHint(row) {
  const s = secondsToCutoff(row);
  if (s === null || s >= HINT_UNDER_S) return null;
  return `about ${span(s)} to cut-off`;
}
