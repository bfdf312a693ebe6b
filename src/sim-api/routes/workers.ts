// /sim/v1/workers: fleet workers register, beat, send snapshots, follow the clock and answer jumps.
// Registered inside /sim/v1, so the admin token guards every route (src/sim-api/routes/index.ts).

import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MODELS } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { success } from '../../http/envelope.ts';
import { ApiError } from '../../http/errors.ts';
import type { ServiceWorld } from '../../world/face.ts';
import type { Registration } from '../../world/workers/hub.ts';
import { workerDoc } from '../worker-docs.ts';
import { mapWorldError } from '../world-errors.ts';

const NAME = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, '1-64 characters of A-Z a-z 0-9 _ . -');
const PREFIX = z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, '1-40 characters of A-Z a-z 0-9 _ . -');

const registerBody = z.strictObject({
  name: NAME,
  prefix: PREFIX,
  // One worker process holds at most its open-files limit of MQTT connections (20,000 here).
  count: z.number().int().min(0).max(100_000),
  model: z.enum(MODELS).optional(),
  profile: z
    .union([
      z.strictObject({ kind: z.literal('household'), peak_watts: z.number().min(0).max(1e6) }),
      z.strictObject({ kind: z.literal('constant'), watts: z.number().min(0).max(1e6) }),
    ])
    .optional(),
  seed: z.number().int().optional(),
  balance: z.number().int().min(-100_000_000).max(100_000_000).optional(),
  telemetry_period_s: z.number().int().min(1).max(86_400).optional(),
  account_id: z.number().int().positive().optional(),
  space_id: z.number().int().positive().optional(),
  pid: z.number().int().nonnegative(),
  host: z.string().min(1).max(255),
});
const nameParams = z.object({ name: NAME });
const snapshot = z.object({ device_id: z.string(), meter: z.string(), online: z.boolean() });
const snapshotsBody = z.object({ snapshots: z.array(snapshot).max(100_000) });
const advancedBody = z.object({ id: z.number().int(), last_sample_ts: z.record(z.string(), z.number()) });

/**
 * Snapshots come in batches (a worker sends at most 2,000 per call, ~1.3 MB): these routes take up to
 * 8 MiB, the rest of the API keeps its 64 KiB (only the admin token reaches them).
 */
const SNAPSHOT_BODY_LIMIT = 8 * 1024 * 1024;

/** What a worker's registration body asks the hub for. */
function registration(b: z.infer<typeof registerBody>): Registration {
  return {
    name: b.name,
    prefix: b.prefix,
    count: b.count,
    model: b.model,
    load:
      b.profile?.kind === 'constant'
        ? { kind: 'constant', watts: b.profile.watts }
        : b.profile
          ? { kind: 'household', seed: b.seed ?? 1, peakWatts: b.profile.peak_watts }
          : undefined,
    seed: b.seed,
    balance: b.balance,
    telemetryPeriodS: b.telemetry_period_s,
    accountId: b.account_id,
    spaceId: b.space_id,
    pid: b.pid,
    host: b.host,
  };
}

export async function workerRoutes(
  app: FastifyInstance,
  { world }: { world: Pick<ServiceWorld, 'workers' | 'clock'> },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // An API instance has no hub: its /sim/v1 forwards these routes to the world before they run.
  const hub = world.workers;
  if (!hub) return;
  // The sync streams never end on their own: closing the server waits for them otherwise.
  app.addHook('preClose', async () => hub.sync.close());
  const now = () => world.clock.now();
  const leaseOf = (headers: Record<string, unknown>) => {
    const id = headers['x-worker-lease'];
    if (typeof id !== 'string')
      throw ApiError.validation([{ loc: ['headers', 'x-worker-lease'], msg: 'required' }]);
    return id;
  };
  /** [WORKER-2] The sender still holds its lease, or the 409 saying another process took it. */
  const holding = (name: string, headers: Record<string, unknown>) => {
    try {
      hub.holder(name, leaseOf(headers));
    } catch (err) {
      mapWorldError(err);
    }
  };

  r.post(
    '/workers',
    { schema: { ...workerDoc('registerWorker'), body: registerBody } },
    async (req, reply) => {
      const answer = await hub.register(registration(req.body)).catch(mapWorldError);
      reply.code(201);
      return success(now(), answer, 'worker registered');
    },
  );

  r.get('/workers', { schema: workerDoc('listWorkers') }, async () =>
    success(
      now(),
      hub.list().map((l) => ({
        name: l.name,
        pid: l.pid,
        host: l.host,
        prefix: l.prefix,
        meters: l.meters.length,
        since: new Date(l.since).toISOString(),
        last_heartbeat: new Date(l.lastBeat).toISOString(),
        alive: l.alive,
      })),
    ),
  );

  r.post(
    '/workers/:name/heartbeat',
    {
      bodyLimit: SNAPSHOT_BODY_LIMIT,
      schema: { ...workerDoc('workerHeartbeat'), params: nameParams, body: snapshotsBody },
    },
    async (req) => {
      await hub.heartbeat(req.params.name, leaseOf(req.headers), req.body.snapshots).catch(mapWorldError);
      return success(now(), { now_ms: now(), speed: world.clock.speed });
    },
  );

  r.post(
    '/workers/:name/snapshots',
    {
      bodyLimit: SNAPSHOT_BODY_LIMIT,
      schema: { ...workerDoc('saveWorkerSnapshots'), params: nameParams, body: snapshotsBody },
    },
    async (req) => {
      await hub.saveSnapshots(req.params.name, leaseOf(req.headers), req.body.snapshots).catch(mapWorldError);
      return success(now(), { stored: req.body.snapshots.length });
    },
  );

  r.post(
    '/workers/:name/advanced',
    {
      bodyLimit: SNAPSHOT_BODY_LIMIT,
      schema: { ...workerDoc('workerAdvanced'), params: nameParams, body: advancedBody },
    },
    async (req) => {
      holding(req.params.name, req.headers);
      const known = hub.sync.answered(req.params.name, req.body.id, req.body.last_sample_ts);
      return success(now(), { known });
    },
  );

  r.delete(
    '/workers/:name',
    { schema: { ...workerDoc('releaseWorker'), params: nameParams } },
    async (req) => {
      try {
        hub.release(req.params.name, leaseOf(req.headers));
      } catch (err) {
        mapWorldError(err);
      }
      return success(now(), true, 'worker released');
    },
  );

  r.get(
    '/workers/:name/sync',
    { schema: { ...workerDoc('followWorkerSync'), params: nameParams } },
    async (req, reply) => {
      holding(req.params.name, req.headers);
      reply.hijack();
      hub.sync.attach(req.params.name, reply.raw, {
        now_ms: now(),
        speed: world.clock.speed,
        service_host: hostname(),
      });
    },
  );
}
