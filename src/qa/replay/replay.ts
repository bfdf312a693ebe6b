// Replays a trace as a meter: provision an external device, connect as its firmware, play the trace's
// samples and events (paced, or as fast as the broker takes them), then wait until the service has
// stored the last sample, read back through the v2 API.

import { MAX_SAMPLES } from '../../../firmware-protocol/mqtt/schemas.ts';
import { createTraceMeter, energyKwhAtWh, reportedBalance } from '../../../simulator/meter/index.ts';
import { type MeterEvent, MWMS_PER_KWH } from '../../../simulator/meter/types.ts';
import { toIstIso } from '../../time/ist.ts';
import type { Trace, TraceEntry, TraceEvent } from '../traces/types.ts';
import {
  type DeviceRequest,
  type ProvisionedDevice,
  provisionDevice,
  type Target,
  TargetError,
} from './target.ts';
import { TraceFirmware } from './trace-firmware.ts';
import { waitForHistory } from './verify.ts';

export type Pace = { kind: 'instant' } | { kind: 'speed'; speed: number };

export interface ReplayOptions {
  trace: Trace;
  target: Target;
  device: Omit<DeviceRequest, 'model'>;
  /** Overrides the broker URL the service gave (a service behind NAT, or a reused device). */
  mqttUrl?: string;
  pace: Pace;
  /** Times through the trace; Infinity with --loop. Each pass continues in time and energy. */
  loops: number;
  /** Opening settings; the trace header's, then these defaults. */
  meter: { mode?: string; balance?: number; ebTariff?: number; dgTariff?: number; activeTariff?: 1 | 2 };
  onProgress?: (p: Progress) => void;
  signal?: AbortSignal;
  /** Sees the meter's messages and the trace's events as they play (the HTML report, src/qa/report). */
  watch?: {
    message(deviceId: string, channel: 'state' | 'telemetry', json: unknown): void;
    traceEvent(deviceId: string, event: TraceEvent, ts: number): void;
  };
  /** Wall clock for pacing (injected for tests). */
  wall?: () => number;
}

export interface Progress {
  loop: number;
  /** Entries of this pass played, of `total`. */
  done: number;
  total: number;
  /** Trace time reached (later passes continue in time). */
  ts: number;
  /** Samples played so far, all passes. */
  samples: number;
  firstTs: number;
  /** Where the last pass ends; null when it loops until stopped. */
  endTs: number | null;
}

export interface ReplayResult {
  device: ProvisionedDevice;
  samples: number;
  events: number;
  loops: number;
  firstTs: number;
  lastTs: number;
  energyKwh: number;
  /** Integer paise (rounded toward -infinity) and the exact balance in 1/3.6e12 paise. */
  balance: number;
  balanceUnits: bigint;
  energyMwms: bigint;
  mode: string;
  /** Samples still in the meter's buffer because the trace ends offline. */
  buffered: number;
  /** The last sample read back through the v2 history; false when no API key is known or it ends offline. */
  verified: boolean;
  /** Stopped by the signal before the end. */
  interrupted: boolean;
}

const BACKLOG_HIGH = 8 * MAX_SAMPLES;

export async function replay(opts: ReplayOptions): Promise<ReplayResult> {
  const { trace } = opts;
  const device = await provisionDevice(opts.target, { ...opts.device, model: trace.model });
  const mqttUrl = opts.mqttUrl ?? device.mqttUrl;
  if (!mqttUrl) throw new TargetError('the broker URL is unknown for a reused device: pass --mqtt-url');
  const m = { ...trace.meta, ...definedOnly(opts.meter) };
  const state = createTraceMeter(
    {
      deviceId: device.deviceId,
      model: trace.model,
      mode: (m.mode as 'postpaid' | undefined) ?? 'postpaid',
      balance: m.balance ?? 0,
      ebTariff: m.ebTariff,
      dgTariff: m.dgTariff,
      activeTariff: m.activeTariff,
      telemetryPeriodMs: trace.periodMs,
    },
    trace.firstTs,
  );
  state.energy = trace.openingEnergy;
  let cursor = trace.firstTs;
  const fw = new TraceFirmware({
    state,
    mqttUrl,
    password: device.password,
    now: () => cursor,
    periodS: Math.min(86_400, trace.periodMs / 1000),
    batch: opts.pace.kind === 'instant',
    ...(opts.watch && { watch: opts.watch.message.bind(opts.watch) }),
  });
  await fw.connect();

  const wall = opts.wall ?? Date.now;
  const span = trace.lastTs - trace.firstTs + trace.periodMs;
  const start = wall();
  let samples = 0;
  let events = 0;
  let loop = 0;
  let lastSampleTs = trace.firstTs;
  const endTs = Number.isFinite(opts.loops) ? trace.firstTs + opts.loops * span - trace.periodMs : null;
  const progress = (loopNo: number, done: number, ts: number) =>
    opts.onProgress?.({
      loop: loopNo,
      done,
      total: trace.entries.length,
      ts,
      samples,
      firstTs: trace.firstTs,
      endTs,
    });
  // Paced, every entry (they come slowly); as fast as it goes, every 64th.
  const every = opts.pace.kind === 'speed' ? 1 : 64;
  try {
    for (; loop < opts.loops && !opts.signal?.aborted; loop++) {
      const shift = loop * span;
      let done = 0;
      for (const [i, entry] of trace.entries.entries()) {
        if (opts.signal?.aborted) break;
        const ts = entry.ts + shift;
        if (opts.pace.kind === 'speed')
          await sleepUntil(start + (ts - trace.firstTs) / opts.pace.speed, wall, opts.signal);
        cursor = ts;
        if (entry.kind === 'sample') {
          fw.apply({ type: 'sample', energy: entry.energy, readings: entry.readings }, ts);
          samples++;
          lastSampleTs = ts;
        } else {
          opts.watch?.traceEvent(device.deviceId, entry.event, ts);
          await applyEvent(fw, entry, ts, loop, sampleAtSameInstant(trace.entries, i));
          events++;
        }
        done++;
        if (fw.backlog > BACKLOG_HIGH) await fw.drained(BACKLOG_HIGH / 2);
        if (done % every === 0 || samples === 1) progress(loop, done, ts);
      }
      progress(loop, done, cursor);
    }
    const interrupted = opts.signal?.aborted === true;
    const online = fw.online;
    if (online) await fw.drained(0);
    const s = fw.state;
    const energyKwh = Number(s.energy) / Number(MWMS_PER_KWH);
    const verified =
      online && device.apiKey !== null && !interrupted
        ? await waitForHistory(
            opts.target.httpUrl,
            device.apiKey,
            device.deviceId,
            lastSampleTs,
            energyKwhAtWh(s.energy), // as the meter reports it [MC-7.7]
          )
        : false;
    return {
      device,
      samples,
      events,
      loops: loop,
      firstTs: trace.firstTs,
      lastTs: cursor,
      energyKwh,
      energyMwms: s.energy,
      balance: reportedBalance(s.balance),
      balanceUnits: s.balance,
      mode: s.mode,
      buffered: online ? 0 : fw.backlog,
      verified,
      interrupted,
    };
  } finally {
    await fw.disconnect().catch(() => undefined);
  }
}

/** Applies a trace event as the meter's own hardware would (a technician, a local payment, a power cut). */
async function applyEvent(
  fw: TraceFirmware,
  entry: TraceEntry & { kind: 'event' },
  ts: number,
  loop: number,
  sampleFollows: boolean,
) {
  const e: TraceEvent = entry.event;
  // Local commands: ids unique per pass and line, so [M-9] never mistakes one for a repeat.
  const command = (c: Extract<MeterEvent, { type: 'command' }>['command']) =>
    fw.apply({ type: 'command', id: `trace-${loop}-${entry.line}-${e.type}`, command: c }, ts);
  switch (e.type) {
    case 'offline':
      await fw.disconnect();
      return;
    case 'online':
      await fw.connect({ sampleFollows }); // [MC-6.7] the trace's own sample at this instant serves
      return;
    case 'relay':
      command({ op: 'set_relay', on: e.on });
      return;
    case 'mode':
      command({ op: 'set_mode', mode: e.mode });
      return;
    case 'active_tariff':
      command({ op: 'set_active_tariff', tariff: e.tariff });
      return;
    case 'recharge':
      command({
        op: 'recharge',
        amount: e.amount,
        // A pass of a looped trace is another day: its recharges are new payments.
        transactionId: loop === 0 && e.transactionId ? e.transactionId : `trace-${loop}-${entry.line}`,
      });
      return;
  }
}

/** Whether a sample comes later in `entries` at the same instant as entry `i` (entries are in ts order). */
function sampleAtSameInstant(entries: readonly TraceEntry[], i: number): boolean {
  const ts = entries[i]!.ts;
  for (let j = i + 1; j < entries.length && entries[j]!.ts === ts; j++) {
    if (entries[j]!.kind === 'sample') return true;
  }
  return false;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function sleepUntil(at: number, wall: () => number, signal?: AbortSignal): Promise<void> {
  const ms = at - wall();
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** For messages: a trace instant in Asia/Kolkata, to the minute. */
export function traceTime(ts: number): string {
  return `${toIstIso(ts).slice(0, 16)}+05:30`;
}
