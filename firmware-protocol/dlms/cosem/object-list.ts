// The whole object list and what each association sees of it [CO-2, CO-5.1].

import { DISCONNECT, MANAGEMENT, PREPAID } from './objects-management.ts';
import { PROFILES } from './objects-profiles.ts';
import { REGISTERS } from './objects-registers.ts';
import type { Association, CosemObject, Obis } from './types.ts';

/** Every object of the meter, once each [CO-1.4]. */
export const OBJECTS: readonly CosemObject[] = [
  ...MANAGEMENT,
  ...REGISTERS,
  ...PROFILES,
  DISCONNECT,
  ...PREPAID,
];

const BY_OBIS = new Map(OBJECTS.map((o) => [o.obis, o]));

export function findObject(obis: Obis): CosemObject | undefined {
  return BY_OBIS.get(obis);
}

/**
 * [CO-2.5] What an association's object_list holds: the objects with an attribute it may read or write,
 * or a method it may invoke. A meter without a relay leaves out disconnect control [CO-8.4]; a meter
 * that is not prepaid-capable still lists the prepayment objects (every meterstack meter keeps a balance).
 */
export function objectList(association: Association, opts: { hasRelay: boolean }): CosemObject[] {
  return OBJECTS.filter(
    (o) =>
      (opts.hasRelay || o !== DISCONNECT) &&
      (o.attributes.some((a) => a.access[association] !== 'none') ||
        o.methods.some((m) => m.access[association] !== 'none')),
  );
}
