// The console's plain data: the fleet rows, recent events and the clock, as the service last said
// them. Fed by GET /sim/v1/fleet (on start, after actions, and every few seconds), by the event
// stream when there is one, and by polling the journal when there is not. Views subscribe; changes
// are told to them at most once per animation frame, however many events arrived [issue 9 §4].

import { sim } from './api.js';

const MAX_EVENTS = 2000;

export const live = {
  /** device_id -> fleet row (GET /sim/v1/fleet's shape, updated in place by events) */
  rows: new Map(),
  accounts: [],
  /** The broker URL meters connect to (the fleet read's `mqtt_url`), for an external meter's connect lines. */
  mqttUrl: null,
  /** Newest last; at most MAX_EVENTS. */
  events: [],
  /** 'connecting' | 'live' (SSE) | 'polling' (journal) | 'none' (neither answers) */
  stream: 'connecting',
  /** { now_ms, speed, at: performance.now() when read } */
  clock: null,
  /** Whether the stream has carried meter state or telemetry: then the fleet poll can slow down. */
  meterEvents: false,
  /** device ids, sorted; rebuilt only when a read adds or removes a device. */
  order: [],
  /** Bumped on every change, so views can tell whether to redraw. */
  version: 0,
};

const listeners = new Set();
let scheduled = false;

export function subscribe(f) {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** Marks a change; listeners run once on the next animation frame. */
export function changed() {
  live.version++;
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    for (const f of listeners) f(live.version);
  });
}

// ---- the fleet ----

let fleetInFlight = null;

/**
 * device_id -> seq of the newest state event (not telemetry) applied to its row. A fleet read asked
 * for before it is older than the row: taking it would undo the change on screen until the next read,
 * 30 s later with 10,000 meters, whose read takes long enough for this to happen.
 */
const stateSeq = new Map();

/**
 * device_id -> {patch, until}: what a control the service just said yes to set on the row (the relay
 * commanded closed, the mode). A fleet read that does not show it yet (the meter's report is still on
 * its way) does not flip the control back; the patch goes once a read shows it, or after 3 s.
 */
const expected = new Map();
const EXPECT_MS = 3000;

/** Sets `patch` on the row of `id` now and keeps it through fleet reads that predate it. */
export function expectRow(id, patch) {
  const row = live.rows.get(id);
  if (!row) return;
  Object.assign(row, patch);
  expected.set(id, { patch, until: performance.now() + EXPECT_MS });
  changed();
}

function keepExpected(id, row) {
  const x = expected.get(id);
  if (!x) return;
  const shown = Object.entries(x.patch).every(([k, v]) => row[k] === v);
  if (shown || performance.now() > x.until) expected.delete(id);
  else Object.assign(row, x.patch);
}

/** Re-reads every row; concurrent calls share one request. */
export function refreshFleet() {
  const asked = lastSeq ?? 0;
  fleetInFlight ??= sim('GET', '/fleet').then((r) => {
    fleetInFlight = null;
    if (!r.ok) return r;
    live.accounts = r.data.accounts;
    live.mqttUrl = r.data.mqtt_url ?? live.mqttUrl;
    const seen = new Set();
    for (const row of r.data.devices) {
      seen.add(row.device_id);
      const old = live.rows.get(row.device_id);
      if (old && (stateSeq.get(row.device_id) ?? 0) > asked) continue; // the stream told newer
      live.rows.set(row.device_id, old ? Object.assign(old, row) : row);
      keepExpected(row.device_id, live.rows.get(row.device_id));
    }
    let membership = seen.size !== live.rows.size;
    for (const id of live.rows.keys()) {
      if (!seen.has(id)) {
        live.rows.delete(id);
        membership = true;
      }
    }
    if (membership || live.order.length !== live.rows.size) live.order = [...live.rows.keys()].sort();
    changed();
    return r;
  });
  return fleetInFlight;
}

/** After an action: read now, and again shortly after, when the meter's MQTT answer has landed. */
export function refreshSoon() {
  refreshFleet();
  setTimeout(refreshFleet, 250);
  setTimeout(refreshFleet, 900);
}

// ---- events ----

/** What a meter says when it connects [MC-4.1]: its info, then its availability. */
const FIRST_WORDS = new Set(['meter.connected', 'meter.online', 'meter.info']);

/** What an event says about its meter's row, applied in place. */
export function applyEvent(e) {
  const row = e.device_id ? live.rows.get(e.device_id) : undefined;
  const d = e.data;
  if (e.type === 'telemetry.summary') {
    for (const m of d.meters) {
      const r = live.rows.get(m.device_id);
      if (!r) continue;
      r.active_power = m.active_power;
      r.energy = m.energy;
      r.balance = m.balance;
      r.sample_ts = m.ts;
      r.last_seen = Math.max(r.last_seen ?? 0, m.ts);
      r.heard = true; // a reading: no longer waiting for its first connection (the next read agrees)
    }
    return;
  }
  if (!row) return;
  switch (e.type) {
    case 'meter.online':
      row.online = true;
      break;
    case 'meter.offline':
      row.online = false;
      break;
    case 'meter.relay':
      row.relay_commanded = d.commanded;
      row.relay_state = d.effective;
      break;
    case 'meter.mode':
      row.mode = d.mode;
      break;
    case 'meter.tariff':
      Object.assign(row, { active_tariff: d.active_tariff, eb_tariff: d.eb_tariff, dg_tariff: d.dg_tariff });
      break;
    case 'meter.cutoff':
      Object.assign(row, { relay_state: false, balance: d.balance });
      break;
    case 'meter.restored':
      Object.assign(row, { relay_state: true, balance: d.balance });
      break;
    case 'money.recharge':
      if (d.balance !== null) row.balance = d.balance;
      break;
  }
  if (e.type.startsWith('meter.')) {
    row.last_seen = Math.max(row.last_seen ?? 0, e.vt);
    // Its first connection: read its row now, for what it reported (mode, balance) and its `heard`,
    // rather than say "waiting for its first connection" until the next poll.
    if (row.heard === false && FIRST_WORDS.has(e.type)) setTimeout(refreshSoon, 0);
  }
}

/** The newest seq taken in, so a reconnect or the journal poll resumes after it. */
let lastSeq = null;

function take(e) {
  if (lastSeq !== null && e.seq <= lastSeq) return;
  lastSeq = e.seq;
  if (e.type.startsWith('meter.') || e.type === 'telemetry.summary') live.meterEvents = true;
  if (e.device_id && e.type !== 'telemetry.summary') {
    stateSeq.set(e.device_id, e.seq);
    if (e.type.startsWith('meter.')) expected.delete(e.device_id); // the meter said: that is the truth now
  }
  applyEvent(e);
  live.events.push(e);
  if (live.events.length > MAX_EVENTS) live.events.splice(0, live.events.length - MAX_EVENTS);
  changed();
}

/** Splits an SSE byte stream into frames; calls `onEvent` with each `data:` JSON. */
export function sseParser(onEvent) {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) {
        try {
          onEvent(JSON.parse(data));
        } catch {
          // a frame that is not an event: ignore it, keep the stream
        }
      }
      end = buffer.indexOf('\n\n');
    }
  };
}

/**
 * The live stream: SSE through fetch (EventSource cannot send X-Admin-Token). Where the service has
 * no stream (404) the journal is polled; where it has neither, only the fleet poll remains.
 */
async function readStream(token, signal) {
  const q = lastSeq === null ? '' : `?since=${lastSeq}`;
  const res = await fetch(`/sim/v1/events/stream${q}`, { headers: { 'x-admin-token': token }, signal });
  if (!res.ok || !res.body) return res.status;
  live.stream = 'live';
  changed();
  const parse = sseParser(take);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return 0;
    parse(value);
  }
}

async function pollJournal() {
  const q = lastSeq === null ? 'limit=200' : `since=${lastSeq}&limit=1000`;
  const r = await sim('GET', `/events?${q}`);
  if (!r.ok) return r.status;
  for (const e of r.data.events) take(e);
  if (lastSeq === null) lastSeq = r.data.next_since ?? null;
  return 200;
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/**
 * A service that started again may hand out seqs below ours (its journal is memory; durable seqs
 * may not be kept): resuming after ours would skip everything it says. Take all it holds.
 */
async function checkSeqs() {
  if (lastSeq === null) return;
  const head = await sim('GET', '/events?limit=1');
  if (head.ok && head.data.next_since < lastSeq) {
    lastSeq = 0;
    stateSeq.clear(); // seqs of the service that was: none is newer than a read of this one
  }
}

/** Runs until `signal` aborts: stream if possible, else journal polling, retrying either. */
export async function follow(token, signal) {
  // The newest events first, so the views are not empty; the stream then resumes after them.
  if (lastSeq === null) await pollJournal().catch(() => 0);
  while (!signal.aborted) {
    let status;
    try {
      await checkSeqs();
      status = await readStream(token, signal);
    } catch {
      status = 0;
    }
    if (signal.aborted) return;
    // No stream here (404), or all its slots taken (503): the journal, polled, says the same.
    if (status === 404 || status === 503) {
      const j = await pollJournal().catch(() => 0);
      live.stream = j === 200 ? 'polling' : 'none';
      changed();
      // Without a journal there is nothing to follow: look again now and then (a newer service).
      await sleep(j === 200 ? 1000 : 10_000, signal);
    } else {
      if (live.stream !== 'connecting') {
        live.stream = 'connecting';
        changed();
      }
      await sleep(1000, signal);
    }
  }
}

/** The fleet's own poll: fast without a live stream, slower with one; scaled to the fleet's size. */
export async function pollFleet(signal) {
  while (!signal.aborted) {
    // The stream carries every change: the read only mends what it may have missed. Without it the
    // read is all there is. A 10,000-row read costs the service ~0.1-0.3 s: space them by size.
    const streamed = live.stream === 'live' && live.meterEvents;
    await sleep(streamed ? Math.max(5000, live.rows.size * 3) : Math.max(1000, live.rows.size / 2), signal);
    if (!signal.aborted && document.visibilityState !== 'hidden') await refreshFleet();
  }
}

// ---- the clock ----

export async function refreshClock() {
  const r = await sim('GET', '/clock');
  if (r.ok) {
    live.clock = {
      now_ms: r.data.now_ms,
      speed: r.data.speed,
      wall_offset_ms: r.data.wall_offset_ms ?? 0,
      at: performance.now(),
    };
    changed();
  }
  return r;
}

/** Virtual now, extrapolated from the last read at its speed. */
export function virtualNow() {
  const c = live.clock;
  return c ? c.now_ms + (performance.now() - c.at) * c.speed : null;
}
