// The scenario file format (fixtures/README.md "Scenarios"), as zod schemas: the one source of truth
// for what a scenario may say. Values under `expect*` are matchers (matchers.ts).

import { z } from 'zod';
import {
  DEVICE_ID_PATTERN,
  SERVICE_LOGIN_SET,
  SERVICE_LOGINS,
} from '../../../firmware-protocol/mqtt/topics.ts';
import { FAULT_KINDS } from '../../../simulator/meter/faults/types.ts';
import { parseTypeList, typeListHelp } from '../../events/filter.ts';
import { EVENT_TYPES } from '../../events/schemas.ts';
import { deviceBody } from '../../sim-api/schemas.ts';
import { faultBody } from '../../world/fault-schemas.ts';
import { didYouMean } from '../did-you-mean.ts';

/** Event types and families (`meter.*`) a typo is compared with. */
const EVENT_TYPE_NAMES = [
  ...EVENT_TYPES,
  ...new Set(EVENT_TYPES.filter((t) => t.includes('.')).map((t) => `${t.split('.')[0]}.*`)),
];

/** One or more parts, largest first as people write them: `90s`, `15m`, `18m45s`, `1h30m`, `1.5s`. */
export const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "18m45s", "2h", "1d" or a whole number of seconds -> ms. */
export function durationMs(value: string | number): number {
  if (typeof value === 'number') return value * 1000;
  let ms = 0;
  for (const [, n, unit] of value.matchAll(PART)) ms += Number(n) * UNIT_MS[unit!]!;
  return Math.round(ms);
}

const DURATION_HELP = 'a duration such as 90s, 15m, 18m45s, 2h or 1d';
const duration = z
  .union([z.number().int().min(0), z.string().regex(DURATION, DURATION_HELP)])
  .describe(`${DURATION_HELP}, or a whole number of seconds`);
const meterId = z
  .string()
  .regex(DEVICE_ID_PATTERN, 'a device id: 1-64 characters of A-Z a-z 0-9 _ . -')
  // [MC-1.5] Not one of the service's own broker logins.
  .refine(
    (id) => !SERVICE_LOGIN_SET.has(id),
    `one of the service's own broker logins (${SERVICE_LOGINS.join(', ')})`,
  );
const name = z.string().min(1).max(200);
/** A meter of the world: the settings of `POST /sim/v1/devices`, named by `id`. */
export const meterSchema = deviceBody
  .pick({
    name: true,
    model: true,
    mode: true,
    balance: true,
    eb_tariff: true,
    dg_tariff: true,
    active_tariff: true,
    load_watts: true,
    load_profile: true,
    telemetry_period_s: true,
    online: true,
    backfill_days: true,
    seed: true,
    prepaid_policy: true,
  })
  .extend({ id: meterId });

export const spaceSchema = z.strictObject({
  /** How steps refer to the space: `{space:<ref>}`; defaults to its name. */
  ref: z.string().min(1).optional(),
  name,
  description: z.string().optional(),
  meters: z.array(meterSchema).default([]),
});

export const accountSchema = z.strictObject({
  name,
  spaces: z.array(spaceSchema).default([]),
  /** Meters in no space. */
  meters: z.array(meterSchema).default([]),
});

/** The accounts, spaces and meters a scenario (or the test harness) starts with. */
export const worldSchema = z.strictObject({ accounts: z.array(accountSchema).min(1) });

const matchers = z.record(z.string(), z.unknown());

export const responseExpect = z.strictObject({
  status: z.number().int().optional(),
  error_code: z.string().optional(),
  message: z.unknown().optional(),
  detail: z.unknown().optional(),
  data: z.unknown().optional(),
});

const method = z.enum(['GET', 'PUT', 'POST', 'DELETE']);
/** `as`: an account's name (its API key), `admin` (the admin token) or `nobody` (no credentials). */
const caller = z.string().min(1);

export const callSchema = z.strictObject({
  method,
  path: z.string().startsWith('/'),
  as: caller.optional(),
  body: z.unknown().optional(),
});

export const historySchema = z.strictObject({
  meter: meterId,
  as: caller.optional(),
  property: z.string().default('energy'),
  interval: z.string().default('15m'),
  from: z.string(),
  to: z.string(),
});

export const expectMeterSchema = z.strictObject({
  meter: meterId,
  relay: z.unknown().optional(),
  relay_commanded: z.unknown().optional(),
  mode: z.unknown().optional(),
  balance: z.unknown().optional(),
  energy_kwh: z.unknown().optional(),
  active_tariff: z.unknown().optional(),
  config_mode: z.unknown().optional(),
  online: z.unknown().optional(),
});

export const expectMqttSchema = z.strictObject({
  /** A topic filter (+ and # wildcards); `{meter}`-style placeholders are not needed: ids are literal. */
  topic: z.string().min(1),
  payload: matchers.optional(),
  /** How many matching messages; default: at least one. */
  count: z.unknown().optional(),
  /** Only messages since the previous step began (default: since the scenario started). */
  since: z.enum(['start', 'previous_step']).default('start'),
  /** Wait up to this long for a match (real time). */
  within_s: z.number().min(0).max(30).default(2),
});

export const expectEventSchema = z.strictObject({
  /** An event type (`meter.cutoff`), a family (`meter.*`), or a comma-separated list of them. */
  type: z
    .string()
    .meta({
      description: 'an event type (meter.cutoff), a family (meter.*), or a comma-separated list of them',
      examples: EVENT_TYPE_NAMES,
    })
    .superRefine((t, ctx) => {
      const parsed = parseTypeList(t);
      if (!parsed.ok) {
        const guess = didYouMean(parsed.bad, EVENT_TYPE_NAMES);
        // With a likely name the list of forty would only hide it.
        ctx.addIssue({
          code: 'custom',
          message: `unknown event type '${parsed.bad}'${guess || `: give ${typeListHelp()}`}`,
        });
      }
    }),
  /** Only events of this device. */
  meter: meterId.optional(),
  /** Matchers on the event's `data` (matchers.ts). */
  data: matchers.optional(),
  /** How many matching events; default: at least one. */
  count: z.unknown().optional(),
  /** Only events since the previous step began (default: since the scenario started). */
  since: z.enum(['start', 'previous_step']).default('start'),
  /**
   * [SC-1] When, in virtual time: an offset from the scenario's start (`18m45s`, or seconds) or an
   * instant (`2026-01-05T00:18:45+05:30`). Only events within `within` of it count.
   */
  at: z
    .union([duration, z.iso.datetime({ offset: true, local: false })])
    .describe(
      "when, in virtual time: an offset from the scenario's start (18m45s) or an instant (2026-01-05T00:18:45+05:30)",
    )
    .optional(),
  /** [SC-1] With `at`: how far from it (virtual time, either side) an event may be; default 0, the exact ms. */
  within: duration
    .describe('with at: how far from it, either side, an event may be (virtual time); default 0')
    .optional(),
  /** Wait up to this long for a match (real time). */
  within_s: z.number().min(0).max(30).default(2),
});

const faultRef = z.string().min(1).max(100);
/**
 * `fault: {meter, kind, start_at?, duration?, seed?, as_id?, ...params}`: the body of
 * POST /sim/v1/devices/{meter}/faults (src/world/fault-schemas.ts), `duration` as a duration. Checked
 * at load time against that schema, so a wrong kind or parameter is caught before anything runs.
 */
export const faultStepSchema = z
  .looseObject({
    meter: meterId,
    kind: z.string().meta({ description: 'the fault kind (docs/faults.md)', examples: [...FAULT_KINDS] }),
    start_at: z.unknown().optional(),
    duration: duration.optional(),
    seed: z.unknown().optional(),
    /** A name later steps (`clear_faults: {fault}`) use for this fault. */
    as_id: faultRef.optional(),
  })
  .superRefine((f, ctx) => {
    // A bad duration is already reported (zod still runs this refinement).
    if (typeof f.duration === 'string' && !DURATION.test(f.duration)) return;
    const r = faultBody.safeParse(faultRequestBody(f));
    if (!r.success)
      for (const issue of r.error.issues)
        ctx.addIssue({
          code: 'custom',
          path: issue.path[0] === 'duration_s' ? ['duration'] : issue.path,
          message: issue.message,
        });
  });

export type FaultStep = z.infer<typeof faultStepSchema>;

/** The POST body a `fault` step sends. */
export function faultRequestBody(f: FaultStep): Record<string, unknown> {
  const { meter: _m, as_id: _a, duration: d, ...rest } = f;
  return { ...rest, ...(d !== undefined && { duration_s: durationMs(d) / 1000 }) };
}

export const ACTIONS = [
  'advance',
  'set_load',
  'recharge',
  'offline',
  'online',
  'button',
  'call',
  'history',
  'expect_meter',
  'expect_mqtt',
  'expect_event',
  'fault',
  'clear_faults',
  'snapshot',
  'restore',
  'reset_world',
  'reset_meter',
  'replace',
  'prepaid_policy',
] as const;

/** How the message on a step without exactly one action begins (load.ts drops it after a typo). */
export const NO_ACTION = 'a step has exactly one of ';

export const stepSchema = z
  .strictObject({
    name: z.string().optional(),
    advance: duration.describe('move the virtual clock on by this much').optional(),
    set_load: z
      .strictObject({
        meter: meterId,
        watts: z.number().min(0).max(100_000),
        profile: z.enum(['constant', 'household']).optional(),
        power_factor: z.number().min(0.1).max(1).optional(),
      })
      .optional(),
    recharge: z
      .strictObject({
        meter: meterId,
        amount: z.number().int().positive(),
        transaction_id: z.string().optional(),
      })
      .optional(),
    offline: meterId.describe('this meter drops off the network').optional(),
    online: meterId.describe('this meter comes back').optional(),
    button: z.strictObject({ meter: meterId, hold_seconds: z.number().min(0).max(600) }).optional(),
    call: callSchema
      .describe('an HTTP call to the v2 API or /sim/v1; with expect: what it must answer')
      .optional(),
    history: historySchema.describe("GET a meter's v2 history; with expect: what it must answer").optional(),
    expect_meter: expectMeterSchema.describe("the meter's fields now must match").optional(),
    expect_mqtt: expectMqttSchema.describe('messages seen on a topic filter').optional(),
    expect_event: expectEventSchema
      .describe("events in the service's journal, at a virtual time if at is given")
      .optional(),
    fault: faultStepSchema.describe('inject a fault into a meter').optional(),
    /** Without `fault`: every fault of the meter. `fault`: an `as_id` given earlier, or a fault id (F1). */
    clear_faults: z.strictObject({ meter: meterId, fault: faultRef.optional() }).optional(),
    snapshot: name.describe('save the world under this name').optional(),
    restore: name.describe('restore the world saved under this name').optional(),
    reset_world: z.literal(true).optional(),
    reset_meter: meterId.describe('this meter as new').optional(),
    replace: z.strictObject({ meter: meterId, serial: z.string().min(1).max(64).optional() }).optional(),
    /** The body of PUT /sim/v1/devices/{meter}/prepaid-policy; its fields are checked by the service. */
    prepaid_policy: z
      .strictObject({
        meter: meterId,
        low_balance_warnings: z.unknown().optional(),
        emergency_credit: z.unknown().optional(),
        friendly_hours: z.unknown().optional(),
      })
      .optional(),
    /** With `call` or `history`: what the response must be. */
    expect: responseExpect.optional(),
  })
  .superRefine((step, ctx) => {
    const actions = ACTIONS.filter((a) => step[a] !== undefined);
    if (actions.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `${NO_ACTION}${ACTIONS.join(', ')}; this one has ${actions.length ? actions.join(', ') : 'none'}`,
      });
    else if (step.expect && actions[0] !== 'call' && actions[0] !== 'history')
      ctx.addIssue({ code: 'custom', path: ['expect'], message: 'expect goes with call or history' });
    const e = step.expect_event;
    if (e?.within !== undefined && e.at === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['expect_event', 'within'],
        message: 'within goes with at: a window around that virtual time (within_s is the real-time wait)',
      });
  });

export const scenarioSchema = z.strictObject({
  /** [SC-3] The JSON Schema a JSON scenario names for its editor; not read. */
  $schema: z.string().optional(),
  name,
  description: z.string().optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(1),
  clock: z
    .strictObject({ start: z.iso.datetime({ offset: true }).default('2026-01-05T00:00:00+05:30') })
    .default({ start: '2026-01-05T00:00:00+05:30' }),
  /**
   * An exported snapshot file (relative to the scenario file) the service starts from; `world` then
   * names what is in it (its accounts, spaces and meters are looked up, not made).
   */
  from_snapshot: z.string().min(1).optional(),
  world: worldSchema,
  timeline: z.array(stepSchema).min(1),
});

export type Scenario = z.infer<typeof scenarioSchema>;
export type Step = z.infer<typeof stepSchema>;
export type MeterSpec = z.infer<typeof meterSchema>;
export type WorldSpec = z.infer<typeof worldSchema>;
/** A world as written (defaults not yet filled in). */
export type WorldInput = z.input<typeof worldSchema>;
export type ResponseExpect = z.infer<typeof responseExpect>;
