// The bounds of what a client may set through the live routes, in one place: `/sim/v1` validates its
// bodies with them (src/sim-api/schemas.ts), and a snapshot's values are checked against the same ones
// before a restore touches the world [SNAP-4], so a file can hold nothing a client could not have set.

import { z } from 'zod';

/** Virtual ms per wall ms; 0 freezes the clock. The same bound as `--speed`. */
export const speed = z.number().min(0).max(1_000_000);
/** The most one `POST /sim/v1/clock/advance` moves the clock: ten years. */
export const advanceSeconds = z
  .number()
  .int()
  .min(0)
  .max(10 * 366 * 86_400);
/** A meter's opening balance, integer paise. */
export const openingBalance = z.number().int().min(-100_000_000).max(100_000_000);
/** One recharge, integer paise. */
export const rechargeAmount = z.number().int().positive().max(100_000_000);
/** A tariff, paise per kWh. */
export const tariff = z.number().int().min(0).max(100_000);
export const telemetryPeriodS = z.number().int().min(1).max(86_400);
export const loadWatts = z.number().min(0).max(100_000);
