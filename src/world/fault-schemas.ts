// POST /sim/v1/devices/{id}/faults: the body of each fault kind (simulator/meter/faults/types.ts), one
// zod schema per kind. Times in the body are virtual: `start_at` (default: now) and `duration_s`
// (default: until cleared). Bounds are what a field meter can plausibly do (spec-decisions: faults).

import { z } from 'zod';
import type { FaultKind } from '../../simulator/meter/faults/types.ts';

const probability = z.number().gt(0).max(1).default(1);
/** Wall ms: replies and reconnects are about real connections, not the simulated clock. */
const wallMs = z.number().int().min(0).max(600_000);

const common = {
  /** Virtual time it starts; default now. */
  start_at: z.iso.datetime({ offset: true }).optional(),
  /** Virtual seconds it lasts; absent: until cleared. */
  duration_s: z
    .number()
    .positive()
    .max(10 * 366 * 86_400)
    .optional(),
  /** Seed of its random choices; default: derived from the meter's seed and the fault's id. */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
};

const kind = <K extends FaultKind, S extends z.ZodRawShape>(k: K, shape: S) =>
  z.strictObject({ kind: z.literal(k), ...common, ...shape });

export const faultBody = z.discriminatedUnion('kind', [
  kind('reply_drop', { probability }),
  kind('reply_delay', { delay_ms: wallMs.optional(), min_ms: wallMs.optional(), max_ms: wallMs.optional() })
    .refine((b) => (b.delay_ms === undefined) === (b.min_ms !== undefined && b.max_ms !== undefined), {
      message: 'give either delay_ms, or both min_ms and max_ms',
      path: ['delay_ms'],
    })
    .refine((b) => b.min_ms === undefined || b.max_ms === undefined || b.min_ms <= b.max_ms, {
      message: 'min_ms must not exceed max_ms',
      path: ['min_ms'],
    }),
  kind('busy', { probability }),
  kind('malformed_reply', { probability }),
  kind('silence', {}),
  kind('flapping', {
    online_s: z.number().positive().max(86_400),
    offline_s: z.number().positive().max(86_400),
  }),
  kind('reconnect_storm', {
    reconnects: z.number().int().min(1).max(1000),
    interval_ms: z.number().int().min(10).max(60_000),
  }),
  kind('telemetry_gap', {}),
  kind('backlog_burst', {}),
  kind('duplicate_samples', { probability }),
  kind('out_of_order', { probability }),
  // [M-25] An instant (spec-decisions 106): a duration means nothing, so giving one is refused.
  kind('register_reset', {
    duration_s: z.undefined({ error: 'register_reset is an instant: it takes no duration_s' }).optional(),
  }),
  // [M-26] To the register's Wh; it must also exceed the register shown now (rolloverProblem, 422).
  kind('register_rollover', { max_kwh: z.number().min(0.001).max(1e9) }),
  kind('power_outage', {}),
  kind('voltage_sag', { volts: z.number().min(90).max(220) }),
  kind('voltage_swell', { volts: z.number().min(240).max(300) }),
  kind('clock_drift', { ppm: z.number().min(-10_000).max(10_000) }),
  kind('clock_skew', { seconds: z.number().min(-86_400).max(86_400) }),
  kind('welded_relay', {}),
  kind('relay_stuck_open', {}),
  kind('tamper', { type: z.enum(['cover_open', 'magnet']) }),
]);

export type FaultBody = z.infer<typeof faultBody>;

export const faultIdParams = z.object({
  device_id: z.string().min(1).max(64),
  fault_id: z.string().regex(/^F[1-9]\d{0,8}$/, 'a fault id such as F1'),
});
