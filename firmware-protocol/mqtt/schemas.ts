// Zod schemas of every MQTT payload, contract version 1. Rule numbers refer to ./CONTRACT.md.
// Receivers ignore unknown fields [MC-3.6]: z.object strips them, so decoded values hold only known keys.
// A check that zod cannot express as a type carries its own rule in `params.rule` (see errors.ts).
import { z } from 'zod';
import { CONTRACT_VERSION } from './topics.ts';

/** [MC-3.2] Every payload carries the contract version as the JSON number 1. */
const V = z.literal(CONTRACT_VERSION).describe('[MC-3.2] contract version');
/** [MC-3.7] Milliseconds since the Unix epoch (UTC), an integer. */
const Ts = z.int().nonnegative().describe('[MC-3.7] ms since the Unix epoch (UTC)');
const Paise = z.int().describe('integer paise');

export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
/** [MC-8.2] Command ids and recharge transaction ids: 1..64 of [A-Za-z0-9_.:-]. */
export const CommandIdSchema = z.string().regex(ID_PATTERN).describe('[MC-8.2] 1..64 of [A-Za-z0-9_.:-]');
/** [MC-1.2] Same pattern as topics.ts DEVICE_ID_PATTERN. */
const DeviceId = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);
/** [MC-4.5] A meter's serial number: 1..64 printable ASCII characters (space to tilde). */
export const SERIAL_PATTERN = /^[\x20-\x7e]{1,64}$/;

export const ModeSchema = z.enum(['prepaid', 'postpaid', 'measurement', 'relay_off']);
export const WifiTypeSchema = z.enum(['Primary', 'Secondary']);

// ---- info [MC-4] ----

type ContextType = 'cumulative' | 'instantaneous';
/** [MC-4.3] Canonical context type and unit of the properties this contract knows. */
export const KNOWN_PROPERTIES: ReadonlyMap<string, { context_type: ContextType; unit: string }> = new Map([
  ['energy', { context_type: 'cumulative', unit: 'kWh' }],
  ['active_power', { context_type: 'instantaneous', unit: 'W' }],
  ['voltage', { context_type: 'instantaneous', unit: 'V' }],
  ['current', { context_type: 'instantaneous', unit: 'A' }],
  ['power_factor', { context_type: 'instantaneous', unit: '' }],
  ['apparent_power', { context_type: 'instantaneous', unit: 'VA' }],
  ['reactive_power', { context_type: 'instantaneous', unit: 'var' }],
]);
/** [MC-4.3] Every meter measures at least these. */
export const REQUIRED_PROPERTIES = ['energy', 'active_power', 'voltage'] as const;

export const PropertySchema = z.object({
  property_id: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
  context_type: z.enum(['cumulative', 'instantaneous']),
  unit: z.string().max(16),
  resolution: z
    .number()
    .positive()
    .max(1_000_000)
    .optional()
    .describe('[MC-4.4] the step of the reported values: each is a whole multiple of it'),
});
type Property = z.infer<typeof PropertySchema>;

/** [MC-4.3] Each property once, the required ones present, the known ones declared canonically. */
function checkProperties(properties: Property[], ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path: ['properties', ...path], params: { rule: 'MC-4.3' }, message });
  if (!Array.isArray(properties)) return; // refinements also run after an item failed its own checks
  const seen = new Set<string>();
  properties.forEach((p, i) => {
    if (typeof p?.property_id !== 'string') return;
    const known = KNOWN_PROPERTIES.get(p.property_id);
    if (seen.has(p.property_id)) issue([i, 'property_id'], 'duplicate property_id');
    else if (known && (known.context_type !== p.context_type || known.unit !== p.unit)) {
      issue([i], `${p.property_id} must be ${known.context_type} "${known.unit}"`);
    }
    seen.add(p.property_id);
  });
  for (const id of REQUIRED_PROPERTIES) if (!seen.has(id)) issue([], `missing ${id}`);
}

export const InfoSchema = z
  .object({
    v: V,
    device_id: DeviceId.describe('[MC-1.4] equals the device id in the topic'),
    model: z.enum(['basic', 'full']),
    firmware: z.string().min(1).max(64),
    has_relay: z.boolean(),
    telemetry_period_s: z.number().positive().max(86_400),
    properties: z.array(PropertySchema).max(32),
    serial: z
      .string()
      .regex(SERIAL_PATTERN)
      .optional()
      .describe('[MC-4.5] the physical meter: 1..64 printable ASCII characters'),
    register_max_kwh: z
      .number()
      .positive()
      .optional()
      .describe('[MC-4.6] the energy register rolls over to 0 when it reaches this (kWh)'),
    clock: z
      .enum(['wall', 'virtual'])
      .optional()
      .describe("[MC-4.7] the clock its ts are on (MC-11.1): wall time (the default) or the world's"),
  })
  .superRefine((info, ctx) => checkProperties(info.properties, ctx));

// ---- state [MC-5] ----

const stateFields = {
  ts: Ts,
  mode: ModeSchema,
  relay_commanded: z.boolean(),
  relay_state: z.boolean(),
  eb_tariff: z.int().nonnegative().describe('paise per kWh'),
  dg_tariff: z.int().nonnegative().describe('paise per kWh'),
  active_tariff: z.union([z.literal(1), z.literal(2)]).describe('1 = EB, 2 = DG'),
  balance: Paise,
  pg_enabled: z.boolean(),
  wifi_type: WifiTypeSchema,
  tamper: z
    .array(z.enum(['cover_open', 'magnet']))
    .min(1)
    .max(2)
    .refine((a) => new Set(a).size === a.length, 'tamper conditions must not repeat')
    .optional()
    .describe('[MC-5.5] tamper conditions active now; absent: none'),
  low_balance: Paise.nullable()
    .optional()
    .describe('[MC-5.6] lowest low-balance warning threshold the balance is below (paise), or null'),
};
export const StateSchema = z.object({ v: V, ...stateFields });
/** The state payload without `v`, as carried in a read reply [MC-8.6]. */
export const ReportedStateSchema = z.object(stateFields);

// ---- availability [MC-6] ----

export const AvailabilitySchema = z.object({
  v: V,
  online: z.boolean(),
  ts: Ts.optional().describe('[MC-6.2] absent in the will message'),
  reason: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("[MC-6.8] why an offline came, in the meter's words; older receivers ignore it"),
});

// ---- the service announcement [MC-12] ----

/** [MC-12.1] What the service says of itself on `meterstack/v1/service`, retained. */
export const ServiceAnnouncementSchema = z.object({
  v: V,
  name: z.literal('meterstack'),
  version: z.string().min(1).max(64).describe("the service's version"),
  http: z.string().min(1).max(512).optional().describe('the URL of its HTTP API'),
});
export type ServiceAnnouncement = z.infer<typeof ServiceAnnouncementSchema>;

// ---- telemetry [MC-7] ----

export const MAX_SAMPLES = 1000;

export const SampleSchema = z.object({
  ts: Ts,
  energy: z.number().nonnegative().describe('kWh, cumulative'),
  active_power: z.number().describe('W'),
  voltage: z.number().nonnegative().describe('V'),
  current: z.number().nonnegative().optional().describe('A'),
  power_factor: z.number().min(-1).max(1).optional(),
  apparent_power: z.number().nonnegative().optional().describe('VA'),
  reactive_power: z.number().optional().describe('var'),
  balance: Paise,
  register_epoch: z
    .int()
    .nonnegative()
    .optional()
    .describe('[MC-7.9] how many times the energy register was reset to zero; absent = 0'),
});

/**
 * [MC-7.3] ts strictly ascends; [MC-7.5] energy never decreases, except where the register epoch rises
 * [MC-7.9], which never falls. Reports the first break only.
 */
function checkSampleOrder(samples: SamplePayload[], ctx: z.RefinementCtx): void {
  if (!Array.isArray(samples)) return; // refinements also run after items failed their own checks
  // An item that failed its own checks may hold anything: compare only numbers.
  const num = (i: number, field: 'ts' | 'energy' | 'register_epoch'): number => {
    const value = (samples[i] as Record<string, unknown> | null)?.[field];
    if (value === undefined && field === 'register_epoch') return 0;
    return typeof value === 'number' ? value : Number.NaN;
  };
  for (let i = 1; i < samples.length; i++) {
    const [ts, prevTs, energy, prevEnergy] = [
      num(i, 'ts'),
      num(i - 1, 'ts'),
      num(i, 'energy'),
      num(i - 1, 'energy'),
    ];
    if (ts <= prevTs) {
      const message = `ts ${ts} is not greater than the previous sample's ts ${prevTs}`;
      ctx.addIssue({ code: 'custom', path: ['samples', i, 'ts'], params: { rule: 'MC-7.3' }, message });
      return;
    }
    const [epoch, prevEpoch] = [num(i, 'register_epoch'), num(i - 1, 'register_epoch')];
    if (epoch < prevEpoch) {
      const message = `register_epoch ${epoch} is less than the previous sample's ${prevEpoch}`;
      const path = ['samples', i, 'register_epoch'];
      ctx.addIssue({ code: 'custom', path, params: { rule: 'MC-7.9' }, message });
      return;
    }
    if (energy < prevEnergy && epoch === prevEpoch) {
      const message = `energy ${energy} is less than the previous sample's ${prevEnergy}`;
      ctx.addIssue({ code: 'custom', path: ['samples', i, 'energy'], params: { rule: 'MC-7.5' }, message });
      return;
    }
  }
}

export const TelemetrySchema = z
  .object({ v: V, samples: z.array(SampleSchema).min(1).max(MAX_SAMPLES) })
  .superRefine((t, ctx) => checkSampleOrder(t.samples, ctx));

// ---- cmd [MC-8] ----

const cmd = { v: V, id: CommandIdSchema };
export const CommandSchema = z.discriminatedUnion('op', [
  z.object({ ...cmd, op: z.literal('set_relay'), on: z.boolean() }),
  z.object({ ...cmd, op: z.literal('set_mode'), mode: ModeSchema }),
  z.object({
    ...cmd,
    op: z.literal('set_tariff'),
    slot: z.enum(['eb', 'dg']),
    paise: z.int().nonnegative().describe('paise per kWh'),
  }),
  z.object({ ...cmd, op: z.literal('set_active_tariff'), tariff: z.union([z.literal(1), z.literal(2)]) }),
  z.object({ ...cmd, op: z.literal('set_gateway'), enabled: z.boolean() }),
  z.object({
    ...cmd,
    op: z.literal('set_wifi'),
    ssid: z.string().min(1).max(32),
    password: z.string().max(64),
  }),
  z.object({ ...cmd, op: z.literal('get_wifi') }),
  z.object({
    ...cmd,
    op: z.literal('recharge'),
    amount: z.int().positive().describe('paise'),
    transaction_id: CommandIdSchema,
  }),
  z.object({ ...cmd, op: z.literal('read') }),
]);
export const COMMAND_OPS = CommandSchema.options.map((o) => o.shape.op.value);

// ---- reply [MC-8.5 .. MC-8.7] ----

export const REPLY_ERROR_CODES = ['invalid_argument', 'unsupported', 'busy', 'bad_request'] as const;
export const ReplySchema = z.discriminatedUnion('ok', [
  z.object({ v: V, id: CommandIdSchema, ok: z.literal(true), data: z.unknown().optional() }),
  z.object({
    v: V,
    id: CommandIdSchema,
    ok: z.literal(false),
    error: z.object({ code: z.enum(REPLY_ERROR_CODES), message: z.string().max(512) }),
  }),
]);

/** [MC-8.6] `data` of a successful reply, by op. Ops not listed here reply without data. */
export const REPLY_DATA_SCHEMAS = {
  read: z.object({ readings: SampleSchema, state: ReportedStateSchema }),
  get_wifi: z.object({
    ssid: z.string().max(32),
    password: z.string().max(64),
    rssi: z.int().min(-127).max(0).describe('dBm'),
    type: WifiTypeSchema,
  }),
  recharge: z.object({ applied: z.boolean(), balance: Paise }),
} as const;

export const CHANNEL_SCHEMAS = {
  info: InfoSchema,
  state: StateSchema,
  availability: AvailabilitySchema,
  telemetry: TelemetrySchema,
  cmd: CommandSchema,
  reply: ReplySchema,
} as const;

export type InfoPayload = z.infer<typeof InfoSchema>;
export type StatePayload = z.infer<typeof StateSchema>;
export type AvailabilityPayload = z.infer<typeof AvailabilitySchema>;
export type SamplePayload = z.infer<typeof SampleSchema>;
export type TelemetryPayload = z.infer<typeof TelemetrySchema>;
export type CommandPayload = z.infer<typeof CommandSchema>;
export type CommandOp = CommandPayload['op'];
export type ReplyPayload = z.infer<typeof ReplySchema>;
export type ReplyErrorCode = (typeof REPLY_ERROR_CODES)[number];
export type ReplyDataOp = keyof typeof REPLY_DATA_SCHEMAS;
export type ReplyData<Op extends ReplyDataOp> = z.infer<(typeof REPLY_DATA_SCHEMAS)[Op]>;
/** The payload type carried on each channel. */
export type PayloadOf<C extends keyof typeof CHANNEL_SCHEMAS> = z.infer<(typeof CHANNEL_SCHEMAS)[C]>;
