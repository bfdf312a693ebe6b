// [spec-decisions 111] Whole-world operations (a snapshot, restore, reset, device reset) run alone:
// never beside another one, a clock advance, or meters hosted by fleet workers; while one runs,
// provisioning and recharges answer a conflict.

import type { WorldCore } from './core.ts';
import { settle } from './meters.ts';
import { WorldError } from './types.ts';

/** `what` waits for no whole-world operation: a conflict while one runs. */
export function idle(core: WorldCore, what: string): void {
  if (core.gate.busy)
    throw new WorldError('conflict', `${what} while ${core.gate.busy} runs; try again when it is done`);
}

/**
 * Runs a whole-world operation (`what`: "a snapshot", "a restore", ...) alone: a conflict while another
 * one or a clock advance runs, or while meters run in fleet workers.
 */
export async function exclusive<T>(core: WorldCore, what: string, fn: () => Promise<T>): Promise<T> {
  const { gate } = core;
  const busy = gate.busy ?? (gate.advances > 0 ? 'a clock advance' : null);
  if (busy)
    throw new WorldError('conflict', `${what} cannot start while ${busy} runs; try again when it is done`);
  const hosted = core.workers.hosted();
  if (hosted.length > 0) {
    const names = [...new Set(hosted.map((h) => h.worker))].join(', ');
    throw new WorldError(
      'conflict',
      `${what} is not supported while fleet workers host meters (${hosted.length} in ${names}): stop them first`,
    );
  }
  gate.busy = what;
  try {
    return await fn();
  } finally {
    gate.busy = null;
  }
}

/** Holds the fleet's ticks while `fn` runs, everything before it stored: a snapshot in one piece. */
export async function held<T>(core: WorldCore, fn: () => Promise<T>): Promise<T> {
  core.fleet.pause();
  try {
    await settle(core);
    await core.saver.saveAll();
    return await fn();
  } finally {
    core.fleet.resume();
  }
}
