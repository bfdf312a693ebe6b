import type { World } from '../../world/world.ts';

/** What every v2 route module is given. */
export interface V2Options {
  world: World;
  /** Requests per minute per API key; 0 = off. */
  rateLimit: number;
}
