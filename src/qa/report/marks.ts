// Which events of the service's stream become marks on a report's time axis, and their words: cut-offs,
// restores, recharges, faults, connectivity and mode changes [RP-5]. The relay itself is charted, so
// its changes are not marks. Pure.

import type { MeterEvent } from '../../events/schemas.ts';
import type { Mark } from './model.ts';

export function markOf(e: MeterEvent): Mark | null {
  const at = { t: e.vt, meter: e.device_id ?? null };
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'meter.cutoff':
      return { ...at, kind: 'cutoff', text: `relay opened at a balance of ${d['balance']} paise` };
    case 'meter.restored':
      return { ...at, kind: 'restore', text: `relay closed at a balance of ${d['balance']} paise` };
    case 'money.recharge':
      return {
        ...at,
        kind: 'recharge',
        text: `${d['amount']} paise, ${d['outcome']}${typeof d['balance'] === 'number' ? `: balance ${d['balance']} paise` : ''}`,
      };
    case 'fault.added':
      return { ...at, kind: 'fault', text: `${d['kind']} (${d['fault_id']})` };
    case 'fault.cleared':
      return { ...at, kind: 'fault', text: `cleared ${(d['fault_ids'] as string[]).join(', ')}` };
    case 'meter.offline':
      return { ...at, kind: 'offline', text: `${d['reason']}${d['said'] ? `: ${d['said']}` : ''}` };
    case 'meter.online':
      return { ...at, kind: 'online', text: 'back online' };
    case 'meter.mode':
      return { ...at, kind: 'mode', text: `${d['was'] ?? '—'} → ${d['mode']}` };
    default:
      return null;
  }
}
