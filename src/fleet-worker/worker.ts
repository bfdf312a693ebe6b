// A fleet worker: N virtual meters in their own process (issue 11 §2). The service stays the
// authority for devices, money, the clock and snapshots; the worker registers, runs the meters it is
// handed against the broker the service names, sends their snapshots, and follows the service's clock.

import { performance } from 'node:perf_hooks';
import type { MeterModel } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { VirtualClock } from '../../simulator/clock.ts';
import { deserializeMeter, serializeMeter } from '../../simulator/meter/index.ts';
import { Fleet } from '../../simulator/meter-fleet.ts';
import { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { Log } from '../log/types.ts';
import { ServiceClient, ServiceError } from './service-client.ts';

/** Wall ms between heartbeats (well under the service's 15 s dead mark). */
const HEARTBEAT_MS = 3_000;
/** Every meter is sent at least once per this many heartbeats, changed or not. */
const FULL_ROUND_BEATS = 10;
/** Meters connecting at once. */
const CONNECT_BATCH = 200;
const SNAPSHOT_CHUNK = 2_000;
/** Wall ms without an answered heartbeat after which the lease is surely lost (the service's 15 s). */
const LEASE_LOST_MS = 15_000;
/** Virtual ms the worker's clock may lag the service's before it catches up. */
const CLOCK_TOLERANCE_MS = 20;

export interface FleetWorkerOptions {
  url: string;
  adminToken: string;
  name: string;
  prefix: string;
  count: number;
  model?: MeterModel;
  profile?: { kind: 'household'; peak_watts: number } | { kind: 'constant'; watts: number };
  seed?: number;
  balance?: number;
  telemetryPeriodS?: number;
  accountId?: number;
  spaceId?: number;
  /**
   * Where the meters connect instead of the broker the service names: an edge broker bridged to that
   * one (docs/scale.md, "Edge brokers"), when one broker process cannot hold every connection.
   */
  brokerUrl?: string;
  pid: number;
  host: string;
  log: Log;
  /** Called when the worker stops on its own: its lease was taken (exit 2) or the service is gone (1). */
  onLost?: (reason: string, exitCode: 1 | 2) => void;
}

export interface WorkerStats {
  meters: number;
  /** Meters whose MQTT connection is up now. */
  connected: number;
  /** Heartbeats sent since the start. */
  beats: number;
  /** Seconds since the service last answered a heartbeat. */
  lastBeatAgeS: number;
  leaseHeld: boolean;
  /** The worker's virtual clock, null before it registered. */
  clockMs: number | null;
  speed: number | null;
}

interface Registered {
  lease_id: string;
  broker_url: string;
  clock: { now_ms: number; speed: number };
  meters: { device_id: string; secret: string; meter: string; online: boolean; ledger_seq: number }[];
}

export class FleetWorker {
  readonly #o: FleetWorkerOptions;
  readonly #client: ServiceClient;
  #clock: VirtualClock | null = null;
  #fleet: Fleet | null = null;
  readonly #changed = new Set<string>();
  #beat: NodeJS.Timeout | null = null;
  #beats = 0;
  /** Wall ms of the last heartbeat the service answered. */
  #lastBeat = Date.now();
  readonly #abort = new AbortController();
  #stopping = false;
  brokerUrl = '';

  constructor(o: FleetWorkerOptions) {
    this.#o = o;
    this.#client = new ServiceClient({ url: o.url, adminToken: o.adminToken });
  }

  get meters(): number {
    return this.#fleet?.size ?? 0;
  }

  /** What `--metrics-port` shows (metrics.ts): the meters, the lease's heartbeats, the local clock. */
  stats(): WorkerStats {
    let connected = 0;
    for (const m of this.#fleet?.meters() ?? []) if (m.connected) connected++;
    return {
      meters: this.meters,
      connected,
      beats: this.#beats,
      lastBeatAgeS: (Date.now() - this.#lastBeat) / 1000,
      leaseHeld: this.#client.leaseId !== null && !this.#stopping,
      clockMs: this.#clock?.now() ?? null,
      speed: this.#clock?.speed ?? null,
    };
  }

  /** Registers (ServiceError on refusal), connects every meter, starts heartbeats and the sync stream. */
  async start(): Promise<void> {
    const o = this.#o;
    const t0 = performance.now();
    const reg = await this.#client.call<Registered>(
      'POST',
      '/workers',
      {
        name: o.name,
        prefix: o.prefix,
        count: o.count,
        model: o.model,
        profile: o.profile,
        seed: o.seed,
        balance: o.balance,
        telemetry_period_s: o.telemetryPeriodS,
        account_id: o.accountId,
        space_id: o.spaceId,
        pid: o.pid,
        host: o.host,
      },
      // The service provisions `count` meters in this call, after any other worker's registration
      // (they take turns): about 3 ms a meter on PostgreSQL, so minutes for tens of thousands.
      { timeoutMs: 30 * 60_000 },
    );
    const registeredMs = performance.now() - t0;
    this.#client.leaseId = reg.lease_id;
    this.brokerUrl = o.brokerUrl ?? reg.broker_url;
    const clock = new VirtualClock({ start: reg.clock.now_ms, speed: reg.clock.speed });
    this.#clock = clock;
    const fleet = new Fleet({ clock });
    this.#fleet = fleet;
    void this.#follow();
    const meters = reg.meters.map(
      (m) =>
        new VirtualMeter({
          state: deserializeMeter(m.meter),
          now: () => clock.now(),
          mqttUrl: this.brokerUrl,
          password: m.secret,
          online: m.online,
          log: o.log,
          onChanged: (meter) => this.#changed.add(meter.id),
          // [WORKER-3] A recharge is acknowledged only once the service stored the credited state.
          persist: (meter) => this.#send([meter]),
        }),
    );
    for (let i = 0; i < meters.length; i += CONNECT_BATCH)
      await Promise.all(meters.slice(i, i + CONNECT_BATCH).map((m) => fleet.add(m)));
    fleet.start();
    this.#lastBeat = Date.now();
    this.#beat = setInterval(() => void this.#heartbeat(), HEARTBEAT_MS);
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    o.log(
      'info',
      `fleet worker ${o.name}: ${meters.length} meters on ${this.brokerUrl}, service ${o.url} ` +
        `(registered in ${s(registeredMs)}, connected in ${s(performance.now() - t0 - registeredMs)})`,
    );
    // A broker at its connection limit (its open files) refuses the rest; they retry on their own.
    const waiting = meters.filter((m) => m.online && !m.connected).length;
    if (waiting > 0)
      o.log(
        'warn',
        `fleet worker ${o.name}: ${waiting} meters not connected yet to ${this.brokerUrl}; retrying`,
      );
  }

  /** Stops every meter (goodbye: offline), sends their last snapshots and frees the lease. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    if (this.#beat) clearInterval(this.#beat);
    this.#abort.abort();
    const fleet = this.#fleet;
    if (!fleet) return;
    await fleet.stop();
    try {
      await this.#sendAll();
      await this.#client.call('DELETE', `/workers/${this.#o.name}`);
    } catch (err) {
      this.#o.log('warn', `fleet worker ${this.#o.name}: last snapshot not sent: ${(err as Error).message}`);
    }
  }

  async #heartbeat(): Promise<void> {
    const fleet = this.#fleet;
    if (!fleet || this.#stopping) return;
    // Changed meters, plus a rotating tenth of the others, so each is sent every FULL_ROUND_BEATS beats.
    const round = this.#beats++ % FULL_ROUND_BEATS;
    const chosen = [...fleet.meters()].filter(
      (m, i) => this.#changed.has(m.id) || i % FULL_ROUND_BEATS === round,
    );
    this.#changed.clear();
    // One bounded body per beat; what does not fit waits for the next one.
    for (const m of chosen.splice(SNAPSHOT_CHUNK)) this.#changed.add(m.id);
    try {
      const t0 = Date.now();
      const beat = await this.#client.call<{ now_ms: number; speed: number }>(
        'POST',
        `/workers/${this.#o.name}/heartbeat`,
        { snapshots: chosen.map(wire) },
      );
      // Half the round trip is the answer's transit, at the clock's speed.
      this.#catchUp(beat.now_ms + ((Date.now() - t0) / 2) * beat.speed);
      this.#lastBeat = Date.now();
    } catch (err) {
      if (err instanceof ServiceError && err.kind === 'conflict') return this.#lost(err.message, 2);
      this.#o.log('warn', `fleet worker ${this.#o.name}: heartbeat failed: ${(err as Error).message}`);
      // Past the service's dead mark the lease is gone: another worker may run these meters now.
      if (Date.now() - this.#lastBeat >= LEASE_LOST_MS)
        this.#lost(`no heartbeat answered for ${LEASE_LOST_MS / 1000} s: ${(err as Error).message}`, 1);
    }
  }

  /** The sync stream, reopened when it drops, until the worker stops or loses its lease. */
  async #follow(): Promise<void> {
    while (!this.#stopping) {
      try {
        await this.#client.stream(
          `/workers/${this.#o.name}/sync`,
          (e, d) => this.#onSync(e, d),
          this.#abort.signal,
        );
      } catch (err) {
        if (this.#stopping) return;
        if (err instanceof ServiceError && err.kind === 'conflict') return this.#lost(err.message, 2);
        this.#o.log('warn', `fleet worker ${this.#o.name}: sync stream: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async #onSync(event: string, data: unknown): Promise<void> {
    const clock = this.#clock!;
    if (event === 'hello') {
      this.#catchUp((data as { now_ms: number }).now_ms);
    } else if (event === 'clock') {
      const { now_ms, speed } = data as { now_ms: number; speed: number };
      clock.setSpeed(speed);
      if (now_ms > clock.now()) await clock.advance(now_ms - clock.now());
    } else if (event === 'advance') {
      const { id, to } = data as { id: number; to: number };
      // [WORKER-4] Live through the jump, drain, make the states durable, then answer.
      if (to > clock.now()) await clock.advance(to - clock.now());
      const fleet = this.#fleet!;
      fleet.tick();
      await fleet.drained();
      await this.#sendAll();
      const last: Record<string, number> = {};
      for (const m of fleet.meters()) if (m.connected) last[m.id] = m.lastSampleTs;
      await this.#client.call('POST', `/workers/${this.#o.name}/advanced`, { id, last_sample_ts: last });
    }
  }

  /**
   * [WORKER-4] The service's clock is the authority: a worker whose clock lags it (the registration
   * answer's transit, a busy event loop) catches up; a clock never goes back, so one ahead waits.
   */
  #catchUp(serviceNow: number): void {
    const clock = this.#clock;
    if (!clock) return;
    const lag = serviceNow - clock.now();
    if (lag > CLOCK_TOLERANCE_MS) void clock.advance(Math.round(lag));
  }

  #send(meters: VirtualMeter[]): Promise<void> {
    return this.#client.call('POST', `/workers/${this.#o.name}/snapshots`, { snapshots: meters.map(wire) });
  }

  async #sendAll(): Promise<void> {
    const all = [...(this.#fleet?.meters() ?? [])];
    for (let i = 0; i < all.length; i += SNAPSHOT_CHUNK) await this.#send(all.slice(i, i + SNAPSHOT_CHUNK));
  }

  #lost(reason: string, exitCode: 1 | 2): void {
    if (this.#stopping) return;
    this.#o.log('error', `fleet worker ${this.#o.name}: ${reason}; stopping`);
    this.#stopping = true;
    if (this.#beat) clearInterval(this.#beat);
    this.#abort.abort();
    // Another process runs these meters now: no goodbye (it would say offline over the new owner).
    this.#o.onLost?.(reason, exitCode);
  }
}

function wire(m: VirtualMeter) {
  return { device_id: m.id, meter: serializeMeter(m.state), online: m.online };
}
