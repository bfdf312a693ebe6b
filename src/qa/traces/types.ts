// A trace: what a meter measured over time, plus what happened to it. Every reader (CSV, JSON Lines,
// the UCI importer) produces this one shape; fixtures/README.md documents the file formats.

import type { MeterModel, Mode } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import type { TraceReadings } from '../../../simulator/meter/types.ts';

export type TraceEvent =
  | { type: 'relay'; on: boolean }
  | { type: 'mode'; mode: Mode }
  | { type: 'offline' }
  | { type: 'online' }
  | { type: 'recharge'; amount: number; transactionId?: string }
  | { type: 'active_tariff'; tariff: 1 | 2 };

export interface TraceSample {
  kind: 'sample';
  ts: number;
  /** 1-based line in the file, for messages. */
  line: number;
  /** mW·ms that flowed since the previous sample (integrated from power, or the energy register's step). */
  energy: bigint;
  readings: TraceReadings;
}

export interface TraceEventEntry {
  kind: 'event';
  ts: number;
  line: number;
  event: TraceEvent;
}

export type TraceEntry = TraceSample | TraceEventEntry;

/** How the replay meter starts; a trace may say, the command line may override. */
export interface TraceMeta {
  zone: string;
  deviceId?: string;
  model?: MeterModel;
  mode?: Mode;
  /** Opening balance, integer paise. */
  balance?: number;
  ebTariff?: number;
  dgTariff?: number;
  activeTariff?: 1 | 2;
}

export interface Trace {
  file: string;
  format: 'csv' | 'jsonl' | 'uci';
  meta: TraceMeta;
  /** Samples and events in the order they apply (a sample before events at its instant). */
  entries: TraceEntry[];
  sampleCount: number;
  firstTs: number;
  lastTs: number;
  /** The usual gap between samples (the median), the nominal telemetry period. */
  periodMs: number;
  /** The energy register before the first sample, mW·ms (a cumulative-energy trace's first value). */
  openingEnergy: bigint;
  /** Whether energy came from the trace's register (true) or was integrated from power. */
  cumulative: boolean;
  /** `full` when the trace has any of current, power factor, apparent or reactive power. */
  model: MeterModel;
  /** Lines skipped on purpose (JSON Lines of another `type`, UCI rows with missing values). */
  skippedLines: number;
}

/** A problem in a trace file, located at a line and a field. */
export class TraceError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly field: string | null,
    readonly detail: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}: ${field === null ? '' : `${field}: `}${detail}`);
    this.name = 'TraceError';
  }
}
