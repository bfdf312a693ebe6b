// Helpers for the fault tests: a fault of a kind, and a meter stepped with it.

import type { Fault, FaultKind, FaultParams } from './types.ts';

let n = 0;

/** A fault of `kind` active over [from, until) (until null: until cleared). */
export function fault<K extends FaultKind>(
  kind: K,
  params: FaultParams[K],
  from: number,
  until: number | null,
  id = `F${++n}`,
): Fault {
  return { id, kind, params, from, until, seed: 7 } as Fault;
}
