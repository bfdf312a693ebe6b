// /sim/v1: the simulation control API. Everything here acts on the virtual world (accounts, keys,
// spaces, virtual meters, the clock), never on what the v2 API is meant to observe.

import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { reportedState } from '../../simulator/meter/index.ts';
import type { EventViews } from '../events/views.ts';
import { success } from '../http/envelope.ts';
import { ApiError } from '../http/errors.ts';
import { toIstIso } from '../time/ist.ts';
import { externalCheckView } from '../world/external-ledger-check.ts';
import type { ServiceWorld } from '../world/face.ts';
import { ledgerCheckView } from '../world/ledger-check.ts';
import { simDoc } from './docs.ts';
import { eventRoutes } from './events.ts';
import { externalRechargeAnswer } from './external-recharge.ts';
import { faultRoutes } from './fault-routes.ts';
import { fleetView } from './fleet-rows.ts';
import { LOCAL_SIM_ROUTES, type SimForward } from './forward.ts';
import { policyRoutes } from './policy-routes.ts';
import { replaceRoutes } from './replace-routes.ts';
import * as s from './schemas.ts';
import { snapshotRoutes } from './snapshot-routes.ts';
import { deviceInputFrom, externalView, meterView, spaceView } from './views.ts';
import { workerRoutes } from './workers/routes.ts';
import { mapWorldError } from './world-errors.ts';

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

const EXTERNAL_POLICY = 'An external meter keeps its own prepaid policy: leave prepaid_policy out';

function tokenMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function simRoutes(app: FastifyInstance, opts: SimRoutesOptions): Promise<void> {
  const { world, adminToken } = opts;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const now = () => world.clock.now();

  app.addHook('onRequest', async (request) => {
    if (!tokenMatches(request.headers['x-admin-token'], adminToken))
      throw new ApiError('admin_authentication_error');
  });
  const { forward } = opts;
  if (forward) {
    // Before validation: the world validates the body as it came, and answers in its own words.
    app.addHook('preValidation', async (request, reply) => {
      const route = `${request.method} ${request.routeOptions.url?.slice(app.prefix.length)}`;
      if (!LOCAL_SIM_ROUTES.has(route)) return forward(request, reply);
    });
    // Routes an instance does not have (the fleet workers') are the world's too.
    app.setNotFoundHandler((request, reply) => forward(request, reply));
  }
  eventRoutes(app, { views: opts.events, now });
  await workerRoutes(app, { world });
  await app.register(snapshotRoutes, { world, limit: opts.snapshotFileLimit });

  /**
   * The virtual meter `id`. An external device exists but has no meter here: 409 `conflict` saying so
   * (spec-decisions 53); a device the world does not know: 404.
   */
  const virtualMeter = async (id: string) => {
    const meter = world.meter(id);
    if (meter) return meter;
    const worker = world.workers?.hostOf(id);
    if (worker !== undefined) {
      throw new ApiError(
        'conflict',
        `virtual meter ${id} runs in fleet worker ${worker}: control it through the v2 API (see GET /sim/v1/workers)`,
      );
    }
    // Its history is still being written: the meter starts once that is done (spec decision 52).
    const b = world.backfills().find((p) => p.deviceId === id);
    if (b) {
      throw new ApiError(
        'conflict',
        `virtual meter ${id} is being backfilled: ${b.doneDays} of ${b.totalDays} days written; see GET /sim/v1/backfills`,
      );
    }
    if ((await world.store.getDevice(id))?.kind === 'external') {
      throw new ApiError(
        'conflict',
        `device ${id} is external: no virtual meter runs here to control (the meter itself connects over MQTT)`,
      );
    }
    throw new ApiError('not_found', `virtual meter ${id} not found`);
  };

  faultRoutes(app, { world, virtualMeter });
  policyRoutes(app, { virtualMeter, now });

  r.post('/accounts', { schema: { ...simDoc('createAccount'), body: s.accountBody } }, async (req) => {
    const { account, apiKey } = await world.createAccount(req.body.name);
    return success(now(), { account_id: account.id, name: account.name, api_key: apiKey }, 'account created');
  });

  r.post(
    '/accounts/:account_id/keys',
    { schema: { ...simDoc('createApiKey'), params: s.accountIdParams, body: s.keyBody } },
    async (req) => {
      const expires = req.body?.expires_at ? Date.parse(req.body.expires_at) : null;
      const ttl = req.body?.ttl_seconds;
      const wallExpires = ttl === undefined ? null : Date.now() + ttl * 1000;
      const key = await world
        .createApiKey(req.params.account_id, { expiresAt: expires, wallExpiresAt: wallExpires })
        .catch(mapWorldError);
      const iso = (t: number | null) => (t === null ? null : toIstIso(t));
      return success(
        now(),
        { api_key: key, expires_at: iso(expires), wall_expires_at: iso(wallExpires) },
        'key created',
      );
    },
  );

  r.delete(
    '/keys/:api_key',
    { schema: { ...simDoc('revokeApiKey'), params: s.apiKeyParams } },
    async (req) => {
      if (!(await world.store.revokeApiKey(req.params.api_key, now())))
        throw new ApiError('not_found', 'no such API key');
      return success(now(), true, 'key revoked');
    },
  );

  r.post('/spaces', { schema: { ...simDoc('createSpace'), body: s.spaceBody } }, async (req) => {
    const b = req.body;
    const space = await world.createSpace({ ...b, accountId: b.account_id }).catch(mapWorldError);
    return success(now(), { ...spaceView(space), account_id: space.accountId }, 'space created');
  });

  r.post('/devices', { schema: { ...simDoc('createDevice'), body: s.deviceBody } }, async (req, reply) => {
    if (req.body.external && req.body.prepaid_policy)
      throw ApiError.validation([{ loc: ['prepaid_policy'], msg: EXTERNAL_POLICY }]);
    const { device, secret, meter } = await world
      .provisionDevice(deviceInputFrom(req.body))
      .catch(mapWorldError);
    reply.code(201);
    return success(
      now(),
      {
        device_id: device.deviceId,
        account_id: device.accountId,
        space_id: device.spaceId,
        model: device.model,
        mqtt: { url: world.mqttUrl, username: device.deviceId, password: secret },
        kind: device.kind,
        meter: meter ? meterView(meter, now()) : null,
      },
      'device created',
    );
  });

  r.get(
    '/devices/:device_id',
    { schema: { ...simDoc('getSimDevice'), params: s.deviceIdParams } },
    async (req) => {
      const meter = world.meter(req.params.device_id);
      const worker = world.workers?.hostOf(req.params.device_id);
      if (!meter && worker !== undefined) {
        // A fleet worker's meter: what the service saw of it, and its stored state against the ledger.
        const device = (await world.store.getDevice(req.params.device_id))!;
        const [check] = (await world.workers?.checkLedger(device.deviceId)) ?? [];
        return success(now(), {
          ...externalView(device, world.twins.get(device.deviceId)),
          external: false,
          worker,
          ledger: check ? ledgerCheckView(check) : null,
        });
      }
      if (!meter) {
        const device = await world.store.getDevice(req.params.device_id);
        if (device?.kind !== 'external') await virtualMeter(req.params.device_id);
        const [check] = await world.checkExternalLedger(device!.deviceId);
        return success(now(), {
          ...externalView(device!, world.twins.get(device!.deviceId)),
          ledger: check ? externalCheckView(check) : null,
        });
      }
      meter.tick(now());
      const [check] = await world.checkLedger(meter.id);
      return success(now(), {
        external: false,
        ...meterView(meter, now()),
        ledger: check ? ledgerCheckView(check) : null,
      });
    },
  );

  // [LEDGER-3] Every virtual meter against its ledger, now; and what the check at start found.
  r.get('/ledger', { schema: simDoc('checkLedger') }, async () => {
    // Fleet workers' meters are checked from their stored snapshots (src/world/workers).
    const checks = [...(await world.checkLedger()), ...((await world.workers?.checkLedger()) ?? [])];
    // [LEDGER-6] External meters credited through the ledger, credit by credit.
    const external = await world.checkExternalLedger();
    return success(now(), {
      meters: checks.length,
      disagreements: checks.filter((c) => !c.agrees).map(ledgerCheckView),
      external: {
        meters: external.length,
        pending: external.reduce((n, c) => n + c.pending.length, 0),
        disagreements: external.filter((c) => !c.agrees).map(externalCheckView),
      },
      at_start: {
        meters: world.reconciliation.checkedAtStart,
        disagreements: world.reconciliation.disagreementsAtStart,
      },
    });
  });

  r.post(
    '/devices/:device_id/online',
    { schema: { ...simDoc('setDeviceOnline'), params: s.deviceIdParams, body: s.onlineBody } },
    async (req) => {
      const meter = await virtualMeter(req.params.device_id);
      await world.setOnline(meter.id, req.body.online);
      return success(
        now(),
        { online: meter.online },
        req.body.online ? 'meter connected' : 'meter disconnected',
      );
    },
  );

  r.post(
    '/devices/:device_id/recharge',
    { schema: { ...simDoc('rechargeDevice'), params: s.deviceIdParams, body: s.rechargeBody } },
    async (req) => {
      if (world.workers?.hosts(req.params.device_id)) {
        const result = await world.workers
          .recharge(req.params.device_id, req.body.amount, req.body.transaction_id)
          .catch(mapWorldError);
        const msg = !result.applied
          ? 'recharge already applied'
          : result.delivered
            ? 'recharge applied'
            : 'recharge in the ledger; the meter is offline and takes it when its worker resumes it';
        return success(now(), result, msg);
      }
      const device = world.meter(req.params.device_id)
        ? null
        : await world.store.getDevice(req.params.device_id);
      if (device?.kind === 'external') {
        const r = await world
          .rechargeExternal(device, req.body.amount, req.body.transaction_id)
          .catch(mapWorldError);
        return success(now(), ...externalRechargeAnswer(device.deviceId, r));
      }
      await virtualMeter(req.params.device_id);
      const result = await world
        .recharge(req.params.device_id, req.body.amount, req.body.transaction_id)
        .catch(mapWorldError);
      return success(now(), result, result.applied ? 'recharge applied' : 'recharge already applied');
    },
  );

  r.post(
    '/devices/:device_id/load',
    { schema: { ...simDoc('setDeviceLoad'), params: s.deviceIdParams, body: s.loadBody } },
    async (req) => {
      const meter = await virtualMeter(req.params.device_id);
      const b = req.body;
      meter.setLoad(
        b.profile === 'household'
          ? { kind: 'household', seed: meter.state.seed, peakWatts: b.watts }
          : { kind: 'constant', watts: b.watts, powerFactor: b.power_factor },
      );
      return success(now(), { load: meter.state.load }, 'load set');
    },
  );

  r.post(
    '/devices/:device_id/button',
    { schema: { ...simDoc('pressDeviceButton'), params: s.deviceIdParams, body: s.buttonBody } },
    async (req) => {
      const meter = await virtualMeter(req.params.device_id);
      meter.pressButton(req.body.hold_seconds);
      return success(now(), { config_mode: meter.state.wifi.configMode }, 'button pressed');
    },
  );

  replaceRoutes(app, { world, virtualMeter });

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

  r.get('/backfills', { schema: simDoc('listBackfills') }, async () => {
    const list = world.backfills().map((b) => ({
      device_id: b.deviceId,
      done_days: b.doneDays,
      total_days: b.totalDays,
      samples: b.samples,
    }));
    return success(now(), list);
  });

  // The fleet view's rows: every device with its account, space and what its twin last saw.
  r.get('/fleet', { schema: simDoc('getFleet') }, async () => {
    const plugged = (id: string) => world.meter(id)?.online;
    return success(now(), await fleetView({ store: world.store, twins: world.twins, plugged }));
  });

  r.get('/devices', { schema: simDoc('listSimDevices') }, async () => {
    const virtual = [...world.fleet.meters()].map((m) => ({
      device_id: m.id,
      external: false,
      online: m.online,
      connected: m.connected,
      ...reportedState(m.state, now()),
    }));
    const external = (await world.store.listDevices())
      .filter((d) => d.kind === 'external')
      .map((d) => externalView(d, world.twins.get(d.deviceId)));
    return success(now(), [...virtual, ...external]);
  });
}
