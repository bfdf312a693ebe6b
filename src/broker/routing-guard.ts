// Keeps aedes' message routing off a deep stack when a backlog of messages drains.
//
// aedes routes every PUBLISH (wills and its own $SYS notices too) through mqemitter, which lets
// `concurrency` (100) messages be in flight and queues the rest. When one in flight finishes,
// mqemitter starts the next queued one; a message that matches no subscription finishes at once,
// synchronously, and starts the next: a run of N unmatched messages in the queue is a recursion N
// deep. Thousands queue up when a subscriber drains slowly (the service's twins while 10,000 meters
// say goodbye); when that subscriber then leaves (the twins stop at SIGTERM, or reconnect), every
// queued message matches nothing and the process dies of `RangeError: Maximum call stack size
// exceeded` in mqemitter/qlobber. Readings and money were already stored, but `serve` exited 1.
//
// The guard is one server-side subscription to `#`, so every message has a listener. It finishes
// synchronously (no cost on the usual path) until it finds itself nested `maxDepth` deep inside its
// own finishing, then finishes on the next turn of the event loop, which unwinds the stack.

import type { Aedes } from 'aedes';

/** Nesting at which the guard defers: ~5 stack frames each, far below Node's ~10,000. */
export const DEFAULT_MAX_ROUTING_DEPTH = 64;

/**
 * Subscribes the guard on `aedes` (aedes' own `subscribe`, its documented server-side API) and resolves
 * once it is in place. Call it before any client connects.
 */
export function guardRoutingStack(aedes: Aedes, maxDepth = DEFAULT_MAX_ROUTING_DEPTH): Promise<void> {
  if (!Number.isInteger(maxDepth) || maxDepth < 1)
    throw new TypeError(`maxDepth must be a positive integer, got ${maxDepth}`);
  let depth = 0;
  const finish = (_packet: unknown, done: () => void) => {
    if (depth >= maxDepth) {
      setImmediate(done);
      return;
    }
    depth++;
    try {
      done();
    } finally {
      depth--;
    }
  };
  return new Promise((resolve) => aedes.subscribe('#', finish, resolve));
}
