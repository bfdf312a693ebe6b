// Recordings made by `meterstack bridge --record` (firmware-protocol/serial/PROTOCOL.md SP-9) read as
// JSON Lines traces with no conversion. What the bridge published on MQTT is the meter's own account
// in meter time: telemetry samples [MC-7.4] become samples; a state [MC-5] whose mode, commanded relay
// or active tariff changed becomes that event; an availability with a ts [MC-6.1] becomes online or
// offline. `rx`, `tx` and `link` lines (serial detail, bridge wall time) are skipped, except the
// start line's device id. Recharges are not events here: the replay meter recomputes the balance.
// The first state says how the meter opened (mode, balance, tariffs): the recording's header, in effect.

import { MODES } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import type { RawEntry } from './assemble.ts';
import type { TraceEvent, TraceMeta } from './types.ts';

export interface RecordingState {
  deviceId?: string;
  last?: { mode?: unknown; relay?: unknown; tariff?: unknown };
  /** From the first state message [MC-5]: how the recorded meter opened. */
  opening?: Partial<Pick<TraceMeta, 'mode' | 'balance' | 'ebTariff' | 'dgTariff' | 'activeTariff'>>;
}

export type RecordingLine =
  | { kind: 'samples'; samples: unknown[] }
  | { kind: 'events'; events: { ts: number; event: TraceEvent }[] }
  | { kind: 'skip' };

export function isRecordingLine(o: Record<string, unknown>): boolean {
  return typeof o['dir'] === 'string' && typeof o['ts'] === 'number';
}

export function readRecordingLine(o: Record<string, unknown>, st: RecordingState): RecordingLine {
  if (o['dir'] === 'link' && o['event'] === 'start' && typeof o['device_id'] === 'string')
    st.deviceId = o['device_id'];
  if (o['dir'] !== 'mqtt' || typeof o['topic'] !== 'string') return { kind: 'skip' };
  const channel = o['topic'].split('/')[3];
  const p = (o['payload'] ?? {}) as Record<string, unknown>;
  if (channel === 'telemetry' && Array.isArray(p['samples']))
    return { kind: 'samples', samples: p['samples'] };
  if (typeof p['ts'] !== 'number') return { kind: 'skip' };
  const ts = p['ts'];
  if (channel === 'availability' && typeof p['online'] === 'boolean')
    return { kind: 'events', events: [{ ts, event: { type: p['online'] ? 'online' : 'offline' } }] };
  if (channel !== 'state') return { kind: 'skip' };
  const events: { ts: number; event: TraceEvent }[] = [];
  const last = st.last;
  const mode = p['mode'];
  const relay = p['relay_commanded'];
  const tariff = p['active_tariff'];
  st.opening ??= openingOf(p);
  if (last && mode !== last.mode && typeof mode === 'string')
    events.push({ ts, event: { type: 'mode', mode: mode as never } });
  if (last && relay !== last.relay && typeof relay === 'boolean')
    events.push({ ts, event: { type: 'relay', on: relay } });
  if (last && tariff !== last.tariff && (tariff === 1 || tariff === 2))
    events.push({ ts, event: { type: 'active_tariff', tariff } });
  st.last = { mode, relay, tariff };
  return { kind: 'events', events };
}

/**
 * Messages are recorded in publish order, and a telemetry batch can carry samples older than a state
 * published before it; a resent batch repeats samples. So: time order (samples before events at the
 * same instant), each sample ts once [MC-7.6].
 */
export function orderRecording(raws: RawEntry[]): RawEntry[] {
  const seen = new Set<number>();
  return raws
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.ts - b.r.ts || (a.r.kind === b.r.kind ? a.i - b.i : a.r.kind === 'sample' ? -1 : 1))
    .map(({ r }) => r)
    .filter((r) => {
      if (r.kind !== 'sample') return true;
      if (seen.has(r.ts)) return false;
      seen.add(r.ts);
      return true;
    });
}

const paise = (v: unknown) => (Number.isSafeInteger(v) ? (v as number) : undefined);

/** The opening settings a state payload [MC-5] tells; fields it lacks or gets wrong stay unset. */
function openingOf(p: Record<string, unknown>): NonNullable<RecordingState['opening']> {
  const out: NonNullable<RecordingState['opening']> = {};
  if (MODES.includes(p['mode'] as never)) out.mode = p['mode'] as TraceMeta['mode'];
  if (paise(p['balance']) !== undefined) out.balance = paise(p['balance']);
  if (paise(p['eb_tariff']) !== undefined) out.ebTariff = paise(p['eb_tariff']);
  if (paise(p['dg_tariff']) !== undefined) out.dgTariff = paise(p['dg_tariff']);
  if (p['active_tariff'] === 1 || p['active_tariff'] === 2) out.activeTariff = p['active_tariff'];
  return out;
}
