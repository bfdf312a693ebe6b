// [CL-11] Many DLMS meters in one bridge process (`bridge --dlms --meters <file>`): one DlmsBridge per
// meter, each with its own association, MeterLink, MQTT login and state file, so one meter's drop,
// garbage or slow answer stalls no other (each has its own socket and its own promise chain). Their
// starts are spread over the poll period, so their polls are too.

import { join, resolve } from 'node:path';
import type { Log } from '../modbus/mqtt-meter.ts';
import type { DlmsBridge } from './bridge.ts';
import {
  checkDlmsOptions,
  DLMS_DEFAULTS,
  type DlmsBridgeOptions,
  loadStateFile,
  startDlmsBridge,
} from './index.ts';
import type { FleetMeter } from './meters-file.ts';
import type { BridgeStateFile } from './state-file.ts';

/** [CL-11.2] Starts are spread over the poll period, but never over more than this (decision 276). */
export const MAX_STAGGER_MS = 60_000;

export interface DlmsFleetOptions {
  meters: FleetMeter[];
  brokerUrl: string;
  /** [CL-11.3] The MQTT password of a meter whose entry has no `mqttPassword`. */
  mqttPassword: string;
  /** Defaults for entries without their own. */
  client: number;
  password?: string;
  pollMs?: number;
  /** [CL-11.1] Where `dlms-<device>.json` state files go for entries without `stateFile`. */
  stateDir: string;
  timeoutMs?: number;
  log: Log;
  /** [CL-11.4] Every meter's login was refused: nothing is left to bridge. */
  onFatal?: (reason: string) => void;
  now?: () => number;
}

export interface DlmsFleet {
  /** Each meter's bridge once started (null before its turn, or after its login was refused). */
  readonly bridges: readonly (DlmsBridge | null)[];
  close(): Promise<void>;
}

/** [CL-11.2] Meter `i` of `n` starts this long after the first. */
export function staggerMs(i: number, n: number, pollMs: number): number {
  return n <= 1 ? 0 : Math.floor((i * Math.min(pollMs, MAX_STAGGER_MS)) / n);
}

/**
 * Checks every meter's options and loads every state file first, so a problem anywhere is a TypeError
 * naming the meter before anything connects; then starts them, spread out. Resolves at once.
 */
export function runDlmsFleet(opts: DlmsFleetOptions): DlmsFleet {
  const pollMs = opts.pollMs ?? DLMS_DEFAULTS.pollMs;
  const n = opts.meters.length;
  const bridges: (DlmsBridge | null)[] = opts.meters.map(() => null);
  let refused = 0;
  let closed = false;
  // [CL-11.1] One state file per meter, compared as the paths they resolve to ("./a.json", "a.json" and
  // a default `dlms-<device>.json` in --state-dir are one file): two bridges writing one could credit twice.
  const files = new Map<string, number>();
  const prepared: { options: DlmsBridgeOptions; stateFile: BridgeStateFile }[] = opts.meters.map((m, i) => {
    const password = m.password ?? opts.password;
    const options: DlmsBridgeOptions = {
      link: { kind: 'tcp', host: m.host, port: m.port },
      client: m.client ?? opts.client,
      server: m.server ?? { bytes: 1, value: 1 },
      ...(password === undefined ? {} : { password }),
      broker: { url: opts.brokerUrl, username: m.device, password: m.mqttPassword ?? opts.mqttPassword },
      deviceId: m.device,
      pollMs,
      stateFile: m.stateFile ?? join(opts.stateDir, `dlms-${m.device}.json`),
      ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
      log: opts.log,
      onFatal: (reason) => void refuse(i, reason),
      ...(opts.now ? { now: opts.now } : {}),
    };
    try {
      const file = resolve(options.stateFile!);
      const first = files.get(file);
      if (first !== undefined)
        throw new TypeError(`state file ${file} is also meters[${first}]'s (${opts.meters[first]!.device})`);
      files.set(file, i);
      checkDlmsOptions(options);
      if (options.client === 32 && options.password === undefined)
        throw new TypeError('a password is required for client 32, the meter reader (LLS)');
      return { options, stateFile: loadStateFile(options) };
    } catch (err) {
      throw new TypeError(`meters[${i}] (${m.device}): ${(err as Error).message}`);
    }
  });

  // [CL-11.4] A refused login stops that meter alone; the others go on (decision 277).
  async function refuse(i: number, reason: string): Promise<void> {
    const b = bridges[i];
    if (!b) return;
    bridges[i] = null;
    refused++;
    opts.log('error', `${opts.meters[i]!.device}: ${reason}; this meter stops, the others go on`);
    await b.close();
    if (refused === n && !closed) opts.onFatal?.(`every meter's login was refused (${n})`);
  }

  const timers = prepared.map(({ options, stateFile }, i) =>
    setTimeout(
      () => {
        if (!closed) bridges[i] = startDlmsBridge(options, stateFile);
      },
      staggerMs(i, n, pollMs),
    ),
  );
  opts.log(
    'info',
    `dlms: ${n} meters in this process, starts spread over ${Math.round(staggerMs(n, n, pollMs) / 1000)} s [CL-11.2]`,
  );
  return {
    bridges,
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      await Promise.all(bridges.map((b) => b?.close()));
    },
  };
}
