// The world's clock as one stored line (issue 11 §4, spec-decisions 90): virtual time `vt` at wall
// time `wt`, running `speed` virtual ms per wall ms. The world writes it with every snapshot save (every
// 2 s, and before an advance or a speed change returns); API instances read it to keep their clock.

export const CLOCK_ANCHOR_SETTING = 'clock.anchor';

/**
 * Where the world also publishes a jump's anchor, before its meters live through it: API instances get
 * it on the connection their twins use, so before the jump's telemetry (the broker keeps the order it
 * took them in). The service login must be allowed to publish and subscribe to it.
 */
export const WORLD_CLOCK_TOPIC = 'meterstack/sim/clock';

/** How often an API instance reads the anchor (its lag bound, with one store read). */
export const CLOCK_POLL_MS = 100;
/** Wall ms when an API instance last read the anchor: the world waits for followers only if recent. */
export const FOLLOWERS_SEEN_SETTING = 'clock.followers_seen_at';
export const FOLLOWERS_FRESH_MS = 5_000;
/**
 * How long the world waits after storing a jump's anchor, before its meters live through the jump,
 * while API instances follow: one poll and a margin. Their twins judge meters' timestamps by their
 * own clock [MC-3.10]; one still behind would refuse the jump's telemetry and states as from the future.
 */
export const ANNOUNCE_WAIT_MS = CLOCK_POLL_MS + 50;

export interface ClockAnchor {
  vt: number;
  wt: number;
  speed: number;
}

/** The anchor in a stored setting, or null if there is none or it does not parse. */
export function parseClockAnchor(raw: string | null | undefined): ClockAnchor | null {
  if (raw == null) return null;
  try {
    const a = JSON.parse(raw) as Partial<ClockAnchor>;
    const ok = [a.vt, a.wt, a.speed].every((n) => typeof n === 'number' && Number.isFinite(n));
    return ok && (a.speed as number) >= 0 ? (a as ClockAnchor) : null;
  } catch {
    return null;
  }
}

/** Virtual time at wall time `wall` on the anchor's line. */
export function virtualAt(anchor: ClockAnchor, wall: number): number {
  return Math.floor(anchor.vt + (wall - anchor.wt) * anchor.speed);
}
