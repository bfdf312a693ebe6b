// The edge hook: the first thing every request meets, one onRequest hook that runs its steps in order
// (issue 19 step 7). [SEC-4] the security headers, [SEC-5] the Host check, then CORS: each step either
// lets the request go on (false) or has answered it (true), and then no later step, hook or route runs.
// One callback hook instead of three hooks and an onSend hook: fastify runs each hook through its hook
// runner, and a route with no onSend hook skips that runner altogether; together they were a few µs of
// a cached GET that costs about thirty.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** One step: true when it has answered the request itself. */
export type EdgeStep = (request: FastifyRequest, reply: FastifyReply) => boolean;

/** Adds the one hook; `null` steps (a check switched off) are left out. */
export function registerEdge(app: FastifyInstance, steps: readonly (EdgeStep | null)[]): void {
  const run = steps.filter((s): s is EdgeStep => s !== null);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    for (const step of run) if (step(request, reply)) return;
    done();
  });
}
