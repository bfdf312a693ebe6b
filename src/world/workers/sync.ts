// The sync stream of each fleet worker (GET /sim/v1/workers/{name}/sync, server-sent events): how
// the world, the time authority, tells workers to live through a clock jump or to change speed, and
// waits for their answers (POST .../advanced) and for their telemetry to be stored [WORKER-4].

import type { ServerResponse } from 'node:http';
import type { TwinRegistry } from '../../devices/twins.ts';
import type { Log } from '../types.ts';
import type { WorkerLease } from './leases.ts';

/** Wall ms between keep-alive comments on an idle stream. */
const KEEPALIVE_MS = 5_000;

export interface AdvanceReport {
  /** Workers that did not answer, or whose telemetry was not stored, in time. */
  late: string[];
  /** Workers that lived through the jump. */
  done: string[];
}

export interface WorkerSyncOptions {
  log: Log;
  twins: Pick<TwinRegistry, 'get'>;
  timeoutMs: number;
  lease(name: string): WorkerLease | undefined;
}

interface Waiting {
  resolve(lastSampleTs: Record<string, number>): void;
}

export class WorkerSync {
  readonly #o: WorkerSyncOptions;
  readonly #streams = new Map<string, ServerResponse>();
  readonly #waiting = new Map<string, Waiting>();
  #nextId = 1;
  #keepalive: NodeJS.Timeout;
  lastReport: AdvanceReport = { late: [], done: [] };

  constructor(o: WorkerSyncOptions) {
    this.#o = o;
    this.#keepalive = setInterval(() => {
      for (const res of this.#streams.values()) res.write(': keep-alive\n\n');
    }, KEEPALIVE_MS);
    this.#keepalive.unref();
  }

  /** Takes over `res` as the worker's stream; a newer stream of the same worker replaces it. */
  attach(name: string, res: ServerResponse, hello: object): void {
    this.#streams.get(name)?.end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    this.#streams.set(name, res);
    const lease = this.#o.lease(name);
    if (lease) lease.syncClosedAt = null;
    res.on('close', () => {
      if (this.#streams.get(name) !== res) return;
      this.#streams.delete(name);
      const l = this.#o.lease(name);
      if (l) l.syncClosedAt = Date.now();
      this.#o.log('info', `fleet worker ${name}: sync stream closed`);
    });
    this.#send(name, 'hello', hello);
  }

  /** Ends a worker's stream (it released its lease). */
  drop(name: string): void {
    this.#streams.get(name)?.end();
    this.#streams.delete(name);
  }

  close(): void {
    clearInterval(this.#keepalive);
    for (const res of this.#streams.values()) res.end();
    this.#streams.clear();
  }

  /** Every live worker follows the clock's speed (and its present, should it have drifted). */
  clock(workers: WorkerLease[], nowMs: number, speed: number): void {
    for (const w of workers) this.#send(w.name, 'clock', { now_ms: nowMs, speed });
  }

  /** A worker answered jump `id`: the ts of each of its meters' newest sample. */
  answered(name: string, id: number, lastSampleTs: Record<string, number>): boolean {
    const w = this.#waiting.get(`${name}#${id}`);
    w?.resolve(lastSampleTs);
    return w !== undefined;
  }

  /**
   * [WORKER-4] Each live worker lives through the jump to `to`; resolves once each answered and the
   * twins hold every sample it named, or the bound ran out (reported in `lastReport`, never a hang).
   */
  async advance(workers: WorkerLease[], to: number): Promise<void> {
    const report: AdvanceReport = { late: [], done: [] };
    await Promise.all(
      workers.map(async (w) => {
        const ok = await this.#advanceOne(w.name, to, Date.now() + this.#o.timeoutMs);
        (ok ? report.done : report.late).push(w.name);
      }),
    );
    if (report.late.length > 0)
      this.#o.log(
        'warn',
        `clock jump: fleet workers ${report.late.join(', ')} did not live through it in time`,
      );
    this.lastReport = report;
  }

  async #advanceOne(name: string, to: number, deadline: number): Promise<boolean> {
    const id = this.#nextId++;
    const key = `${name}#${id}`;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<Record<string, number> | null>((resolve) => {
      this.#waiting.set(key, { resolve });
      timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()));
    });
    if (!this.#send(name, 'advance', { id, to })) {
      clearTimeout(timer);
      this.#waiting.delete(key);
      return false;
    }
    const last = await answer;
    clearTimeout(timer);
    this.#waiting.delete(key);
    if (!last) return false;
    // Its telemetry is stored once the twins took it (the world's settle then flushes the writer).
    for (const [deviceId, ts] of Object.entries(last)) {
      while ((this.#o.twins.get(deviceId)?.lastSampleTs ?? 0) < ts) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    return true;
  }

  #send(name: string, event: string, data: object): boolean {
    const res = this.#streams.get(name);
    if (!res) return false;
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    return true;
  }
}
