// The machine's Redis (127.0.0.1:6379), which the shared-rate-limit tests use: whether it answers.

import { connect } from 'node:net';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** null when Redis accepts a connection within 1 s; else why not, for a skip line. */
export function redisAbsence(): Promise<string | null> {
  return new Promise((resolve) => {
    const s = connect(6379, '127.0.0.1');
    s.setTimeout(1_000, () => {
      s.destroy();
      resolve('Redis at 127.0.0.1:6379 did not answer');
    });
    s.once('connect', () => {
      s.destroy();
      resolve(null);
    });
    s.once('error', (e: Error) => resolve(`Redis at 127.0.0.1:6379: ${e.message}`));
  });
}
