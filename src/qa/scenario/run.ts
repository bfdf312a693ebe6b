// Runs one scenario on a fresh embedded meterstack: in-memory store, ephemeral ports, a virtual clock
// that starts at the scenario's `clock.start` and moves only when the timeline advances it (speed 0),
// so the same file and seed give the same results. Steps: start → watch MQTT → build world → timeline.
// With `from_snapshot` the service starts from that exported snapshot and the world is adopted (adopt.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMqtt } from '../../mqtt/connect.ts';
import { ADMIN_MQTT_USERNAME, type RunningService, type ServiceConfig, startService } from '../../service.ts';
import { seedFromSnapshot } from '../../world/from-snapshot.ts';
import { adoptWorld } from './adopt.ts';
import { type MessageSource, ScenarioContext } from './context.ts';
import type { Scenario, Step } from './schema.ts';
import { type Check, runStep } from './steps.ts';
import { buildWorld } from './world.ts';

export interface StepReport {
  index: number;
  /** The step's line in the scenario file (0: unknown). */
  line: number;
  /** Wall ms it took (JUnit only: the text report stays the same from run to run). */
  ms: number;
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

/**
 * What a caller may watch of a run (the HTML report's collector, src/qa/report): the service and its
 * MQTT messages once it runs (before the world is built), then each step once done.
 */
export interface ScenarioObserver {
  started?(svc: RunningService, messages: MessageSource): void;
  stepDone?(report: StepReport, step: Step): void;
  /** The timeline is over; what follows is the service stopping (awaited first). */
  finished?(): Promise<void> | void;
}

const ADMIN_TOKEN = 'scenario-admin-token';

export async function runScenario(
  file: string,
  scenario: Scenario & { stepLines?: number[] },
  observer: ScenarioObserver = {},
): Promise<ScenarioReport> {
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
  const config: ServiceConfig = {
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
  };
  // [spec-decisions 115] From a snapshot file: a world of its own in a scratch SQLite file, seeded as
  // `serve --from-snapshot` seeds its --db, on the snapshot's clock (an in-memory store would not outlive
  // the seeding).
  let scratch: string | null = null;
  if (scenario.from_snapshot !== undefined) {
    scratch = mkdtempSync(join(tmpdir(), 'meterstack-scenario-'));
    config.db = join(scratch, 'world.db');
    delete config.clockStart;
    try {
      await seedFromSnapshot(config.db, scenario.from_snapshot, false);
    } catch (err) {
      rmSync(scratch, { recursive: true, force: true });
      report.setupError = (err as Error).message;
      report.failed = 1;
      return report;
    }
  }
  const svc = await startService(config).catch((err: unknown) => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    throw err;
  });
  const mqtt = await connectMqtt({
    url: svc.mqttUrl,
    username: ADMIN_MQTT_USERNAME,
    password: ADMIN_TOKEN,
    clientId: 'scenario-watcher',
  });
  try {
    observer.started?.(svc, mqtt);
    await mqtt.subscribeAsync('meterstack/v1/#', { qos: 1 });
    const ctx = new ScenarioContext(svc, mqtt, () => scenario.world.accounts[0]!.name);
    try {
      if (scenario.from_snapshot !== undefined) await adoptWorld(ctx, scenario.world);
      else await buildWorld(ctx, scenario.world, scenario.seed);
    } catch (err) {
      report.setupError = (err as Error).message;
      report.failed = 1;
      return report;
    }
    // [SC-1] `at:` offsets count from here: clock.start on a fresh world, the snapshot's clock else.
    try {
      ctx.startVt = ((await ctx.sim('GET', '/clock')) as { now_ms: number }).now_ms;
    } catch (err) {
      report.setupError = (err as Error).message;
      report.failed = 1;
      return report;
    }
    // Where each step began in the event stream, for expect_event's `since: previous_step`.
    const marksEvents = scenario.timeline.some((s) => s.expect_event?.since === 'previous_step');
    const world = { spec: scenario.world, seed: scenario.seed };
    for (const [i, step] of scenario.timeline.entries()) {
      const t0 = performance.now();
      ctx.previousStepStart = ctx.stepStart;
      ctx.stepStart = ctx.seen.length;
      let out: Awaited<ReturnType<typeof runStep>>;
      try {
        if (marksEvents) {
          ctx.previousStepSeq = ctx.stepSeq;
          ctx.stepSeq = await ctx.eventSeqNow();
        }
        out = await runStep(ctx, step, world);
      } catch (err) {
        out = { label: 'step', checks: [{ what: 'ran', failure: (err as Error).message }] };
      }
      report.steps.push({
        index: i + 1,
        line: scenario.stepLines?.[i] ?? 0,
        ms: performance.now() - t0,
        label: out.label,
        ...(step.name && { name: step.name }),
        checks: out.checks,
      });
      observer.stepDone?.(report.steps.at(-1)!, step);
      for (const c of out.checks) c.failure === null ? report.passed++ : report.failed++;
    }
    await observer.finished?.();
    return report;
  } finally {
    await mqtt.endAsync(true);
    await svc.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
