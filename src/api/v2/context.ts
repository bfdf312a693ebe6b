import type { Redis } from 'ioredis';
import type { ServiceWorld } from '../../world/face.ts';

/** What every v2 route module is given. */
export interface V2Options {
  world: ServiceWorld;
  /** Requests per minute per API key; 0 = off. */
  rateLimit: number;
  /** Where the rate limit counts, shared by API instances (shared-limit.ts); default: this process. */
  redis?: Redis;
}
