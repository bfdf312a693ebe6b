// Response shapes of the v2 API (spec §2), for the OpenAPI document. Responses are serialized as
// built (see http/app.ts); test/api checks them against the spec field by field.

import { z } from 'zod';
import { MODES } from '../../../simulator/meter/types.ts';

const udfs = {
  udf1: z.string().nullable(),
  udf2: z.string().nullable(),
  udf3: z.string().nullable(),
  udf4: z.string().nullable(),
  udf5: z.string().nullable(),
};
const timestamp = z.string().describe('ISO 8601 with milliseconds, +05:30');

export const deviceSummary = z.object({
  device_id: z.string(),
  name: z.string(),
  active_mode: z.enum(MODES),
  ...udfs,
});

export const space = z.object({
  space_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  devices: z.array(deviceSummary),
  tags: z.array(z.unknown()).describe('always empty'),
  ...udfs,
});

export const reading = z.object({
  property_id: z.string(),
  context_type: z.enum(['cumulative', 'instantaneous']),
  value: z.number(),
  unit: z.string(),
});

export const device = z.object({
  device_id: z.string(),
  name: z.string(),
  description: z.string(),
  space: z.object({ id: z.number().int(), name: z.string(), description: z.string() }),
  public_access: z.boolean(),
  public_hash: z.string().nullable(),
  active_mode: z.enum(MODES),
  balance: z.number().int().describe('paise'),
  has_relay: z.boolean(),
  is_online: z.boolean(),
  is_shared: z.boolean(),
  readings: z.array(reading),
  tags: z.array(z.unknown()),
  ...udfs,
});

export const metrics = z.object({
  device_id: z.string(),
  eb_tariff: z.number().int(),
  dg_tariff: z.number().int(),
  active_tariff: z.union([z.literal(1), z.literal(2)]),
  energy: z.number().describe('kWh, cumulative'),
  active_power: z.number().describe('W'),
  voltage: z.number().describe('V'),
  balance: z.number().int().describe('paise'),
  relay_state: z.boolean(),
  mode: z.enum(['PREPAID', 'POSTPAID', 'MEASUREMENT', 'RELAY_OFF']),
  pg_enabled: z.boolean(),
});

export const history = z.object({
  device_id: z.string(),
  from_date: z.string(),
  to_date: z.string(),
  readings: z.array(
    z.object({
      property_id: z.string(),
      value: z.number(),
      unit: z.string(),
      timestamp: z.string().describe('end of interval, +05:30'),
    }),
  ),
});

export const wifi = z.object({
  ssid: z.string(),
  password: z.string(),
  rssi: z.number().int().describe('dBm'),
  type: z.enum(['Primary', 'Secondary']),
});

const errorEnvelope = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    detail: z.union([z.string(), z.array(z.object({ loc: z.array(z.string()), msg: z.string() }))]),
  }),
  message: z.string().optional(),
  timestamp,
});

function ok<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, message: z.string().optional(), timestamp });
}

/** The documented responses of a route: its success shape and the error envelope. */
export function responses<T extends z.ZodType>(data: T) {
  return { 200: ok(data), '4xx': errorEnvelope };
}

export const done = z.literal(true);
