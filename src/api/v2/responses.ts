// Response shapes of the v2 API (spec §2), for the OpenAPI document: named component schemas
// (`.meta({ id })`, collected by the swagger transform into components.schemas) with demo-world
// examples, and each route's documented responses. Responses are serialized as built, never
// validated against these (see src/app.ts); test/api checks them against the spec field by field.

import { z } from 'zod';
import { MODES } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { errorResponses, RATE_LIMIT_HEADERS, timestampSchema } from '../../http/error-schemas.ts';
import type { ErrorCode } from '../../http/errors.ts';
import * as ex from './examples.ts';
import { HISTORY_PROPERTIES } from './schemas.ts';

const udfs = {
  udf1: z.string().nullable().describe('user-defined; the intended stable identifier (spec §1)'),
  udf2: z.string().nullable(),
  udf3: z.string().nullable(),
  udf4: z.string().nullable(),
  udf5: z.string().nullable(),
};
const propertyId = z.enum(HISTORY_PROPERTIES);
const mode = z.enum(MODES).describe('lowercase operating mode');

export const deviceSummary = z
  .object({ device_id: z.string(), name: z.string(), active_mode: mode, ...udfs })
  .meta({ id: 'DeviceSummary', example: ex.deviceSummaryExample });

export const space = z
  .object({
    space_id: z.number().int(),
    name: z.string(),
    description: z.string(),
    devices: z.array(deviceSummary),
    tags: z.array(z.unknown()).describe('always empty'),
    ...udfs,
  })
  .meta({ id: 'Space', example: ex.spaceExample });

export const reading = z
  .object({
    property_id: propertyId,
    context_type: z.enum(['cumulative', 'instantaneous']),
    value: z.number(),
    unit: z.string(),
  })
  .meta({ id: 'Reading', example: ex.readingExample });

export const device = z
  .object({
    device_id: z.string().describe('not stable across replacement: use udf1..udf5 as keys'),
    name: z.string(),
    description: z.string(),
    space: z.object({ id: z.number().int(), name: z.string(), description: z.string() }),
    public_access: z.boolean(),
    public_hash: z.string().nullable(),
    active_mode: mode,
    balance: z.number().int().describe('prepaid balance in paise'),
    has_relay: z.boolean(),
    is_online: z.boolean().describe('check it before a control operation (spec §7 client guidance)'),
    is_shared: z.boolean(),
    readings: z.array(reading),
    tags: z.array(z.unknown()),
    ...udfs,
  })
  .meta({ id: 'Device', example: ex.deviceExample });

export const metrics = z
  .object({
    device_id: z.string(),
    eb_tariff: z.number().int().describe('Electricity Board tariff, paise per kWh'),
    dg_tariff: z.number().int().describe('Diesel Generator tariff, paise per kWh'),
    active_tariff: z.union([z.literal(1), z.literal(2)]).describe('1 = EB, 2 = DG'),
    energy: z.number().describe('kWh, cumulative'),
    active_power: z.number().describe('W'),
    voltage: z.number().describe('V'),
    balance: z.number().int().describe('paise'),
    relay_state: z.boolean().describe('true = ON'),
    mode: z.enum(['PREPAID', 'POSTPAID', 'MEASUREMENT', 'RELAY_OFF']),
    pg_enabled: z.boolean(),
  })
  .meta({ id: 'Metrics', example: ex.metricsExample });

export const historicalReading = z
  .object({
    property_id: propertyId,
    value: z
      .number()
      .describe('the raw meter value at the end of the interval (so far, for the current one)'),
    unit: z.string(),
    timestamp: z.string().describe('end of the interval, +05:30 (daily: 23:59:59)'),
  })
  .meta({ id: 'HistoricalReading', example: ex.historicalReadingExample });

export const history = z.object({
  device_id: z.string(),
  from_date: z.string(),
  to_date: z.string(),
  readings: z.array(historicalReading),
});

export const wifi = z
  .object({
    ssid: z.string(),
    password: z.string().describe('returned in clear (spec §2)'),
    rssi: z.number().int().describe('dBm; -30 to -50 excellent, -50 to -70 good, -70 to -80 weak'),
    type: z.enum(['Primary', 'Secondary']),
  })
  .meta({ id: 'WifiStatus', example: ex.wifiExample });

export const done = z.literal(true);

/** Every v2 route: no or a bad key, the rate limit, and a bug of ours. */
const ANY_ROUTE: ErrorCode[] = ['authentication_error', 'rate_limit_exceeded', 'internal_error'];
/** A route with a path parameter: a bad %-escape, a segment over the router's limit, a bad value. */
const PATH_PARAM: ErrorCode[] = ['malformed_url', 'uri_too_long', 'validation_error'];
/** A route with a JSON body. */
export const BODY: ErrorCode[] = ['validation_error', 'payload_too_large', 'unsupported_media_type'];
/** A device of the key's account, in a space (spec §5, §7). */
export const DEVICE: ErrorCode[] = [...PATH_PARAM, 'device_not_found', 'device_not_in_space'];
export const SPACE: ErrorCode[] = [...PATH_PARAM, 'not_your_space'];
/** A command the meter must carry out and acknowledge (src/api/v2/operate.ts). */
export const COMMAND: ErrorCode[] = [
  'device_offline',
  'device_timeout',
  'device_rejected',
  'validation_error',
];

export interface RouteResponses {
  /** The shape of `data` on success, and its example from the demo world. */
  data: z.ZodType;
  example: unknown;
  /** The success message, when the route sends one. */
  message?: string;
  /** Every code the route can answer beyond those of any v2 route. */
  errors?: ErrorCode[];
}

/**
 * The documented responses of a route: its success envelope (with an example and the rate-limit
 * headers) and one error envelope per status its codes can answer.
 */
export function responses(r: RouteResponses) {
  const value = { success: true, data: r.example, message: r.message, timestamp: ex.EXAMPLE_TIMESTAMP };
  const ok = z
    .object({
      success: z.literal(true),
      data: r.data,
      message: z.string().optional(),
      timestamp: timestampSchema,
    })
    .meta({
      'x-response-description': 'Success',
      'x-examples': { ok: { summary: 'demo world', value } },
      headers: RATE_LIMIT_HEADERS,
    });
  return { 200: ok, ...errorResponses([...ANY_ROUTE, ...(r.errors ?? [])]) };
}
