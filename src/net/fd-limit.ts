// The process's open-files limit, so connection caps can be set below it: at the limit accept()
// fails for every listener at once (issue 8 item 6). Linux only; null where /proc is not there.

import { readFileSync } from 'node:fs';

/** The soft limit on open files (node raises it to the hard limit at start), or null if unknown. */
export function openFilesLimit(limitsFile = '/proc/self/limits'): number | null {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined || soft === 'unlimited') return null;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/** Descriptors kept free of both caps: the database, its WAL, logs, the service's own MQTT client. */
export const RESERVED_FDS = 64;

/**
 * Connection caps that fit under `fdLimit` with RESERVED_FDS to spare, or the ones asked for if they
 * fit already. HTTP keeps its cap unless that takes more than an eighth of what is left (it is what
 * keeps /healthz reachable, and a few hundred slots are plenty); MQTT gets the rest.
 */
export function fitCaps(
  caps: { http: number; mqtt: number },
  fdLimit: number | null,
): { http: number; mqtt: number } {
  if (fdLimit === null) return caps;
  const available = fdLimit - RESERVED_FDS;
  if (caps.http + caps.mqtt <= available) return caps;
  const http = Math.max(1, Math.min(caps.http, Math.floor(available / 8)));
  return { http, mqtt: Math.max(1, Math.min(caps.mqtt, available - http)) };
}
