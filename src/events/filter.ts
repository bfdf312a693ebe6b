// Which events a journal query or a live stream wants: a set of types (given as types or families,
// `meter.*`) and a device. Parsing is here, once, for the HTTP routes and the scenario runner alike.

import { EVENT_TYPES, type EventType, type MeterEvent } from './schemas.ts';

export interface EventFilter {
  /** Only these types; undefined: every type. */
  types?: ReadonlySet<EventType>;
  deviceId?: string;
}

const KNOWN = new Set<string>(EVENT_TYPES);
const FAMILIES = new Set(EVENT_TYPES.map((t) => t.split('.')[0]!));

/**
 * `meter.relay,money.*` → the set of types it names. A family is `<family>.*`; `log` (a type without
 * a family) is named as itself. Returns the offending item when one names nothing.
 */
export function parseTypeList(
  list: string,
): { ok: true; types: Set<EventType> } | { ok: false; bad: string } {
  const types = new Set<EventType>();
  for (const raw of list.split(',')) {
    const item = raw.trim();
    if (KNOWN.has(item)) types.add(item as EventType);
    else if (item.endsWith('.*') && FAMILIES.has(item.slice(0, -2))) {
      const prefix = item.slice(0, -1);
      for (const t of EVENT_TYPES) if (t.startsWith(prefix)) types.add(t);
    } else return { ok: false, bad: item };
  }
  return { ok: true, types };
}

export function matches(filter: EventFilter, e: MeterEvent): boolean {
  if (filter.types !== undefined && !filter.types.has(e.type)) return false;
  if (filter.deviceId !== undefined && e.device_id !== filter.deviceId) return false;
  return true;
}

/** What to say in a validation error: the names a `type` filter accepts. */
export function typeListHelp(): string {
  return `comma-separated event types (${EVENT_TYPES.join(', ')}) or families (${[...FAMILIES]
    .filter((f) => !KNOWN.has(f))
    .map((f) => `${f}.*`)
    .join(', ')})`;
}
