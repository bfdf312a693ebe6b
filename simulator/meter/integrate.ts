// [M-1] [M-2] [M-4] [M-5] [M-6] The reference integrator used by step: plain bigint arithmetic over
// segments of constant power, written for obviousness. fastForward (advance.ts) must match it bit for bit.

import { billingRate, msUntilCutoff } from './billing.ts';
import { reportedState } from './create.ts';
import { dropEnded, fireEdges, nextFaultEdge } from './faults/edges.ts';
import { flowAt } from './faults/hardware.ts';
import { sampleWithheld } from './faults/telemetry.ts';
import { policyEdgeAfter, policyStopMs } from './policy.ts';
import { nextLoadChange, powerMw } from './profiles.ts';
import { readingsAt } from './readings.ts';
import { relayClosed } from './relay.ts';
import type { MeterEffect, MeterState } from './types.ts';

/**
 * Advances the draft `s` from s.lastTs to `to`, pushing a telemetry effect at every period boundary
 * on the way and a state effect at a prepaid cut-off. Mutates `s` (a copy owned by the caller).
 */
export function integrateTo(s: MeterState, to: number, effects: MeterEffect[]): void {
  if (s.faults.length !== 0) {
    integrateWithFaults(s, to, effects);
    return;
  }
  while (s.lastTs < to) {
    let end = Math.min(to, s.nextTelemetryTs, nextLoadChange(s.load, s.lastTs));
    if (s.prepaidPolicy === null) integrateSegment(s, end, effects);
    else {
      // [M-29] a friendly window's edges split the integration; the relay may change there.
      end = Math.min(end, policyEdgeAfter(s, s.lastTs));
      const closed = relayClosed(s, s.lastTs);
      const reported = effects.length;
      integrateSegment(s, end, effects);
      if (effects.length === reported && relayClosed(s, s.lastTs) !== closed)
        effects.push({ type: 'state', state: reportedState(s, s.lastTs) });
    }
    // [M-2] The sample is taken once everything up to this instant, a cut-off included, has happened.
    if (s.lastTs === s.nextTelemetryTs) {
      effects.push({ type: 'telemetry', sample: readingsAt(s, s.lastTs) });
      s.nextTelemetryTs += s.telemetryPeriodMs;
    }
  }
}

/**
 * integrateTo for a meter with faults: segments also stop at every fault edge, whose handler runs at
 * that instant before a sample due then; flow follows the faults ([M-18], [M-21]); samples due while
 * withheld are not produced ([M-18], [M-23]); ended faults are dropped.
 */
function integrateWithFaults(s: MeterState, to: number, effects: MeterEffect[]): void {
  while (s.lastTs < to) {
    const end = Math.min(
      to,
      s.nextTelemetryTs,
      nextLoadChange(s.load, s.lastTs),
      nextFaultEdge(s.faults, s.lastTs),
      s.prepaidPolicy === null ? Number.POSITIVE_INFINITY : policyEdgeAfter(s, s.lastTs), // [M-29]
    );
    const closed = s.prepaidPolicy === null ? null : relayClosed(s, s.lastTs);
    const reported = effects.length;
    const flow = flowAt(s, s.lastTs);
    if (flow === 'normal') integrateSegment(s, end, effects);
    else if (flow === 'forced') forcedSegment(s, end);
    else s.lastTs = end;
    if (closed !== null && effects.length === reported && relayClosed(s, s.lastTs) !== closed)
      effects.push({ type: 'state', state: reportedState(s, s.lastTs) });
    fireEdges(s, s.lastTs, effects);
    if (s.lastTs === s.nextTelemetryTs) {
      if (!sampleWithheld(s.faults, s.lastTs))
        effects.push({ type: 'telemetry', sample: readingsAt(s, s.lastTs) });
      s.nextTelemetryTs += s.telemetryPeriodMs;
    }
  }
  dropEnded(s, s.lastTs);
}

/** [M-21] Welded contacts the relay's logic has opened: the load flows and is billed, with no cut-off. */
function forcedSegment(s: MeterState, end: number): void {
  const energy = BigInt(powerMw(s.load, s.lastTs)) * BigInt(end - s.lastTs);
  const charge = billingRate(s) * energy;
  s.energy += energy;
  s.balance -= charge;
  s.charged += charge; // [M-15]
  s.lastTs = end;
}

/** Integrates at the constant power of [s.lastTs, end), stopping early at a prepaid cut-off. */
function integrateSegment(s: MeterState, end: number, effects: MeterEffect[]): void {
  if (!relayClosed(s, s.lastTs)) {
    s.lastTs = end; // [M-4] no flow through an open relay
    return;
  }
  const p = BigInt(powerMw(s.load, s.lastTs));
  const rate = billingRate(s);
  let dt = BigInt(end - s.lastTs);
  // [M-6], or with a policy [M-28]-[M-30]: the first ms at which the relay or the warning changes.
  const cutoff =
    s.mode !== 'prepaid'
      ? null
      : s.prepaidPolicy === null
        ? msUntilCutoff(s.balance, rate, p)
        : policyStopMs(s, rate, p);
  const cutsOff = cutoff !== null && cutoff <= dt;
  if (cutsOff) dt = cutoff;
  const energy = p * dt;
  s.energy += energy;
  const charge = rate * energy; // [M-5] exact: balance units per mW·ms = paise per kWh
  s.balance -= charge;
  s.charged += charge; // [M-15]
  s.lastTs += Number(dt);
  if (cutsOff) effects.push({ type: 'state', state: reportedState(s, s.lastTs) }); // [M-6]
}
