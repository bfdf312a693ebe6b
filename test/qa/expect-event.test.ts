// The scenario step `expect_event` against a real service's journal over HTTP: it waits (bounded) for
// the event, matches its data and its virtual time (`at`, `within`: SC-1), and when the event does not
// come says what did, and when (SC-2). The events are emitted
// on the service's bus here; fixtures/scenarios/10-prepaid-events.yaml has the meters emit them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMqtt } from '../../src/mqtt/connect.ts';
import { ScenarioContext } from '../../src/qa/scenario/context.ts';
import { parseScenario } from '../../src/qa/scenario/load.ts';
import { stepSchema } from '../../src/qa/scenario/schema.ts';
import { runStep } from '../../src/qa/scenario/steps.ts';
import { ADMIN_MQTT_USERNAME } from '../../src/service.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
let ctx: ScenarioContext;
let end: () => Promise<void>;
beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  const mqtt = await connectMqtt({
    url: t.svc.mqttUrl,
    username: ADMIN_MQTT_USERNAME,
    password: t.svc.adminToken,
    clientId: 'expect-event-test',
  });
  end = () => mqtt.endAsync(true);
  ctx = new ScenarioContext(t.svc, mqtt, () => 'acme');
});
afterAll(async () => {
  await end?.();
  await t?.close();
});

const world = { spec: { accounts: [] }, seed: 1 };
const step = (s: unknown) => runStep(ctx, stepSchema.parse(s), world);
const relay = { commanded: false, effective: false, was: { commanded: true, effective: true } };

describe('expect_event', () => {
  it('waits for an event that comes later, matching type, meter and data', async () => {
    setTimeout(() => t.svc.bus.emit('meter.cutoff', { balance: -1 }, { deviceId: 'MTR-E1' }), 150);
    const t0 = Date.now();
    const out = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-E1', data: { balance: -1 } },
    });
    expect(out.checks).toEqual([{ what: 'count {"$gte":1}', failure: null }]);
    expect(out.label).toBe('event meter.cutoff of MTR-E1 with {"balance":-1}');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
  });

  it('takes families, operators and an exact count', async () => {
    t.svc.bus.emit('meter.relay', relay, { deviceId: 'MTR-E2' });
    t.svc.bus.emit('meter.cutoff', { balance: -3 }, { deviceId: 'MTR-E2' });
    const fam = await step({
      expect_event: { type: 'meter.*', meter: 'MTR-E2', count: 2, within_s: 0 },
    });
    expect(fam.checks[0]!.failure).toBeNull();
    const op = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-E2', data: { balance: { $lt: 0 } }, within_s: 0 },
    });
    expect(op.checks[0]!.failure).toBeNull();
    const none = await step({ expect_event: { type: 'money.*', meter: 'MTR-E2', count: 0, within_s: 0 } });
    expect(none.checks[0]!.failure).toBeNull();
  });

  it('fails after within_s naming the events of that type that did come, with their data', async () => {
    t.svc.bus.emit('meter.cutoff', { balance: -5 }, { deviceId: 'MTR-E3' });
    const t0 = Date.now();
    const out = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-E3', data: { balance: -1 }, within_s: 0.3 },
    });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(out.checks[0]!.failure).toBe('0 matching event(s) within 0.3 s');
    expect(out.checks[0]!.seen).toMatch(
      /^1 meter\.cutoff of MTR-E3 came, the last 1: meter\.cutoff at \d{4}-\d\d-\d\dT[\d:.]+\+05:30 \{"balance":-5\}$/,
    );
  });

  it('fails naming the types that came for the meter when none of the type did', async () => {
    t.svc.bus.emit('meter.relay', relay, { deviceId: 'MTR-E4' });
    t.svc.bus.emit('meter.relay', relay, { deviceId: 'MTR-E4' });
    t.svc.bus.emit('meter.mode', { mode: 'prepaid', was: 'postpaid' }, { deviceId: 'MTR-E4' });
    const out = await step({ expect_event: { type: 'meter.restored', meter: 'MTR-E4', within_s: 0 } });
    expect(out.checks[0]!.failure).toBe('0 matching event(s) within 0 s');
    expect(out.checks[0]!.seen).toBe(
      'no meter.restored of MTR-E4 came; what did: meter.relay ×2, meter.mode ×1',
    );
    const nothing = await step({ expect_event: { type: 'meter.restored', meter: 'MTR-NONE', within_s: 0 } });
    expect(nothing.checks[0]!.seen).toBe('no event of MTR-NONE came at all');
  });

  it('since: previous_step counts only events after the previous step began', async () => {
    t.svc.bus.emit('meter.cutoff', { balance: -9 }, { deviceId: 'MTR-E5' });
    ctx.previousStepSeq = await ctx.eventSeqNow();
    const before = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-E5', since: 'previous_step', count: 0, within_s: 0 },
    });
    expect(before.checks[0]!.failure).toBeNull();
    t.svc.bus.emit('meter.cutoff', { balance: -9 }, { deviceId: 'MTR-E5' });
    const after = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-E5', since: 'previous_step', count: 1, within_s: 0 },
    });
    expect(after.checks[0]!.failure).toBeNull();
  });

  it('SC-1: an offset needs the start to count from; without one the step fails saying so', async () => {
    const out = await step({ expect_event: { type: 'meter.cutoff', at: '5m', within_s: 0 } });
    expect(out.checks).toEqual([
      { what: 'at', failure: "the scenario's start time is not known: give at as an instant" },
    ]);
  });

  it('an unknown type is refused when the file is loaded, at its line', () => {
    const text = [
      'name: x',
      'world: { accounts: [{ name: acme }] }',
      'timeline:',
      '  - expect_event: { type: meter.cutof }',
    ].join('\n');
    expect(() => parseScenario('x.yaml', text)).toThrow(
      /^x\.yaml:4:27: timeline\[0\]\.expect_event\.type: unknown event type 'meter\.cutof'/,
    );
  });
});

describe('expect_event at a virtual time [SC-1]', () => {
  // Events stamped at virtual times of our choosing, relative to a start set as the runner sets it.
  let start: number;
  const at = (ms: number) => ({ deviceId: 'MTR-AT', vt: start + ms });
  beforeAll(async () => {
    start = ((await ctx.sim('GET', '/clock')) as { now_ms: number }).now_ms;
    ctx.startVt = start;
    t.svc.bus.emit('meter.cutoff', { balance: -1 }, at(18 * 60_000 + 45_500));
  });
  afterAll(() => {
    ctx.startVt = null;
  });

  it('SC-1: at an offset from the start, within a window either side; the label says both', async () => {
    const out = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-AT', at: '18m45s', within: '1s', within_s: 0 },
    });
    expect(out.label).toBe('event meter.cutoff of MTR-AT at 18m45s ± 1s');
    expect(out.checks[0]!.failure).toBeNull();
    const exact = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-AT', at: '18m45.5s', within_s: 0 },
    });
    expect(exact.checks[0]!.failure).toBeNull();
  });

  it('SC-1: at an instant written as an IST date-time', async () => {
    const iso = new Date(start + 18 * 60_000 + 45_000 + 19_800_000).toISOString().slice(0, 23);
    const out = await step({
      expect_event: {
        type: 'meter.cutoff',
        meter: 'MTR-AT',
        at: `${iso}+05:30`,
        within: '500ms',
        within_s: 0,
      },
    });
    expect(out.checks[0]!.failure).toBeNull();
  });

  it('SC-2: outside the window it fails saying when the event came and by how much it missed', async () => {
    const out = await step({
      expect_event: { type: 'meter.cutoff', meter: 'MTR-AT', at: '18m40s', within: '2s', within_s: 0 },
    });
    expect(out.checks[0]!.failure).toBe('0 matching event(s) at 18m40s ± 2s (waited 0 s)');
    expect(out.checks[0]!.seen).toMatch(
      /^1 meter\.cutoff of MTR-AT came, the nearest 1: meter\.cutoff at 18m45\.5s \([\d-]+T[\d:]+\.\d{3}\+05:30\), 3\.5s after it \{"balance":-1\}; the clock is at 0s \(.*\), before the window ends: advance past it first$/,
    );
  });

  it('SC-1: within without at, and a bad at, are refused when the file loads', () => {
    const text = (e: string) =>
      ['name: x', 'world: { accounts: [{ name: acme }] }', 'timeline:', `  - expect_event: ${e}`].join('\n');
    expect(() => parseScenario('x.yaml', text('{ type: meter.cutoff, within: 1s }'))).toThrow(
      /x\.yaml:4:\d+: timeline\[0\]\.expect_event\.within: within goes with at/,
    );
    expect(() => parseScenario('x.yaml', text('{ type: meter.cutoff, at: soon }'))).toThrow(
      /timeline\[0\]\.expect_event\.at/,
    );
    const ok = parseScenario('x.yaml', text('{ type: meter.cutoff, at: 1h2m3.5s, within: 250ms }'));
    expect(ok.timeline[0]!.expect_event!.at).toBe('1h2m3.5s');
  });
});
