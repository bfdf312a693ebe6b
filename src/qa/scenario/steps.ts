// One handler per timeline action, picked by a single switch. Each returns the step's label and its
// checks; an action that cannot be carried out is a failed check, so the report says what broke.

import type { CallResult, ScenarioContext } from './context.ts';
import { expectEvent } from './expect-event.ts';
import { LAST_SHOWN, match, pathGet, show, trimmed } from './matchers.ts';
import { durationMs, type ResponseExpect, type Step } from './schema.ts';
import { runSimStep, type WorldRef } from './steps-sim.ts';

export interface Check {
  what: string;
  /** null: held; else what differed. */
  failure: string | null;
  /** With a failure: what was seen (the body, the meter's fields, the last messages or events), trimmed. */
  seen?: string;
}

export interface StepOutcome {
  label: string;
  checks: Check[];
}

type Expectations = NonNullable<Step['expect_meter']>;

const METER_FIELDS: Record<Exclude<keyof Expectations, 'meter'>, string> = {
  relay: 'relay_state',
  relay_commanded: 'relay_commanded',
  mode: 'mode',
  balance: 'balance',
  energy_kwh: 'energy_kwh',
  active_tariff: 'active_tariff',
  config_mode: 'wifi.config_mode',
  online: 'online',
};

export async function runStep(ctx: ScenarioContext, step: Step, world: WorldRef): Promise<StepOutcome> {
  if (step.advance !== undefined) {
    const ms = durationMs(step.advance);
    return action(
      `advance the clock ${typeof step.advance === 'number' ? `${step.advance}s` : step.advance}`,
      () => ctx.sim('POST', '/clock/advance', { seconds: Math.round(ms / 1000) }),
    );
  }
  if (step.set_load) {
    const { meter, ...load } = step.set_load;
    return action(
      `set the load of ${meter} to ${load.watts} W${load.profile ? ` (${load.profile})` : ''}`,
      () => ctx.sim('POST', `/devices/${meter}/load`, load),
    );
  }
  if (step.recharge) {
    const r = step.recharge;
    const txn = r.transaction_id ?? `scenario-${ctx.stepStart}-${r.meter}`;
    return action(`recharge ${r.meter} with ${r.amount} paise`, () =>
      ctx.sim('POST', `/devices/${r.meter}/recharge`, { amount: r.amount, transaction_id: txn }),
    );
  }
  if (step.offline !== undefined || step.online !== undefined) {
    const online = step.online !== undefined;
    const meter = (step.online ?? step.offline)!;
    return action(`${meter} goes ${online ? 'online' : 'offline'}`, () =>
      ctx.sim('POST', `/devices/${meter}/online`, { online }),
    );
  }
  if (step.button) {
    const b = step.button;
    return action(`hold the button of ${b.meter} for ${b.hold_seconds} s`, () =>
      ctx.sim('POST', `/devices/${b.meter}/button`, { hold_seconds: b.hold_seconds }),
    );
  }
  if (step.call) {
    const c = step.call;
    const label = `${c.method} ${c.path}${c.as ? ` as ${c.as}` : ''}`;
    return respond(label, () => ctx.call(c.method, c.path, c.body, c.as), step.expect);
  }
  if (step.history) {
    const h = step.history;
    const q = new URLSearchParams({
      property_id: h.property,
      from_date: h.from,
      to_date: h.to,
      interval: h.interval,
    });
    const label = `history of ${h.meter}: ${h.property} every ${h.interval}, ${h.from} to ${h.to}${h.as ? ` as ${h.as}` : ''}`;
    return respond(
      label,
      () => ctx.call('GET', `/api/v2/devices/${h.meter}/metrics/history?${q}`, undefined, h.as),
      step.expect,
    );
  }
  if (step.expect_meter) return expectMeter(ctx, step.expect_meter);
  if (step.expect_mqtt) return expectMqtt(ctx, step.expect_mqtt);
  if (step.expect_event) return expectEvent(ctx, step.expect_event);
  const sim = await runSimStep(ctx, step, world);
  if (sim) return sim;
  throw new Error('unreachable: the schema allows exactly one action');
}

async function action(label: string, run: () => Promise<unknown>): Promise<StepOutcome> {
  try {
    await run();
    return { label, checks: [] };
  } catch (err) {
    return { label, checks: [{ what: 'carried out', failure: (err as Error).message }] };
  }
}

async function respond(
  label: string,
  run: () => Promise<CallResult>,
  expect: ResponseExpect | undefined,
): Promise<StepOutcome> {
  let r: CallResult;
  try {
    r = await run();
  } catch (err) {
    return { label, checks: [{ what: 'request sent', failure: (err as Error).message }] };
  }
  const checks: Check[] = [];
  const check = (what: string, expected: unknown, actual: unknown) =>
    checks.push({ what, failure: match(expected, actual) });
  if (!expect) {
    checks.push({
      what: 'succeeds',
      failure: r.status < 300 ? null : `got ${r.status} ${show(r.body?.error)}`,
    });
    return { label, checks: withSeen(checks, `${r.status} ${trimmed(r.body)}`) };
  }
  if (expect.status !== undefined)
    checks.push({
      what: `status ${expect.status}`,
      failure:
        r.status === expect.status
          ? null
          : `got ${r.status}${r.body?.error?.code ? ` (${r.body.error.code}: ${show(r.body.error.detail)})` : ''}`,
    });
  if (expect.error_code !== undefined)
    check(`error code ${expect.error_code}`, expect.error_code, r.body?.error?.code);
  if (expect.message !== undefined) check(`message ${show(expect.message)}`, expect.message, r.body?.message);
  if (expect.detail !== undefined)
    check(`error detail ${show(expect.detail)}`, expect.detail, r.body?.error?.detail);
  if (expect.data !== undefined) {
    const d = expect.data;
    if (
      typeof d === 'object' &&
      d !== null &&
      !Array.isArray(d) &&
      !Object.keys(d).some((k) => k.startsWith('$'))
    ) {
      for (const [k, v] of Object.entries(d)) check(`data.${k} ${show(v)}`, v, pathGet(r.body?.data, k));
    } else check(`data ${show(d)}`, d, r.body?.data);
  }
  return { label, checks: withSeen(checks, `${r.status} ${trimmed(r.body)}`) };
}

function withSeen(checks: Check[], seen: string): Check[] {
  return checks.map((c) => (c.failure === null ? c : { ...c, seen }));
}

async function expectMeter(ctx: ScenarioContext, e: Expectations): Promise<StepOutcome> {
  const label = `meter ${e.meter}`;
  let view: unknown;
  try {
    view = await ctx.sim('GET', `/devices/${e.meter}`);
  } catch (err) {
    return { label, checks: [{ what: 'read', failure: (err as Error).message }] };
  }
  const checks: Check[] = [];
  const seen: Record<string, unknown> = {};
  for (const [field, path] of Object.entries(METER_FIELDS)) {
    const expected = e[field as keyof typeof METER_FIELDS];
    if (expected === undefined) continue;
    seen[field] = pathGet(view, path);
    checks.push({ what: `${field} ${show(expected)}`, failure: match(expected, pathGet(view, path)) });
  }
  return { label, checks: withSeen(checks, trimmed(seen)) };
}

/** MQTT topic filter matching [MQTT-4.7]: + one level, # the rest. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}

async function expectMqtt(ctx: ScenarioContext, e: NonNullable<Step['expect_mqtt']>): Promise<StepOutcome> {
  const from = e.since === 'previous_step' ? ctx.previousStepStart : 0;
  const count = e.count ?? { $gte: 1 };
  const label = `MQTT ${e.topic}${e.payload ? ` with ${show(e.payload)}` : ''}${e.since === 'previous_step' ? ' since the previous step' : ''}`;
  const onTopic = () => ctx.seen.slice(from).filter((m) => topicMatches(e.topic, m.topic));
  const matching = () => onTopic().filter((m) => !e.payload || match(e.payload, m.json) === null).length;
  const deadline = Date.now() + e.within_s * 1000;
  let n = matching();
  while (match(count, n) !== null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    n = matching();
  }
  if (match(count, n) === null) return { label, checks: [{ what: `count ${show(count)}`, failure: null }] };
  const last = onTopic().slice(-LAST_SHOWN);
  const seen =
    last.length === 0
      ? `no message on ${e.topic}`
      : `the last ${last.length} on ${e.topic}: ${last.map((m) => `${m.topic} ${trimmed(m.json, 200)}`).join(' | ')}`;
  return { label, checks: [{ what: `count ${show(count)}`, failure: `${n} matching message(s)`, seen }] };
}
