// /sim/v1/clock: read the world's virtual clock, jump it (every meter lives through the jump) and set
// its speed.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { toIstIso } from '../../time/ist.ts';
import { simDoc } from '../docs.ts';
import * as s from '../schemas.ts';
import type { SimContext } from './context.ts';

export async function clockRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/clock/advance', { schema: { ...simDoc('advanceClock'), body: s.advanceBody } }, async (req) => {
    const wallClock = world.wallClockOnline(); // [MC-11.3] online before the jump; not taken along
    const { from, to } = await world.advance(req.body.seconds * 1000);
    const { late, done } = world.workers?.lastAdvance ?? { late: [], done: [] };
    return success(
      now(),
      {
        from: toIstIso(from),
        to: toIstIso(to),
        now: toIstIso(now()),
        workers: { done, late },
        wall_clock_meters: wallClock,
      },
      late.length > 0 ? `clock advanced; fleet workers late: ${late.join(', ')}` : 'clock advanced',
    );
  });

  r.post('/clock/speed', { schema: { ...simDoc('setClockSpeed'), body: s.speedBody } }, async (req) => {
    const { speed } = await world.setSpeed(req.body.speed);
    return success(now(), { speed }, 'clock speed set');
  });

  r.get('/clock', { schema: simDoc('getClock') }, async () => {
    // [MC-11.2] wall_offset_ms: what external meters' times are mapped by (virtual − wall).
    return success(now(), {
      now: toIstIso(now()),
      now_ms: now(),
      speed: world.clock.speed,
      ...(world.clock.wallShift ? { wall_offset_ms: world.clock.wallShift() } : {}),
    });
  });
}
