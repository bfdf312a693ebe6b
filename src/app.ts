// The HTTP facade: one fastify instance carrying the v2 API, the simulation control API, the
// OpenAPI document and Swagger UI, all answering in the spec's envelope.

import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { v2Api } from './api/v2/plugin.ts';
import { consolePage, consolePlugin } from './console/plugin.ts';
import type { MetricsExposition } from './events/metrics.ts';
import type { EventViews } from './events/views.ts';
import { corsStep, registerPreflightRoute } from './http/cors.ts';
import { type CorsPolicy, corsPolicy } from './http/cors-policy.ts';
import { registerEdge } from './http/edge.ts';
import { edgeErrorOptions, MAX_PARAM_LENGTH } from './http/edge-errors.ts';
import { registerEnvelope } from './http/envelope.ts';
import { hostCheckStep } from './http/host-check.ts';
import { type HostPolicy, hostPolicy } from './http/host-policy.ts';
import { registerJsonBody } from './http/json-body.ts';
import {
  type ConnectionCapStats,
  capConnections,
  checkHttpLimits,
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  serverTimeoutOptions,
} from './http/limits.ts';
import { documentFor, swaggerOptions } from './http/openapi.ts';
import { opsRoutes } from './http/ops-routes.ts';
import type { ReadinessCheck } from './http/readiness.ts';
import { registerRequestEvents } from './http/request-events.ts';
import { securityHeadersStep, serviceSecurityHeaders } from './http/security-headers.ts';
import { validatorCompiler } from './http/validation.ts';
import type { SimForward } from './sim-api/forward.ts';
import { simRoutes } from './sim-api/routes/index.ts';
import type { ServiceWorld } from './world/face.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Open connections and what the cap closed (issue 8 item 6). */
    connectionStats(): ConnectionCapStats;
  }
}

/** Where Swagger UI is served (its own CSP: security-headers.ts). */
const DOCS_PREFIX = '/docs';

export interface HttpAppOptions {
  world: ServiceWorld;
  adminToken: string;
  /** Requests per minute per API key; 0 turns the limit off. */
  rateLimit?: number;
  logger?: boolean;
  /** Timeouts and connection cap; defaults: DEFAULT_HTTP_LIMITS. */
  limits?: Partial<HttpLimits>;
  /** The journal and live streams of the world's bus: the journal extension's (src/extensions). */
  events: EventViews;
  /** Browser origins that may call (cors.ts); default: localhost on any port. */
  cors?: CorsPolicy;
  /** Host headers answered (host-policy.ts, SEC-5); default: loopback names only. */
  hosts?: HostPolicy;
  /** The rate limit's shared counters (api/v2/shared-limit.ts); default: in this process. */
  redis?: Redis;
  /** An API instance's: /sim/v1's world operations go to the world process (sim/forward.ts). */
  simForward?: SimForward;
  /** [PM-3] GET /metrics's text (the Prometheus extension's); null or absent: no /metrics. */
  metrics?: MetricsExposition | null;
  /** [PM-7] What GET /readyz checks (service.ts, api-instance/start.ts). */
  readiness?: readonly ReadinessCheck[];
}

export async function buildHttpApp(opts: HttpAppOptions): Promise<FastifyInstance> {
  const limits = checkHttpLimits({ ...DEFAULT_HTTP_LIMITS, ...opts.limits });
  // [SEC-4] Every answer's headers, computed once; the console's import map is allowed by its hash.
  const page = await consolePage();
  const headers = await serviceSecurityHeaders(page.scriptHashes);
  const timeouts = serverTimeoutOptions(limits);
  const app = Fastify({
    ...timeouts,
    // [SEC-5] An HTTP/1.1 request without Host is refused by host-check.ts, in the envelope, not by
    // node's bare 400.
    http: { ...timeouts.http, requireHostHeader: false },
    logger: opts.logger ?? false,
    bodyLimit: 64 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    ...edgeErrorOptions(() => opts.world.clock.now(), headers.page),
  });
  // Bodies are JSON only (spec §4): fastify's default text/plain parser would hand a string to the
  // schema and answer 422; without it a non-JSON body is 415 unsupported_media_type.
  app.decorate('connectionStats', capConnections(app.server, limits.maxConnections, opts.world.log));
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);
  app.setValidatorCompiler(validatorCompiler);
  // Responses are built from typed objects, so they are serialized as they are: validating every
  // response against its schema would cost more than the route itself. Tests check the shapes.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const now = () => opts.world.clock.now();
  registerEnvelope(app, now);
  registerRequestEvents(app, opts.world.bus);
  // The first onRequest hook, before every route and the v2 API's own hooks (edge.ts): [SEC-4] every
  // answer's headers (edgeErrorOptions gives them to the answers before any hook); [SEC-5] a rebinding
  // page's request refused before anything else; CORS, so a preflight spends no auth and no rate limit.
  registerEdge(app, [
    securityHeadersStep(headers, DOCS_PREFIX),
    hostCheckStep(opts.hosts ?? hostPolicy(), now),
    corsStep(opts.cors ?? corsPolicy(), now),
  ]);
  registerPreflightRoute(app);

  await app.register(swagger, swaggerOptions);
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    // A reload keeps what was typed into Authorize (in the page's localStorage; issue 20 item 10).
    uiConfig: { persistAuthorization: true },
    transformSpecification: (doc, request) => documentFor(doc, request),
  });

  await app.register(consolePlugin, { page });
  app.get('/openapi.json', { schema: { hide: true } }, async (request) =>
    documentFor(app.swagger(), request),
  );
  await app.register(opsRoutes, {
    now,
    adminToken: opts.adminToken,
    metrics: opts.metrics,
    readiness: opts.readiness,
  });
  await app.register(v2Api, {
    prefix: '/api/v2',
    world: opts.world,
    rateLimit: opts.rateLimit ?? 100,
    redis: opts.redis,
  });
  const { events } = opts;
  // Open event streams would keep server.close() waiting for ever: they end first.
  app.addHook('preClose', async () => events.streams.close());
  await app.register(simRoutes, {
    prefix: '/sim/v1',
    world: opts.world,
    adminToken: opts.adminToken,
    events,
    forward: opts.simForward,
    snapshotFileLimit: limits.snapshotFileBytes,
  });
  return app;
}
