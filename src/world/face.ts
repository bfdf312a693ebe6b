// What the HTTP facade (v2 API, /sim/v1, console) needs of a world. The World (world.ts) is one; an
// API instance's ApiWorld (src/api-instance/api-world.ts) is the other: same store and twins, a clock that
// follows the world's, and no meters of its own (issue 11 §4: world operations are forwarded).

import type { Fleet } from '../../simulator/meter-fleet.ts';
import type { WorkerHub } from './workers/hub.ts';
import type { World } from './world.ts';
import type { WorldSnapshots } from './world-snapshots.ts';

/** A clock to read: the world's VirtualClock, or an instance's copy that follows it. */
export interface ClockView {
  now(): number;
  readonly speed: number;
  /** [MC-11.2] The world's wall shift; only the world process knows it (VirtualClock.wallShift). */
  wallShift?(): number;
}

export type ServiceWorld = Pick<
  World,
  | 'store'
  | 'twins'
  | 'bus'
  | 'log'
  | 'mqttUrl'
  | 'createAccount'
  | 'createApiKey'
  | 'createSpace'
  | 'provisionDevice'
  | 'setOnline'
  | 'meter'
  | 'recharge'
  | 'replaceMeter'
  | 'checkLedger'
  | 'rechargeExternal'
  | 'checkExternalLedger'
  | 'advance'
  | 'wallClockOnline'
  | 'setSpeed'
  | 'backfills'
  | 'reconciliation'
> & {
  readonly clock: ClockView;
  readonly fleet: Pick<Fleet, 'meters'>;
  /** The fleet workers' meters (src/world/workers); null on an API instance, which forwards worker routes. */
  readonly workers: WorkerHub | null;
  /** Whole-world snapshots (world-snapshots.ts); null on an API instance, which forwards them. */
  readonly snapshots: WorldSnapshots | null;
};
