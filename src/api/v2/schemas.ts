// Request and response schemas of the v2 API, exactly as the spec names them. The same schemas
// validate requests and document the OpenAPI contract.

import { z } from 'zod';
import { MODES } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { byteLimitProblem, PASSWORD_MAX_CHARS, SSID_MAX_CHARS } from '../../../simulator/meter/index.ts';
import { positiveIntParam } from '../../http/params.ts';
import { DAY_MS, istDayStart } from '../../time/ist.ts';
import { EXAMPLE_PATH } from './examples.ts';

// Bodies use z.object, which drops unknown keys: a client that PUTs back a whole record works, and
// nothing outside the listed fields is ever applied (no mass assignment).
export const spaceParams = z.object({ space_id: positiveIntParam('space_id', EXAMPLE_PATH.space_id) });
export const deviceParams = z.object({
  device_id: z.string().min(1).max(64).meta({ example: EXAMPLE_PATH.device_id }),
});

const text = (max: number) => z.string().max(max);
export const metadataBody = z
  .object({
    name: text(200).min(1).optional(),
    description: text(2000).optional(),
    udf1: text(255).nullable().optional(),
  })
  .refine((b) => b.name !== undefined || b.description !== undefined || b.udf1 !== undefined, {
    message: 'At least one of name, description, udf1 is required',
  });

export const relayBody = z.object({ state: z.boolean() });
export const modeBody = z.object({ mode: z.enum(MODES) });
/** Paise per kWh; 0 is allowed (free supply), more than ₹1000/kWh is taken as a typo. */
export const tariffBody = z.object({ tariff: z.number().int().min(0).max(100_000) });
export const activeTariffBody = z.object({
  active_tariff: z.union([z.literal(1), z.literal(2)], { error: 'Input should be 1 (EB) or 2 (DG)' }),
});
/**
 * A string the meter stores: at most `max` characters (spec §8, its message) and, since firmware
 * stores bytes, at most `max` bytes in UTF-8 [MC-3.9] (spec-decisions 41).
 */
const deviceText = (max: number, min = 0) =>
  z
    .string()
    .min(min, { abort: true })
    .max(max, { abort: true })
    .describe(`at most ${max} characters and ${max} bytes in UTF-8`)
    .superRefine((s, ctx) => {
      const problem = byteLimitProblem(s, max);
      if (problem) ctx.addIssue({ code: 'custom', message: `String should have ${problem}` });
    });
export const wifiBody = z.object({
  ssid: deviceText(SSID_MAX_CHARS, 1),
  password: deviceText(PASSWORD_MAX_CHARS),
});
export const gatewayBody = z.object({ state: z.boolean() });

export const INTERVALS = ['15m', '30m', '60m', '1d'] as const;
export const HISTORY_PROPERTIES = [
  'energy',
  'active_energy',
  'active_power',
  'voltage',
  'current',
  'power_factor',
  'apparent_power',
  'reactive_power',
] as const;

/** Longest range one history request may cover: a leap year of days, so "a year at 15m" always fits. */
export const MAX_HISTORY_DAYS = 366;

const required = (what: string) => (iss: { input: unknown }) =>
  iss.input === undefined ? 'Field required' : what;

/** Spec rule 5: a message about the format mismatch. */
const DATE_FORMAT = 'Input should be a date in the format YYYY-MM-DD';

export const isoDate = z
  .string({ error: required(DATE_FORMAT) })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: DATE_FORMAT, abort: true })
  .refine((d) => istDayStart(d) !== null, {
    error: (iss) => `Input should be a valid calendar date, not ${iss.input}`,
    abort: true,
  })
  .describe('YYYY-MM-DD (zero-padded), an Asia/Kolkata calendar day');

/** Endpoint 12's query, with the spec's rules 4-6 as validation messages. */
export const historyQuery = z
  .object({
    // An enum in the document (a generated client offers the values); the spec's message (rule 4).
    property_id: z
      .enum(HISTORY_PROPERTIES, { error: required('Invalid property ID') })
      .describe("availability varies by model: the device record's `readings` lists its properties"),
    from_date: isoDate,
    to_date: isoDate,
    interval: z.enum(INTERVALS).default('1d'),
  })
  .superRefine((q, ctx) => checkDayRange(q, 'from_date', 'to_date', ctx));

/**
 * Spec rule 6 and decision 11, for any pair of day fields (endpoint 12's, and /sim/v1's CSV export,
 * HX-2): `from` on or before `to`, at most MAX_HISTORY_DAYS days.
 */
export function checkDayRange<F extends string, T extends string>(
  q: Record<F | T, string>,
  fromKey: F,
  toKey: T,
  ctx: z.RefinementCtx,
): void {
  const from = istDayStart(q[fromKey]) as number;
  const to = istDayStart(q[toKey]) as number;
  if (from > to)
    ctx.addIssue({
      code: 'custom',
      path: [fromKey],
      message: `Input should be on or before ${toKey}`,
    });
  else if ((to - from) / DAY_MS + 1 > MAX_HISTORY_DAYS) {
    ctx.addIssue({
      code: 'custom',
      path: [toKey],
      message: `Range should cover at most ${MAX_HISTORY_DAYS} days`,
    });
  }
}
