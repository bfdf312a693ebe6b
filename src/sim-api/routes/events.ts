// GET /sim/v1/events (the journal) and GET /sim/v1/events/stream (Server-Sent Events), as agreed in
// issue 9 §3: same filters, same admin token (checked by simRoutes' hook before these run).

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type EventFilter, parseTypeList, typeListHelp } from '../../events/filter.ts';
import type { EventViews } from '../../events/views.ts';
import { success } from '../../http/envelope.ts';
import { errorResponses } from '../../http/error-schemas.ts';
import { ApiError } from '../../http/errors.ts';
import { object, simResponses } from '../docs.ts';

/** A seq as written in a URL or a Last-Event-ID: canonical decimal, 0 allowed (spec-decisions 42). */
const SEQ = /^(0|[1-9][0-9]{0,15})$/;
const seqParam = z
  .string()
  .regex(SEQ, { error: 'Input should be a sequence number: a whole number ≥ 0 in decimal', abort: true })
  .transform(Number)
  .pipe(z.number().max(Number.MAX_SAFE_INTEGER, { error: 'Input should be at most 2^53 - 1' }))
  .meta({ type: 'integer', minimum: 0, pattern: undefined });

const typeParam = z
  .string()
  .transform((list, ctx) => {
    const parsed = parseTypeList(list);
    if (parsed.ok) return parsed.types;
    ctx.addIssue({
      code: 'custom',
      message: `Input should name known event types, not '${parsed.bad}': give ${typeListHelp()}`,
    });
    return z.NEVER;
  })
  .meta({ type: 'string', description: 'comma-separated event types (meter.relay) or families (meter.*)' });

const filters = {
  type: typeParam.optional(),
  device_id: z.string().min(1).max(64).optional(),
  since: seqParam.optional().describe('only events with a greater seq, oldest first'),
};

export const journalQuery = z.strictObject({
  ...filters,
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/, { error: 'Input should be a whole number from 1 to 1000', abort: true })
    .transform(Number)
    .pipe(z.number().max(1000, { error: 'Input should be a whole number from 1 to 1000' }))
    .meta({ type: 'integer', minimum: 1, maximum: 1000, pattern: undefined })
    .optional()
    .describe('at most this many events (default 100)'),
});
export const streamQuery = z.strictObject(filters);
// Loose: the other headers stay as they came (a strict or stripping schema would replace them).
const lastEventId = z.looseObject({ 'last-event-id': seqParam.optional() });

function filterOf(q: { type?: Set<string>; device_id?: string }): EventFilter {
  const f: EventFilter = {};
  if (q.type !== undefined) f.types = q.type as EventFilter['types'];
  if (q.device_id !== undefined) f.deviceId = q.device_id;
  return f;
}

export interface EventRoutesOptions {
  views: EventViews;
  now: () => number;
}

/** Registered by simRoutes (index.ts) after its admin-token hook. */
export async function eventRoutes(app: FastifyInstance, opts: EventRoutesOptions): Promise<void> {
  const { views, now } = opts;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['simulation'];
  const security = [{ adminToken: [] }];

  r.get(
    '/events',
    {
      schema: {
        tags,
        security,
        querystring: journalQuery,
        operationId: 'listEvents',
        summary: 'Read the event journal',
        response: simResponses({ data: object, errors: ['validation_error'] }),
        description:
          'The journal: without since the newest limit events; with it the events after it, oldest first. ' +
          'Before oldest_seq only the durable types (money, meter state) are kept, in the store.',
      },
    },
    async (req) => {
      const q = req.query;
      const answer = await views.read({
        since: q.since,
        filter: filterOf(q),
        limit: q.limit ?? 100,
      });
      return success(now(), answer);
    },
  );

  r.get(
    '/events/stream',
    {
      schema: {
        tags,
        security,
        querystring: streamQuery,
        headers: lastEventId,
        operationId: 'streamEvents',
        summary: 'Follow the events (Server-Sent Events)',
        response: {
          200: {
            description: 'A text/event-stream that stays open',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses(['admin_authentication_error', 'validation_error', 'service_unavailable']),
        },
        description:
          'Server-Sent Events: one frame per event (id: seq, event: type, data: the event as JSON), a ' +
          '`: ping` comment every 15 s. Resumes after Last-Event-ID or since; without either it starts live.',
      },
    },
    async (req, reply) => {
      const { streams } = views;
      if (!streams.admit()) {
        reply.header('retry-after', '5');
        throw new ApiError(
          'service_unavailable',
          `at most ${streams.maxClients} event streams may be open at once; close one or retry later`,
        );
      }
      const header = req.headers['last-event-id'] as unknown as number | undefined;
      const since =
        header === undefined && req.query.since === undefined
          ? undefined
          : Math.max(header ?? 0, req.query.since ?? 0);
      // The stream outlives fastify's reply cycle: the socket is ours from here on.
      reply.hijack();
      const res = reply.raw;
      // What the hooks set before the hijack goes out too: the CORS headers (http/cors.ts).
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) res.setHeader(name, value);
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // Tells a proxy in front (nginx) not to buffer the stream.
        'x-accel-buffering': 'no',
      });
      res.socket?.setNoDelay(true);
      res.write(': meterstack events\n\n');
      streams.open(res, filterOf(req.query), since);
    },
  );
}
