// /sim/v1: the simulation control API. Everything here acts on the virtual world (accounts, keys,
// spaces, virtual meters, the clock), never on what the v2 API is meant to observe. One file per URL
// (routes/<path>.ts, a device's controls in routes/devices/), each a small fastify plugin registered
// here after the admin-token hook, in the order the OpenAPI document lists them.

import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { EventViews } from '../../events/views.ts';
import { ApiError, WRONG_CREDENTIAL } from '../../http/errors.ts';
import type { ServiceWorld } from '../../world/face.ts';
import { LOCAL_SIM_ROUTES, type SimForward } from '../forward.ts';
import { accountRoutes } from './accounts.ts';
import { backfillRoutes } from './backfills.ts';
import { clockRoutes } from './clock.ts';
import { type SimContext, simContext } from './context.ts';
import { buttonRoutes } from './devices/button.ts';
import { faultRoutes } from './devices/faults.ts';
import { historyRoutes } from './devices/history.ts';
import { loadRoutes } from './devices/load.ts';
import { onlineRoutes } from './devices/online.ts';
import { policyRoutes } from './devices/prepaid-policy.ts';
import { rechargeRoutes } from './devices/recharge.ts';
import { replaceRoutes } from './devices/replace.ts';
import { deviceResetRoutes } from './devices/reset.ts';
import { deviceRoutes } from './devices.ts';
import { eventRoutes } from './events.ts';
import { fleetRoutes } from './fleet.ts';
import { keyRoutes } from './keys.ts';
import { ledgerRoutes } from './ledger.ts';
import { resetRoutes } from './reset.ts';
import { snapshotRoutes } from './snapshots.ts';
import { spaceRoutes } from './spaces.ts';
import { workerRoutes } from './workers.ts';

export interface SimRoutesOptions {
  world: ServiceWorld;
  adminToken: string;
  /** The journal and the live streams (GET /events, /events/stream). */
  events: EventViews;
  /**
   * An API instance's: sends every route but LOCAL_SIM_ROUTES on to the world process (forward.ts).
   * Default: none, this process is the world.
   */
  forward?: SimForward;
  /** The largest snapshot file an import takes (HttpLimits.snapshotFileBytes). */
  snapshotFileLimit?: number;
}

function tokenMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function simRoutes(app: FastifyInstance, opts: SimRoutesOptions): Promise<void> {
  const { adminToken, forward } = opts;
  app.addHook('onRequest', async (request) => {
    const given = request.headers['x-admin-token'];
    if (typeof given !== 'string' || given === '') throw new ApiError('admin_authentication_error');
    // One was sent: "send the token" would mislead (issue 20 item 10).
    if (!tokenMatches(given, adminToken))
      throw new ApiError('admin_authentication_error', WRONG_CREDENTIAL.admin_authentication_error);
  });
  if (forward) {
    // Before validation: the world validates the body as it came, and answers in its own words.
    app.addHook('preValidation', async (request, reply) => {
      const route = `${request.method} ${request.routeOptions.url?.slice(app.prefix.length)}`;
      if (!LOCAL_SIM_ROUTES.has(route)) return forward(request, reply);
    });
    // Routes an instance does not have (the fleet workers') are the world's too.
    app.setNotFoundHandler((request, reply) => forward(request, reply));
  }
  const ctx = simContext(opts.world);
  // The order of the OpenAPI document's paths (and so of the published spec): keep it.
  await app.register(eventRoutes, { views: opts.events, now: ctx.now });
  await app.register(workerRoutes, ctx);
  await app.register(snapshotRoutes, { ...ctx, limit: opts.snapshotFileLimit });
  const files: FastifyPluginAsync<SimContext>[] = [
    deviceResetRoutes,
    resetRoutes,
    faultRoutes,
    policyRoutes,
    accountRoutes,
    keyRoutes,
    spaceRoutes,
    deviceRoutes,
    ledgerRoutes,
    onlineRoutes,
    rechargeRoutes,
    loadRoutes,
    buttonRoutes,
    replaceRoutes,
    clockRoutes,
    backfillRoutes,
    fleetRoutes,
    historyRoutes,
  ];
  for (const routes of files) await app.register(routes, ctx);
}
