// The `expect_event` step: waits (wall time, bounded by within_s) until the service's event journal
// (GET /sim/v1/events, issue 9 §3) holds the expected events, read over HTTP as any client would.
// With `at` (and `within`) only events at that virtual time count [SC-1]. When they do not come, the
// failure names what did, and when [SC-2]: the events of that type and meter with their times and
// data, or else which types came for that meter.

import type { ScenarioContext } from './context.ts';
import { LAST_SHOWN, match, show, trimmed } from './matchers.ts';
import { durationMs, type Step } from './schema.ts';
import type { Check, StepOutcome } from './steps.ts';
import { atMs, durationText, whenText } from './when.ts';

type ExpectEvent = NonNullable<Step['expect_event']>;

interface Event {
  seq: number;
  type: string;
  /** Virtual time, ms. */
  vt: number;
  device_id?: string;
  data: unknown;
}

/** [SC-1] The virtual span an event must fall in, and how the step wrote it. */
interface Window {
  from: number;
  to: number;
  text: string;
}

/** The step's window: none without `at`; a problem when an offset has no start to count from. */
type WindowOf = { ok: true; window: Window | null } | { ok: false; problem: string };

function windowOf(e: ExpectEvent, start: number | null): WindowOf {
  if (e.at === undefined) return { ok: true, window: null };
  const offset = typeof e.at === 'number' || !e.at.includes('T');
  if (offset && start === null)
    return { ok: false, problem: "the scenario's start time is not known: give at as an instant" };
  const at = atMs(e.at, start ?? 0);
  const within = e.within === undefined ? 0 : durationMs(e.within);
  const written = typeof e.at === 'number' ? `${e.at}s` : e.at;
  const plus = e.within === undefined ? '' : ` ± ${typeof e.within === 'number' ? `${e.within}s` : e.within}`;
  return { ok: true, window: { from: at - within, to: at + within, text: `at ${written}${plus}` } };
}

/** Events that never belong in a failure message: they come by wall time or from the runner itself. */
const NOISE = new Set(['telemetry.summary', 'http.request', 'log']);
/** Pages of 1,000 read at most per poll: a scenario's events, not a flood. */
const MAX_PAGES = 20;

async function eventsSince(
  ctx: ScenarioContext,
  since: number,
  type?: string,
  meter?: string,
): Promise<Event[]> {
  const out: Event[] = [];
  let cursor = since;
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams({ since: String(cursor), limit: '1000' });
    if (type !== undefined) q.set('type', type);
    if (meter !== undefined) q.set('device_id', meter);
    const data = (await ctx.sim('GET', `/events?${q}`)) as { events: Event[]; next_since: number };
    out.push(...data.events);
    cursor = data.next_since;
    if (data.events.length < 1000) break;
  }
  return out;
}

export async function expectEvent(ctx: ScenarioContext, e: ExpectEvent): Promise<StepOutcome> {
  const since = e.since === 'previous_step' ? ctx.previousStepSeq : 0;
  const count = e.count ?? { $gte: 1 };
  const of = e.meter ? ` of ${e.meter}` : '';
  const w = windowOf(e, ctx.startVt);
  const win = w.ok ? w.window : null;
  const label = `event ${e.type}${of}${e.data ? ` with ${show(e.data)}` : ''}${win ? ` ${win.text}` : ''}${e.since === 'previous_step' ? ' since the previous step' : ''}`;
  if (!w.ok) return { label, checks: [{ what: 'at', failure: w.problem }] };
  const inWindow = (ev: Event) => win === null || (ev.vt >= win.from && ev.vt <= win.to);
  const fits = (ev: Event) => inWindow(ev) && (!e.data || match(e.data, ev.data) === null);
  let candidates: Event[] = [];
  const deadline = Date.now() + e.within_s * 1000;
  try {
    for (;;) {
      candidates = await eventsSince(ctx, since, e.type, e.meter);
      if (match(count, candidates.filter(fits).length) === null || Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  } catch (err) {
    return { label, checks: [{ what: 'read the journal', failure: (err as Error).message }] };
  }
  const n = candidates.filter(fits).length;
  const check: Check = { what: `count ${show(count)}`, failure: null };
  if (match(count, n) !== null) {
    // `within` is the virtual window when `at` is given; the real-time wait is then said otherwise.
    check.failure = win
      ? `${n} matching event(s) ${win.text} (waited ${e.within_s} s)`
      : `${n} matching event(s) within ${e.within_s} s`;
    check.seen = await arrived(ctx, since, e, candidates, win);
  }
  return { label, checks: [check] };
}

/** What did come instead, and when [SC-2]. */
async function arrived(
  ctx: ScenarioContext,
  since: number,
  e: ExpectEvent,
  candidates: Event[],
  win: Window | null,
): Promise<string> {
  const of = e.meter ? ` of ${e.meter}` : '';
  const start = ctx.startVt;
  const ahead = win ? await clockBefore(ctx, win) : '';
  if (candidates.length > 0) {
    // With a window, the ones nearest it; else the last ones.
    const shown = win
      ? [...candidates]
          .sort((a, b) => distance(a.vt, win) - distance(b.vt, win) || a.vt - b.vt)
          .slice(0, LAST_SHOWN)
          .sort((a, b) => a.vt - b.vt)
      : candidates.slice(-LAST_SHOWN);
    const told = shown.map(
      (ev) =>
        `${ev.type} at ${whenText(ev.vt, start)}${win ? offBy(ev.vt, win) : ''} ${trimmed(ev.data, 200)}`,
    );
    const which = win ? 'nearest' : 'last';
    return `${candidates.length} ${e.type}${of} came, the ${which} ${told.length}: ${told.join(' | ')}${ahead}`;
  }
  const others = (await eventsSince(ctx, since, undefined, e.meter)).filter((ev) => !NOISE.has(ev.type));
  if (others.length === 0) return `no event${of} came at all${ahead}`;
  const byType = new Map<string, number>();
  for (const ev of others) byType.set(ev.type, (byType.get(ev.type) ?? 0) + 1);
  return `no ${e.type}${of} came; what did: ${[...byType].map(([t, k]) => `${t} ×${k}`).join(', ')}${ahead}`;
}

function distance(vt: number, win: Window): number {
  return vt < win.from ? win.from - vt : vt > win.to ? vt - win.to : 0;
}

/** `, 2s before the window` / `, 1.5s after it`; nothing for an event inside it (its data differed). */
function offBy(vt: number, win: Window): string {
  if (vt < win.from) return `, ${durationText(win.from - vt)} before the window`;
  if (vt > win.to) return `, ${durationText(vt - win.to)} after it`;
  return '';
}

/** A hint when the clock has not reached the window's end: the events may not have happened yet. */
async function clockBefore(ctx: ScenarioContext, win: Window): Promise<string> {
  try {
    const { now_ms } = (await ctx.sim('GET', '/clock')) as { now_ms: number };
    if (now_ms >= win.to) return '';
    return `; the clock is at ${whenText(now_ms, ctx.startVt)}, before the window ends: advance past it first`;
  } catch {
    return '';
  }
}
