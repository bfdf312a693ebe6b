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
 * The MQTT cap that leaves room for the HTTP cap and RESERVED_FDS under `fdLimit`, or `mqttMax` if it
 * fits already. The HTTP cap stays: it is small and what keeps /healthz reachable.
 */
export function fitMqttCap(mqttMax: number, httpMax: number, fdLimit: number | null): number {
  if (fdLimit === null) return mqttMax;
  return Math.max(1, Math.min(mqttMax, fdLimit - httpMax - RESERVED_FDS));
}
