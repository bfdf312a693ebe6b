// The world's clock: jumps every meter lives through (durable before they resolve), its speed, and the
// announcement of a jump to API instances before any meter lives through it [spec-decisions 90].

import {
  ANNOUNCE_WAIT_MS,
  FOLLOWERS_FRESH_MS,
  FOLLOWERS_SEEN_SETTING,
  WORLD_CLOCK_TOPIC,
} from './clock-anchor.ts';
import type { WorldCore } from './core.ts';
import { settle } from './meters.ts';
import { WorldError } from './types.ts';

/** [MC-11.3] The external devices online now, on wall time: an advance cannot take them along. */
export function wallClockOnline(core: WorldCore): string[] {
  return [...core.index.external]
    .filter((id) => core.twins.get(id)?.online === true && core.twins.clockOf(id) === 'wall')
    .sort();
}

/**
 * Jumps the clock; every meter lives through it, and its telemetry, the meters' states and the clock
 * are durable before this resolves (a crash right after must not put the clock back).
 */
export async function advance(core: WorldCore, ms: number): Promise<{ from: number; to: number }> {
  const { gate } = core;
  if (gate.busy) throw new WorldError('conflict', `the clock cannot advance while ${gate.busy} runs`);
  gate.advances++;
  try {
    const jump = await core.clock.advance(ms);
    // [MC-11.3] Meters on wall time cannot jump: not waited for, told once.
    const wall = wallClockOnline(core);
    if (wall.length > 0)
      core.log(
        'info',
        `clock: advanced ${ms / 1000} s; ${wall.length} external meter(s) on wall time did not live through it, their next data map onto the new time [MC-11.3]: ${wall.slice(0, 10).join(', ')}${wall.length > 10 ? ', …' : ''}`,
      );
    await settle(core);
    await core.saver.saveAll();
    core.bus.emit('clock.advanced', jump);
    return jump;
  } finally {
    gate.advances--;
  }
}

/**
 * Runs the clock `speed` times faster than wall time from now on (0 freezes it); kept in the store
 * with the clock offset, so a restart runs at it (spec-decisions 54).
 */
export async function setSpeed(core: WorldCore, speed: number): Promise<{ speed: number; was: number }> {
  const was = core.clock.speed;
  core.clock.setSpeed(speed);
  await core.saver.saveAll();
  core.bus.emit('clock.speed', { speed, was });
  return { speed, was };
}

/**
 * [spec-decisions 90] A jump's new clock line goes to the store first; while API instances follow it
 * (one read it within FOLLOWERS_FRESH_MS, wall time: this is about processes, not the simulation),
 * the meters wait one poll of theirs, so no instance's twins take the jump's messages for the future.
 * Registered on the clock before the fleet's own listener (World.open).
 */
export async function announceJump(core: WorldCore): Promise<void> {
  if (core.gate.closed) return;
  const anchor = await core.saver.saveClock();
  // Instances take it in order with the meters' messages (clock-anchor.ts); the wait below covers a
  // broker that does not carry it.
  if (anchor) await core.twins.publish(WORLD_CLOCK_TOPIC, JSON.stringify(anchor)).catch(() => undefined);
  const seen = Number(await core.store.getSetting(FOLLOWERS_SEEN_SETTING));
  if (Number.isFinite(seen) && Date.now() - seen < FOLLOWERS_FRESH_MS)
    await new Promise((r) => setTimeout(r, ANNOUNCE_WAIT_MS));
}
