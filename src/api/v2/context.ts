import type { ServiceWorld } from '../../world/face.ts';

/** What every v2 route module is given. */
export interface V2Options {
  world: ServiceWorld;
  /** Requests per minute per API key; 0 = off. */
  rateLimit: number;
}
