// Request and response schemas of the simulation control API (/sim/v1). Paths and field names are
// fixed: QA scripts depend on them.

import { z } from 'zod';
import { DEVICE_ID_PATTERN, SERVICE_LOGIN_SET, SERVICE_LOGINS } from '../../firmware-protocol/mqtt/topics.ts';
import { MODELS, MODES } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { EXAMPLE_PATH } from '../api/v2/examples.ts';
import { checkDayRange, INTERVALS, isoDate } from '../api/v2/schemas.ts';
import { positiveIntParam } from '../http/params.ts';
import {
  advanceSeconds,
  loadWatts,
  openingBalance,
  rechargeAmount,
  speed,
  tariff,
  telemetryPeriodS,
} from '../world/bounds.ts';
import { prepaidPolicyBody } from './policy-schemas.ts';

const udf = z.string().max(255).nullable().optional();
export const udfFields = { udf1: udf, udf2: udf, udf3: udf, udf4: udf, udf5: udf };

export const accountBody = z.strictObject({ name: z.string().min(1).max(200) });
export const accountIdParams = z.object({
  account_id: positiveIntParam('account_id', EXAMPLE_PATH.account_id),
});
/** A week: the longest wall-clock lifetime; a key meant to live longer takes `expires_at` or none. */
export const MAX_KEY_TTL_SECONDS = 7 * 86_400;
export const keyBody = z
  .strictObject({
    expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
    // [CON-4] A lifetime on the wall clock, which a virtual clock advance does not shorten (the console's
    // session keys, spec-decisions 135).
    ttl_seconds: z.number().int().min(1).max(MAX_KEY_TTL_SECONDS).optional(),
  })
  .optional();
export const apiKeyParams = z.object({ api_key: z.string().min(1).max(200) });

export const spaceBody = z.strictObject({
  account_id: z.number().int().positive(),
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  ...udfFields,
});

export const deviceBody = z.strictObject({
  account_id: z.number().int().positive(),
  space_id: z.number().int().positive().nullable().optional(),
  device_id: z
    .string()
    .regex(DEVICE_ID_PATTERN, 'String should be 1-64 characters of A-Z a-z 0-9 _ . -')
    // [MC-1.5] The service's own broker logins: a meter with one of these ids could never log in.
    .refine(
      (id) => !SERVICE_LOGIN_SET.has(id),
      `is one of the service's own broker logins (${SERVICE_LOGINS.join(', ')})`,
    )
    .optional(),
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  model: z.enum(MODELS).optional(),
  mode: z.enum(MODES).optional(),
  balance: openingBalance.optional(),
  eb_tariff: tariff.optional(),
  dg_tariff: tariff.optional(),
  active_tariff: z.union([z.literal(1), z.literal(2)]).optional(),
  load_watts: loadWatts.optional(),
  load_profile: z.enum(['constant', 'household']).optional(),
  telemetry_period_s: telemetryPeriodS.optional(),
  online: z.boolean().optional(),
  backfill_days: z.number().int().min(0).max(3660).optional(),
  backfill_period_s: z.number().int().min(60).max(86_400).optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  external: z
    .boolean()
    .optional()
    .describe(
      'true: create only the device and its MQTT credentials; the meter runs elsewhere (bridge, real meter)',
    ),
  prepaid_policy: prepaidPolicyBody.nullable().optional(),
  ...udfFields,
});

export const deviceIdParams = z.object({
  device_id: z.string().min(1).max(64).meta({ example: EXAMPLE_PATH.device_id }),
});
export const onlineBody = z.strictObject({ online: z.boolean() });
export const rechargeBody = z.strictObject({
  amount: rechargeAmount,
  transaction_id: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'String should be 1-64 characters of A-Z a-z 0-9 _ . : -'),
});
export const loadBody = z.strictObject({
  watts: loadWatts,
  profile: z.enum(['constant', 'household']).optional(),
  power_factor: z.number().min(0.1).max(1).optional(),
});
export const buttonBody = z.strictObject({ hold_seconds: z.number().min(0).max(600) });
export const advanceBody = z.strictObject({ seconds: advanceSeconds });

/** Virtual ms per wall ms; 0 freezes the clock. The same bound as `--speed`. */
export const speedBody = z.strictObject({ speed });

export type DeviceBody = z.infer<typeof deviceBody>;

/**
 * [HX-2] GET /sim/v1/devices/{id}/history.csv: IST days and an interval, validated as endpoint 12
 * validates its own (the same messages, at `from` and `to`).
 */
export const historyCsvQuery = z
  .object({
    from: isoDate,
    to: isoDate,
    interval: z.enum(INTERVALS).default('1d'),
  })
  .superRefine((q, ctx) => checkDayRange(q, 'from', 'to', ctx));
