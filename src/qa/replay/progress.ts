// Replay progress: a bar redrawn in place on a terminal, plain lines (every 10 %) otherwise, so a CI
// log stays readable.

import type { Progress } from './replay.ts';
import { traceTime } from './replay.ts';

export function progressReporter(out: NodeJS.WriteStream | NodeJS.WritableStream): {
  update: (p: Progress) => void;
  end: () => void;
} {
  const tty = 'isTTY' in out && out.isTTY === true;
  let lastDraw = 0;
  let lastTenth = -1;
  let drawn = false;
  return {
    update(p) {
      const frac = p.total === 0 ? 1 : p.done / p.total;
      const pass = p.loop > 0 ? ` pass ${p.loop + 1}` : '';
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 100 && p.done !== p.total) return;
        lastDraw = now;
        const width = 30;
        const full = Math.round(frac * width);
        out.write(
          `\r[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(frac * 100).toFixed(0).padStart(3)}% ${p.done}/${p.total}${pass}  ${traceTime(p.ts)}`,
        );
        drawn = true;
      } else {
        const tenth = Math.floor(frac * 10);
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        out.write(
          `progress ${tenth * 10}% ${p.done}/${p.total} entries${pass}, trace time ${traceTime(p.ts)}\n`,
        );
      }
    },
    end() {
      if (drawn) out.write('\n');
      lastTenth = -1;
    },
  };
}
