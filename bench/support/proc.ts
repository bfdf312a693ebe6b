// A process's CPU time from /proc, for the benches that measure children and peers (serve, Mosquitto,
// a bare fastify, a bridge): one reading of /proc/<pid>/stat instead of one copy per bench.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux almost everywhere). */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system, all threads) of process `pid`; throws where there is no such process. */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name: fields[0] is field 3 (state); utime is field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}
