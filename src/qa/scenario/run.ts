// Runs one scenario on a fresh embedded meterstack: in-memory store, ephemeral ports, a virtual clock
// that starts at the scenario's `clock.start` and moves only when the timeline advances it (speed 0),
// so the same file and seed give the same results. Steps: start → watch MQTT → build world → timeline.

import { connectMqtt } from '../../mqtt/connect.ts';
import { ADMIN_MQTT_USERNAME, startService } from '../../service.ts';
import { ScenarioContext } from './context.ts';
import type { Scenario } from './schema.ts';
import { type Check, runStep } from './steps.ts';
import { buildWorld } from './world.ts';

export interface StepReport {
  index: number;
  label: string;
  name?: string;
  checks: Check[];
}

export interface ScenarioReport {
  file: string;
  name: string;
  seed: number;
  clockStart: string;
  steps: StepReport[];
  /** A problem before the timeline (the world could not be built). */
  setupError: string | null;
  passed: number;
  failed: number;
}

const ADMIN_TOKEN = 'scenario-admin-token';

export async function runScenario(file: string, scenario: Scenario): Promise<ScenarioReport> {
  const report: ScenarioReport = {
    file,
    name: scenario.name,
    seed: scenario.seed,
    clockStart: scenario.clock.start,
    steps: [],
    setupError: null,
    passed: 0,
    failed: 0,
  };
  const svc = await startService({
    host: '127.0.0.1',
    httpPort: 0,
    mqttPort: 0,
    db: ':memory:',
    adminToken: ADMIN_TOKEN,
    apiKey: 'msk_scenario',
    speed: 0,
    clockStart: Date.parse(scenario.clock.start),
    demo: false,
    strictPort: false,
    rateLimit: 0,
    commandTimeoutMs: 2000,
    log: () => {},
  });
  const mqtt = await connectMqtt({
    url: svc.mqttUrl,
    username: ADMIN_MQTT_USERNAME,
    password: ADMIN_TOKEN,
    clientId: 'scenario-watcher',
  });
  try {
    await mqtt.subscribeAsync('meterstack/v1/#', { qos: 1 });
    const ctx = new ScenarioContext(svc, mqtt, () => scenario.world.accounts[0]!.name);
    try {
      await buildWorld(ctx, scenario.world, scenario.seed);
    } catch (err) {
      report.setupError = (err as Error).message;
      report.failed = 1;
      return report;
    }
    // Where each step began in the event stream, for expect_event's `since: previous_step`.
    const marksEvents = scenario.timeline.some((s) => s.expect_event?.since === 'previous_step');
    for (const [i, step] of scenario.timeline.entries()) {
      ctx.previousStepStart = ctx.stepStart;
      ctx.stepStart = ctx.seen.length;
      let out: Awaited<ReturnType<typeof runStep>>;
      try {
        if (marksEvents) {
          ctx.previousStepSeq = ctx.stepSeq;
          ctx.stepSeq = await ctx.eventSeqNow();
        }
        out = await runStep(ctx, step);
      } catch (err) {
        out = { label: 'step', checks: [{ what: 'ran', failure: (err as Error).message }] };
      }
      report.steps.push({
        index: i + 1,
        label: out.label,
        ...(step.name && { name: step.name }),
        checks: out.checks,
      });
      for (const c of out.checks) c.failure === null ? report.passed++ : report.failed++;
    }
    return report;
  } finally {
    await mqtt.endAsync(true);
    await svc.close();
  }
}
