// The v2 rate limit shared by several API instances through Redis (issue 11 §4, spec-decisions 91):
// `serve --redis redis://host:port`. Reaching Redis is checked at start, bounded; losing it later
// fails open: requests pass uncounted, with a warning, until it is back.

import { Redis } from 'ioredis';
import type { Log } from '../../log/types.ts';

export class RedisConfigError extends Error {}

export interface RateLimitRedisOptions {
  /** redis://[user:password@]host:port[/db] */
  url: string;
  log: Log;
  /** How long to wait for Redis at start. Default 3 s. */
  connectTimeoutMs?: number;
}

/** The address without a password, for messages. */
function address(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    throw new RedisConfigError(`--redis: not a URL: '${url}' (expected redis://host:port)`);
  }
}

/**
 * Connects, or throws RedisConfigError naming the address. ioredis retries and queues commands for
 * ever by default: here neither, so a request never waits on a Redis that is gone.
 */
export async function connectRateLimitRedis(opts: RateLimitRedisOptions): Promise<Redis> {
  const where = address(opts.url);
  if (!/^rediss?:$/.test(new URL(opts.url).protocol))
    throw new RedisConfigError(`--redis: only redis:// and rediss:// URLs are supported, got '${where}'`);
  const timeoutMs = opts.connectTimeoutMs ?? 3_000;
  let started = false;
  let lost = false;
  const redis = new Redis(opts.url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // At start one attempt; once running, back every second at most.
    retryStrategy: (times) => (started ? Math.min(times * 200, 1_000) : null),
  });
  let lastError = '';
  redis.on('error', (err: Error & { code?: string }) => {
    lastError = err.code ?? err.message;
    if (!started || lost) return;
    lost = true;
    opts.log('warn', `Redis at ${where} lost (${lastError}): the rate limit is off, requests pass uncounted`);
  });
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    opts.log('info', `Redis at ${where} is back: the shared rate limit counts again`);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    const why = lastError || (err as Error).message;
    throw new RedisConfigError(`Redis at ${where} (the shared rate limit, --redis): ${why}`);
  } finally {
    clearTimeout(timer);
  }
  started = true;
  return redis;
}
