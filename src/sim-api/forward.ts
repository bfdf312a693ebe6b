// An API instance's /sim/v1 (issue 11 §4, spec-decisions 89): what needs the world's meters or clock
// (devices, recharge, online/load/button, clock advance/speed, ledger, fleet, backfills) is sent on to
// the world process, whose HTTP URL the store names (the world owner lease), with the same body and
// admin token; its answer is passed back as it is. Store-only operations run here.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../store/types.ts';

/** Routes (method and path under /sim/v1) an instance answers itself: they touch only the store. */
export const LOCAL_SIM_ROUTES: ReadonlySet<string> = new Set([
  'POST /accounts',
  'POST /accounts/:account_id/keys',
  'DELETE /keys/:api_key',
  'POST /spaces',
  'GET /clock',
  'GET /events',
  'GET /events/stream',
  // A device's stored history (HX-1, HX-5): the store's, and a file the forward would hold whole.
  'GET /devices/:device_id/history.csv',
  'GET /devices/:device_id/history/span',
  // Files, not JSON: an instance answers 409 naming the world process, which takes them (routes/snapshots.ts).
  'GET /snapshots/:name/export',
  'POST /snapshots/import',
]);

export type SimForward = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export interface WorldForwardOptions {
  store: Pick<Store, 'getWorldOwner'>;
  /** Longest a forwarded call may take: an advance over months of virtual time takes a while. */
  timeoutMs?: number;
  /** Called after a clock operation went through, so this instance's clock catches up at once. */
  onClockChanged?: () => Promise<void>;
}

/** Forwards a request to the world; 503 `service_unavailable` naming why when there is none to reach. */
export function worldForward(opts: WorldForwardOptions): SimForward {
  const timeoutMs = opts.timeoutMs ?? 600_000;
  return async (request, reply) => {
    const owner = await opts.store.getWorldOwner();
    if (!owner?.httpUrl) {
      throw new ApiError(
        'service_unavailable',
        'No world process runs on this store yet: this API instance forwards world operations to it. Start `meterstack serve` (without --api-only) on the same --db and --broker.',
      );
    }
    const headers: Record<string, string> = {};
    const token = request.headers['x-admin-token'];
    if (typeof token === 'string') headers['x-admin-token'] = token;
    const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
    if (hasBody) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(new URL(request.url, owner.httpUrl), {
        method: request.method,
        headers,
        body: hasBody ? JSON.stringify(request.body) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const why = (err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new ApiError(
        'service_unavailable',
        `The world process at ${owner.httpUrl} (pid ${owner.pid} on ${owner.host}) did not answer: ${why}.`,
      );
    }
    const body = await res.text();
    if (res.ok && request.url.includes('/clock/')) await opts.onClockChanged?.();
    reply.code(res.status);
    const type = res.headers.get('content-type');
    if (type) reply.header('content-type', type);
    return reply.send(body);
  };
}
