// The operator's routes beside the APIs (issue 22): GET /healthz (liveness: the process answers HTTP),
// GET /readyz (readiness: the process can do its work, PM-7) and GET /metrics (the Prometheus text,
// PM-3), each in the OpenAPI document under the `operations` tag.

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { MetricsExposition } from '../events/metrics.ts';
import { bearerToken, tokenMatches } from './admin-token.ts';
import { success } from './envelope.ts';
import { errorResponses, timestampSchema } from './error-schemas.ts';
import { ApiError } from './errors.ts';
import { judgeReadiness, notReadyDetail, type ReadinessCheck } from './readiness.ts';

export interface OpsRoutesOptions {
  now: () => number;
  adminToken: string;
  /** What GET /metrics serves; null or absent: metrics are off and the route is not there (404). */
  metrics?: MetricsExposition | null;
  /** What GET /readyz checks; none: ready whenever HTTP answers. */
  readiness?: readonly ReadinessCheck[];
}

const METRICS_TOKEN_DETAIL =
  'Send the admin token as a bearer token (Authorization: Bearer <token>) or in the X-Admin-Token header; ' +
  '`serve --metrics-public` opens GET /metrics without it.';

function ok(data: z.ZodType, description: string) {
  return z
    .object({ success: z.literal(true), data, message: z.string().optional(), timestamp: timestampSchema })
    .meta({ 'x-response-description': description });
}

export async function opsRoutes(app: FastifyInstance, opts: OpsRoutesOptions): Promise<void> {
  const { now } = opts;
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'healthz',
        summary: 'Liveness: the process answers',
        description:
          'Always `200 {status: "ok"}` while the process serves HTTP, whatever its store or broker do: a ' +
          'restart is the cure only when this fails. Readiness is GET /readyz.',
        security: [],
        response: {
          200: ok(z.object({ status: z.literal('ok') }), 'Alive'),
          ...errorResponses(['host_not_allowed']),
        },
      },
    },
    async () => success(now(), { status: 'ok' as const }),
  );

  const checks = opts.readiness ?? [];
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'readyz',
        summary: 'Readiness: the store answers, the broker is connected, the world is held or reachable',
        description:
          '`200 {status: "ready", checks}` when every check holds; `503 service_unavailable` naming each ' +
          'that does not (`checks` maps each name to `ok` or why not). A world process checks `store`, ' +
          '`migrations`, `broker` and `world_lease`; an API instance `store`, `migrations`, `broker` and ' +
          '`world` (a world process holds the lease). Each check has 1 s to answer. No credentials: it says ' +
          'nothing a load balancer should not know.',
        security: [],
        response: {
          200: ok(
            z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.string()) }),
            'Ready',
          ),
          ...errorResponses(['service_unavailable', 'host_not_allowed']),
        },
      },
    },
    async () => {
      const r = await judgeReadiness(checks);
      if (!r.ready) throw new ApiError('service_unavailable', notReadyDetail(r));
      return success(now(), { status: 'ready' as const, checks: r.checks });
    },
  );

  const exposition = opts.metrics;
  if (!exposition) return;
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        operationId: 'metrics',
        summary: 'Prometheus metrics (text exposition format)',
        description:
          'Every series docs/metrics.md lists, in the Prometheus text format 0.0.4. Needs the admin ' +
          'token as a bearer token (what a Prometheus scrape config sends) or in X-Admin-Token, unless ' +
          'the service started with `--metrics-public`. Absent (404) with `--metrics off`.',
        security: exposition.public ? [] : [{ adminBearer: [] }, { adminToken: [] }],
        response: {
          // Documented as the snapshot export is: a string; the body is text/plain; version=0.0.4.
          200: z.string().meta({ 'x-response-description': 'The metrics, text/plain; version=0.0.4' }),
          ...errorResponses(['admin_authentication_error', 'host_not_allowed', 'internal_error']),
        },
      },
    },
    async (request, reply) => {
      if (!exposition.public) {
        const given = bearerToken(request.headers.authorization) ?? request.headers['x-admin-token'];
        if (typeof given !== 'string' || given === '' || !tokenMatches(given, opts.adminToken)) {
          reply.header('www-authenticate', 'Bearer realm="meterstack metrics"');
          throw new ApiError('admin_authentication_error', METRICS_TOKEN_DETAIL);
        }
      }
      const text = await exposition.text();
      return reply.type(exposition.contentType).send(text);
    },
  );
}
