// Replay progress by trace time covered: a line every second (wall), with the rate in samples/s and
// the time left, counted from the first sample (not from starting a service or provisioning). On a
// terminal the line is redrawn in place; elsewhere (a CI log) each second's line is its own.

import type { Progress } from './replay.ts';
import { traceTime } from './replay.ts';

/** "42s", "5m07s", "10h05m", "2d03h". */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86_400)}d${two(Math.floor(s / 3600) % 24)}h`;
}

export interface ProgressStart {
  /** Wall ms and sample count when the first sample was played. */
  wall: number;
  samples: number;
}

/** The progress line at wall time `now`: pure, for the reporter and for tests. */
export function progressLine(p: Progress, start: ProgressStart, now: number): string {
  const covered = p.ts - p.firstTs;
  const elapsed = now - start.wall;
  const rate = elapsed > 0 ? ((p.samples - start.samples) * 1000) / elapsed : 0;
  const perSecond = `${Math.round(rate).toLocaleString('en-US')} samples/s`;
  const at = `trace time ${traceTime(p.ts)}`;
  if (p.endTs === null) return `replay pass ${p.loop + 1}, ${at} (+${span(covered)}), ${perSecond}`;
  const total = p.endTs - p.firstTs;
  const frac = total > 0 ? Math.min(1, covered / total) : 1;
  const eta = frac > 0 && elapsed > 0 ? span((elapsed * (1 - frac)) / frac) : '?';
  return `replay ${(frac * 100).toFixed(1).padStart(5)}%, ${at} (${span(covered)} of ${span(total)}), ${perSecond}, ETA ${eta}`;
}

export interface ProgressOptions {
  wall?: () => number;
  everyMs?: number;
}

export function progressReporter(
  out: NodeJS.WriteStream | NodeJS.WritableStream,
  { wall = Date.now, everyMs = 1000 }: ProgressOptions = {},
): { update: (p: Progress) => void; end: () => void } {
  const tty = 'isTTY' in out && out.isTTY === true;
  let latest: Progress | null = null;
  let start: ProgressStart | null = null;
  let timer: NodeJS.Timeout | null = null;
  let drawn = false;
  const draw = () => {
    if (!latest || !start) return;
    const line = progressLine(latest, start, wall());
    out.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
    drawn = true;
  };
  return {
    update(p) {
      latest = p;
      if (start !== null || p.samples === 0) return;
      start = { wall: wall(), samples: p.samples };
      timer = setInterval(draw, everyMs);
      timer.unref();
    },
    end() {
      if (timer) clearInterval(timer);
      timer = null;
      if (drawn) {
        draw(); // where it ended
        if (tty) out.write('\n');
      }
    },
  };
}
