// /sim/v1 prepaid policies (issue 12 §4): the request body and the view. The bounds are the meter's
// (simulator/meter/policy.ts); every impossible value is a `validation_error` naming its field.

import { z } from 'zod';
import {
  isCalendarDate,
  MAX_EMERGENCY_CREDIT_PAISE,
  MAX_HOLIDAYS,
  MAX_WARNING_PAISE,
  MAX_WARNINGS,
  type PrepaidPolicy,
} from '../../simulator/meter/policy.ts';

const hhmm = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'String should be a time of day HH:MM, 00:00 to 23:59 (IST)');

export const friendlyHoursBody = z
  .strictObject({
    from: hhmm,
    to: hhmm,
    holidays: z
      .array(z.string().refine(isCalendarDate, 'String should be a calendar date YYYY-MM-DD (IST)'))
      .max(MAX_HOLIDAYS)
      .optional(),
  })
  .refine((f) => f.from !== f.to, {
    path: ['to'],
    message: 'Time should differ from from (an empty window)',
  });

export const prepaidPolicyBody = z.strictObject({
  low_balance_warnings: z
    .array(z.number().int().min(-MAX_WARNING_PAISE).max(MAX_WARNING_PAISE))
    .max(MAX_WARNINGS)
    .superRefine((w, ctx) => {
      for (let i = 1; i < w.length; i++) {
        if ((w[i] as number) >= (w[i - 1] as number))
          ctx.addIssue({ code: 'custom', path: [i], message: 'Thresholds should be strictly descending' });
      }
    })
    .optional(),
  emergency_credit: z.number().int().min(0).max(MAX_EMERGENCY_CREDIT_PAISE).optional(),
  friendly_hours: friendlyHoursBody.nullable().optional(),
});

export type PrepaidPolicyBody = z.infer<typeof prepaidPolicyBody>;

/** The whole policy a body asks for: what it leaves out is none (no warnings, no credit, no hours). */
export function policyFromBody(b: PrepaidPolicyBody): PrepaidPolicy {
  return {
    lowBalanceWarnings: b.low_balance_warnings ?? [],
    emergencyCredit: b.emergency_credit ?? 0,
    friendlyHours: b.friendly_hours
      ? { from: b.friendly_hours.from, to: b.friendly_hours.to, holidays: b.friendly_hours.holidays ?? [] }
      : null,
  };
}

/** The policy as /sim/v1 shows it (null: none). */
export function policyView(p: PrepaidPolicy | null) {
  if (p === null) return null;
  return {
    low_balance_warnings: p.lowBalanceWarnings,
    emergency_credit: p.emergencyCredit,
    friendly_hours: p.friendlyHours,
  };
}
