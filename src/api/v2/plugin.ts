// The v2 API under /api/v2: every request authenticated by X-Service-API-Key, then rate limited
// per key, then routed. Authentication runs first so an unknown key never spends anyone's quota.

import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../http/errors.ts';
import { API_KEY_HEADER, authenticate } from './access.ts';
import type { V2Options } from './context.ts';
import { controlRoutes } from './routes/control.ts';
import { deviceRoutes } from './routes/devices.ts';
import { historyRoutes } from './routes/history.ts';
import { spaceRoutes } from './routes/spaces.ts';
import { wifiRoutes } from './routes/wifi.ts';

export const RATE_WINDOW_MS = 60_000;

export async function v2Api(app: FastifyInstance, opts: V2Options): Promise<void> {
  const { world } = opts;
  app.decorateRequest('account');
  // A callback hook: a key the store knows at once costs no promise (access.ts). The rate-limit policy
  // header is constant: set here on every v2 answer, not by an onSend hook (a hook runner less).
  const policy = opts.rateLimit > 0 ? `${opts.rateLimit};w=${RATE_WINDOW_MS / 1000}` : null;
  app.addHook('onRequest', (request, reply, done) => {
    if (policy !== null) reply.header('ratelimit-policy', policy);
    authenticate(request, world.store, world.clock.now(), done);
  });

  if (opts.rateLimit > 0) {
    // Counted in wall-clock time (it protects the server, not the simulation), in this process's
    // memory, or in Redis shared by every API instance (shared-limit.ts, spec-decisions 91). A Redis
    // gone while running fails open (skipOnError): the limit guards the service, it must not stop it.
    await app.register(rateLimit, {
      global: true,
      ...(opts.redis ? { redis: opts.redis, nameSpace: 'meterstack:v2-rate:', skipOnError: true } : {}),
      max: opts.rateLimit,
      timeWindow: RATE_WINDOW_MS,
      hook: 'onRequest',
      // Hashed: the keys may sit in a shared Redis, which is no place for credentials.
      keyGenerator: (request) =>
        createHash('sha256').update(String(request.headers[API_KEY_HEADER])).digest('base64url'),
      enableDraftSpec: true,
      errorResponseBuilder: (_request, context) =>
        new ApiError(
          'rate_limit_exceeded',
          `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}.`,
        ),
    });
  }

  // Only our own options go down: fastify's (prefix) would apply twice.
  const routeOpts: V2Options = { world, rateLimit: opts.rateLimit };
  for (const routes of [spaceRoutes, deviceRoutes, controlRoutes, historyRoutes, wifiRoutes]) {
    await app.register(routes, routeOpts);
  }
}
