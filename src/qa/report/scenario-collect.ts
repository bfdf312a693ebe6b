// Collects one scenario's report data while it runs (an observer of runScenario): the meters' own MQTT
// messages (info for resolutions, state for the relay, telemetry), the service's events as marks, and
// each step's checks at the virtual time the step ended [RP-5].

import type { RunningService } from '../../service.ts';
import type { MessageSource } from '../scenario/context.ts';
import { stepMeters } from '../scenario/references.ts';
import type { ScenarioObserver, ScenarioReport, StepReport } from '../scenario/run.ts';
import type { Step } from '../scenario/schema.ts';
import { markOf } from './marks.ts';
import type { RunData } from './model.ts';
import { RunRecorder } from './recorder.ts';

/** A message bigger than the contract allows (MC-3.1) is not charted. */
const MAX_PAYLOAD = 256 * 1024;
const CHANNELS = new Set(['info', 'state', 'telemetry']);
const QUIET_MS = 40;
const SETTLE_MS = 2000;

export class ScenarioCollector implements ScenarioObserver {
  readonly #rec = new RunRecorder();
  #clock: (() => number) | null = null;
  #unsubscribe: () => void = () => {};
  #vtStart: number | null = null;
  #vtEnd: number | null = null;
  /** Past the timeline: the service stopping (its meters saying goodbye) is not part of the run. */
  #over = false;
  /** When the watcher last received a message (wall ms). */
  #lastMessage = 0;
  /** Meters seen going offline: only their return is an `online` mark, not every first connection. */
  readonly #wentOffline = new Set<string>();
  readonly #wallStart = performance.now();

  started(svc: RunningService, messages: MessageSource): void {
    const clock = () => svc.world.clock.now();
    this.#clock = clock;
    this.#vtStart = clock();
    messages.on('message', (topic, payload) => {
      this.#lastMessage = performance.now();
      const [root, version, id, channel, extra] = topic.split('/');
      if (root !== 'meterstack' || version !== 'v1' || !id || extra !== undefined) return;
      if (!CHANNELS.has(channel ?? '') || payload.length > MAX_PAYLOAD) return;
      let json: unknown;
      try {
        json = JSON.parse(payload.toString('utf8'));
      } catch {
        return; // not JSON: the scenario's own checks say so, the chart skips it
      }
      this.#rec.message(id, channel!, json);
    });
    this.#unsubscribe = svc.bus.subscribe((e) => {
      const mark = markOf(e);
      if (mark === null || this.#over) return;
      if (mark.kind === 'offline' && mark.meter !== null) this.#wentOffline.add(mark.meter);
      if (mark.kind === 'online' && !this.#wentOffline.has(mark.meter ?? '')) return;
      this.#rec.mark(mark);
    });
  }

  stepDone(step: StepReport, spec: Step): void {
    const t = this.#clock?.() ?? 0;
    this.#vtEnd = t;
    const meters = stepMeters(spec);
    for (const c of step.checks)
      this.#rec.check({
        t,
        meters,
        step: step.index,
        line: step.line,
        label: `${step.name ? `${step.name}: ` : ''}${step.label}`,
        what: c.what,
        ok: c.failure === null,
        failure: c.failure,
        seen: c.seen ?? null,
      });
  }

  /**
   * No more marks; the meters' last messages are still on their way to the watcher (an advance returns
   * once the service stored them, not once every subscriber has them): waits until it has been quiet
   * for QUIET_MS, at most SETTLE_MS.
   */
  async finished(): Promise<void> {
    this.#over = true;
    this.#unsubscribe();
    const until = performance.now() + SETTLE_MS;
    while (performance.now() < until && performance.now() - this.#lastMessage < QUIET_MS)
      await new Promise((r) => setTimeout(r, QUIET_MS / 2));
  }

  /** The run as the report shows it, once runScenario has returned its report. */
  result(report: ScenarioReport, href: string | null): RunData {
    this.#unsubscribe();
    const vtStart = this.#vtStart ?? Date.parse(report.clockStart);
    return this.#rec.result({
      file: report.file,
      href,
      name: report.name,
      seed: report.seed,
      vtStart,
      vtEnd: Math.max(vtStart, this.#vtEnd ?? vtStart),
      wallMs: performance.now() - this.#wallStart,
      setupError: report.setupError,
      notes: [],
    });
  }
}
