// The `expect_event` step: waits (wall time, bounded by within_s) until the service's event journal
// (GET /sim/v1/events, issue 9 §3) holds the expected events, read over HTTP as any client would.
// When they do not come, the failure names what did: the events of that type and meter with their
// data, or else which types came for that meter.

import type { ScenarioContext } from './context.ts';
import { LAST_SHOWN, match, show, trimmed } from './matchers.ts';
import type { Step } from './schema.ts';
import type { Check, StepOutcome } from './steps.ts';

type ExpectEvent = NonNullable<Step['expect_event']>;

interface Event {
  seq: number;
  type: string;
  device_id?: string;
  data: unknown;
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
  const label = `event ${e.type}${of}${e.data ? ` with ${show(e.data)}` : ''}${e.since === 'previous_step' ? ' since the previous step' : ''}`;
  const fits = (ev: Event) => !e.data || match(e.data, ev.data) === null;
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
    check.failure = `${n} matching event(s) within ${e.within_s} s`;
    check.seen = await arrived(ctx, since, e, candidates);
  }
  return { label, checks: [check] };
}

/** What did come instead, for the failure message. */
async function arrived(
  ctx: ScenarioContext,
  since: number,
  e: ExpectEvent,
  candidates: Event[],
): Promise<string> {
  const of = e.meter ? ` of ${e.meter}` : '';
  if (candidates.length > 0) {
    const shown = candidates.slice(-LAST_SHOWN).map((ev) => `${ev.type} ${trimmed(ev.data, 200)}`);
    return `${candidates.length} ${e.type}${of} came, the last ${shown.length}: ${shown.join(' | ')}`;
  }
  const others = (await eventsSince(ctx, since, undefined, e.meter)).filter((ev) => !NOISE.has(ev.type));
  if (others.length === 0) return `no event${of} came at all`;
  const byType = new Map<string, number>();
  for (const ev of others) byType.set(ev.type, (byType.get(ev.type) ?? 0) + 1);
  return `no ${e.type}${of} came; what did: ${[...byType].map(([t, k]) => `${t} ×${k}`).join(', ')}`;
}
