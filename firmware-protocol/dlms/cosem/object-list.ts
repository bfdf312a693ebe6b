// The whole object list and what each association sees of it [CO-2, CO-5.1].

import type { MeterModel } from '../../mqtt/vocabulary.ts';
import { OBIS } from './obis.ts';
import { DISCONNECT, MANAGEMENT, PREPAID } from './objects-management.ts';
import { PROFILES } from './objects-profiles.ts';
import { REGISTERS } from './objects-registers.ts';
import type { Association, CaptureObject, CosemObject, Obis } from './types.ts';

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

/** What in the meter decides which objects it has: a relay (CO-8.4) and its model (CO-6.4). */
export interface MeterKind {
  hasRelay: boolean;
  model: MeterModel;
}

/**
 * [CO-6.4] The registers a `basic` meter does not measure (the contract's sample has no current, power
 * factor, apparent or reactive power for it, MC-4.3): it does not have them, so it lists none of them and
 * no profile captures them. Neutral current is the phase current (CO-6.5), so it goes with it.
 */
const FULL_ONLY: ReadonlySet<Obis> = new Set([
  OBIS.phaseCurrent,
  OBIS.neutralCurrent,
  OBIS.powerFactor,
  OBIS.apparentPower,
  OBIS.reactivePower,
]);

/** [CO-2.5, CO-6.4, CO-8.4] Whether this meter has the object at all. */
export function hasObject(o: CosemObject, meter: MeterKind): boolean {
  if (o === DISCONNECT) return meter.hasRelay;
  return meter.model === 'full' || !FULL_ONLY.has(o.obis);
}

/** [CO-4.1, CO-6.4] A profile's columns on this meter: the capture objects of objects it has. */
export function columnsOf(o: CosemObject, meter: MeterKind): CaptureObject[] {
  const objects = o.capture?.objects ?? [];
  return meter.model === 'full' ? objects : objects.filter((c) => !FULL_ONLY.has(c.obis));
}

/**
 * [CO-2.5] What an association's object_list holds: the objects with an attribute it may read or write,
 * or a method it may invoke, of those the meter has: a meter without a relay leaves out disconnect
 * control [CO-8.4], a `basic` meter the registers it does not measure [CO-6.4]. A meter that is not
 * prepaid-capable still lists the prepayment objects (every meterstack meter keeps a balance).
 */
export function objectList(association: Association, meter: MeterKind): CosemObject[] {
  return OBJECTS.filter(
    (o) =>
      hasObject(o, meter) &&
      (o.attributes.some((a) => a.access[association] !== 'none') ||
        o.methods.some((m) => m.access[association] !== 'none')),
  );
}

/** [CO-2.6] Attribute access_mode codes of Association LN version 1. */
export const ACCESS_MODE = { none: 0, read: 1, write: 2, 'read-write': 3 } as const;

export interface ObjectListEntry {
  classId: number;
  version: number;
  obis: Obis;
  /** access_mode per attribute; `selectors` lists the selective access a profile's buffer takes. */
  attributes: { id: number; mode: number; selectors: number[] }[];
  /** Method access: 0 no access, 1 access. */
  methods: { id: number; mode: 0 | 1 }[];
}

/**
 * [CO-2.6] The elements of an association's object_list (Association LN attribute 2), before A-XDR:
 * class id, version, logical name and the access rights this association has. A profile's buffer
 * takes selective access by range (selector 1, CO-7.8) and by entry (selector 2), nothing else.
 */
export function objectListEntries(association: Association, meter: MeterKind): ObjectListEntry[] {
  return objectList(association, meter).map((o) => ({
    classId: o.classId,
    version: o.version,
    obis: o.obis,
    attributes: o.attributes.map((a) => ({
      id: a.id,
      mode: ACCESS_MODE[a.access[association]],
      selectors: o.capture !== undefined && a.id === 2 ? [1, 2] : [],
    })),
    methods: o.methods.map((m) => ({ id: m.id, mode: m.access[association] === 'access' ? 1 : 0 })),
  }));
}
