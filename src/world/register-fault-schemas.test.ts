// The bodies of the register faults (spec-decisions 106): a reset is an instant, a rollover's maximum
// is at least one register step.
import { describe, expect, it } from 'vitest';
import { faultBody } from './fault-schemas.ts';

describe('register fault bodies', () => {
  it.each([
    [{ kind: 'register_reset' }, true],
    [{ kind: 'register_reset', start_at: '2026-11-23T10:00:00+05:30' }, true],
    [{ kind: 'register_reset', duration_s: 60 }, false],
    [{ kind: 'register_rollover', max_kwh: 99_999.999 }, true],
    [{ kind: 'register_rollover', max_kwh: 0.001, duration_s: 3600 }, true],
    [{ kind: 'register_rollover', max_kwh: 0.0009 }, false],
    [{ kind: 'register_rollover' }, false],
  ])('%j -> %s', (body, valid) => {
    expect(faultBody.safeParse(body).success).toBe(valid);
  });

  it('says why a reset takes no duration', () => {
    const r = faultBody.safeParse({ kind: 'register_reset', duration_s: 60 });
    expect(r.error?.issues).toEqual([
      expect.objectContaining({
        path: ['duration_s'],
        message: 'register_reset is an instant: it takes no duration_s',
      }),
    ]);
  });
});
