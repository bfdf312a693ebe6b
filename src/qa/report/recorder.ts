// Gathers one run's meters, marks and expectations as they come, in bounded memory whatever the
// meters send [RP-3]: at most MAX_METERS meters, POINTS samples kept per meter (thinned as more come),
// MAX_MARKS marks and MAX_RELAY relay changes. Fed with the contract's wire messages (MC-4, MC-5,
// MC-7) and events; no I/O, so the collectors of scenarios and replays share it.

import { atPlaces, DEFAULT_PLACES, placesOf } from './format.ts';
import type { CheckMark, Mark, MeterSeries, RunData } from './model.ts';

export const MAX_METERS = 50;
/** Samples kept per meter (up to twice this before a thinning): about a screen's width of points. */
export const POINTS = 600;
export const MAX_MARKS = 2000;
export const MAX_RELAY = 2000;
export const MAX_CHECKS = 5000;
/** A `seen` or failure text is cut here: a body of megabytes is not a report. */
export const MAX_TEXT = 2000;

type Row = [t: number, power: number | null, energy: number | null, balance: number | null];

interface Building extends MeterSeries {
  /** Newest sample time taken (samples arriving out of order are set in their place). */
  newest: number;
  /** After thinning, one sample is kept of every `stride` that come in order [RP-3]. */
  stride: number;
  /** The sample standing for the group of `stride` being gathered, and how many it stands for. */
  pending: Row | null;
  gathered: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const cut = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);

export class RunRecorder {
  readonly #meters = new Map<string, Building>();
  readonly #marks: Mark[] = [];
  readonly #checks: CheckMark[] = [];
  #thinned = false;

  /** A wire message of meter `id` on `channel` (info, state, telemetry); anything malformed is skipped. */
  message(id: string, channel: string, json: unknown): void {
    if (typeof json !== 'object' || json === null) return;
    const m = json as Record<string, unknown>;
    if (channel === 'info') this.#info(id, m);
    else if (channel === 'state') this.#state(id, m);
    else if (channel === 'telemetry' && Array.isArray(m['samples']))
      for (const s of m['samples'] as unknown[]) this.sample(id, s);
  }

  /** One telemetry sample [MC-7.4]. */
  sample(id: string, s: unknown): void {
    if (typeof s !== 'object' || s === null) return;
    const x = s as Record<string, unknown>;
    const ts = num(x['ts']);
    const m = this.#meter(id);
    if (ts === null || m === null) return;
    const power = num(x['active_power']);
    const energy = num(x['energy']);
    const balance = num(x['balance']);
    const row: Row = [
      ts,
      power === null ? null : atPlaces(power, m.places.power),
      energy === null ? null : atPlaces(energy, m.places.energy),
      balance === null ? null : Math.floor(balance),
    ];
    if (ts <= m.newest) {
      // Late (a resent batch, MC-7.3): in its place, once.
      const i = lowerBound(m.t, ts);
      if (m.t[i] !== ts && m.pending?.[0] !== ts) insert(m, i, row);
      return;
    }
    m.newest = ts;
    if (m.stride === 1) insert(m, m.t.length, row);
    else {
      if (m.pending === null || louder(row, m.pending)) m.pending = row;
      if (++m.gathered === m.stride) flush(m);
    }
    if (m.t.length >= 2 * POINTS) this.#thin(m);
  }

  /** The relay as a state message says it [MC-5.2]: only its changes are kept. */
  relay(id: string, ts: number, closed: boolean): void {
    const m = this.#meter(id);
    if (m === null) return;
    const last = m.relay.at(-1);
    if (last !== undefined && last[1] === closed) return;
    if (m.relay.length >= MAX_RELAY) {
      this.#thinned = true;
      return;
    }
    m.relay.push([ts, closed]);
  }

  mark(mark: Mark): void {
    if (this.#marks.length >= MAX_MARKS) {
      this.#thinned = true;
      return;
    }
    this.#marks.push({ ...mark, text: cut(mark.text) });
  }

  check(c: CheckMark): void {
    if (this.#checks.length >= MAX_CHECKS) {
      this.#thinned = true;
      return;
    }
    this.#checks.push({
      ...c,
      label: cut(c.label),
      what: cut(c.what),
      failure: c.failure === null ? null : cut(c.failure),
      seen: c.seen === null ? null : cut(c.seen),
    });
  }

  /** The run as the report shows it; meters in id order, marks and checks in time order. */
  result(run: Omit<RunData, 'meters' | 'marks' | 'checks' | 'thinned'>): RunData {
    const meters = [...this.#meters.values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((m) => {
        flush(m);
        const { newest: _n, stride: _s, pending: _p, gathered: _g, ...series } = m;
        return series;
      });
    for (const m of meters) m.relay.sort((a, b) => a[0] - b[0]);
    return {
      ...run,
      // A scenario's name, a trace's file name, a world's refusal: texts like any other [RP-3].
      file: cut(run.file),
      name: cut(run.name),
      setupError: run.setupError === null ? null : cut(run.setupError),
      notes: run.notes.slice(0, 20).map(cut),
      meters,
      marks: [...this.#marks].sort((a, b) => a.t - b.t),
      checks: [...this.#checks].sort((a, b) => a.t - b.t || a.step - b.step),
      thinned: this.#thinned,
    };
  }

  #meter(id: string): Building | null {
    const known = this.#meters.get(id);
    if (known) return known;
    if (this.#meters.size >= MAX_METERS) {
      this.#thinned = true;
      return null;
    }
    const m: Building = {
      id: cut(id),
      places: { ...DEFAULT_PLACES },
      t: [],
      power: [],
      energy: [],
      balance: [],
      relay: [],
      newest: Number.NEGATIVE_INFINITY,
      stride: 1,
      pending: null,
      gathered: 0,
    };
    this.#meters.set(id, m);
    return m;
  }

  /** [MC-4.4] The resolutions a meter declares set the places of its values [RP-4]. */
  #info(id: string, info: Record<string, unknown>): void {
    const m = this.#meter(id);
    if (m === null || !Array.isArray(info['properties'])) return;
    for (const p of info['properties'] as unknown[]) {
      if (typeof p !== 'object' || p === null) continue;
      const { property_id: prop, resolution } = p as Record<string, unknown>;
      if (prop === 'active_power') m.places.power = placesOf(resolution, DEFAULT_PLACES.power);
      if (prop === 'energy') m.places.energy = placesOf(resolution, DEFAULT_PLACES.energy);
    }
  }

  #state(id: string, s: Record<string, unknown>): void {
    const ts = num(s['ts']);
    if (ts !== null && typeof s['relay_state'] === 'boolean') this.relay(id, ts, s['relay_state']);
  }

  /**
   * [RP-3] Halves a meter's samples: of each pair the one drawing more power stays, so a peak is not
   * thinned away (the relay's changes, kept apart, still show every cut).
   */
  #thin(m: Building): void {
    this.#thinned = true;
    m.stride *= 2;
    let w = 0;
    for (let r = 0; r < m.t.length; r += 2) {
      const k = r + 1 < m.t.length && Math.abs(m.power[r + 1] ?? 0) > Math.abs(m.power[r] ?? 0) ? r + 1 : r;
      m.t[w] = m.t[k]!;
      m.power[w] = m.power[k]!;
      m.energy[w] = m.energy[k]!;
      m.balance[w] = m.balance[k]!;
      w++;
    }
    m.t.length = m.power.length = m.energy.length = m.balance.length = w;
  }
}

function insert(m: Building, i: number, [t, power, energy, balance]: Row): void {
  m.t.splice(i, 0, t);
  m.power.splice(i, 0, power);
  m.energy.splice(i, 0, energy);
  m.balance.splice(i, 0, balance);
}

const louder = (a: Row, b: Row): boolean => Math.abs(a[1] ?? 0) > Math.abs(b[1] ?? 0);

/** The group being gathered, as one sample at the end. */
function flush(m: Building): void {
  if (m.pending !== null) insert(m, m.t.length, m.pending);
  m.pending = null;
  m.gathered = 0;
}

function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
