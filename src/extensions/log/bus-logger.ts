// The log view of the bus (issue 9 §2): every event at or above the logger's level becomes one pino
// line (event-lines.ts says how), with the virtual time in IST beside pino's wall time. Floods are
// summed up: past `floodLines` lines of one (type, level) in an interval, the rest are only counted and
// told as one summary line when the interval ends (src/log/bounded.ts, one budget per key, so a flood
// of 401s never hides a cut-off). Telemetry is told as a fleet throughput line every 5 min at info.
// A view only [STYLE 10]: it subscribes, it never reaches into what emitted.

import type { Logger } from 'pino';
import { type EventBus, requestEvent } from '../../events/bus.ts';
import type { MeterEvent } from '../../events/schemas.ts';
import { BoundedLog, type Tally } from '../../log/bounded.ts';
import type { LogLevel } from '../../log/types.ts';
import { toIstIso } from '../../time/ist.ts';
import { dataOf, levelOf, messageOf, requestLevel } from './event-lines.ts';

export interface BusLoggerOptions {
  logger: Logger;
  /** Lines of one (type, level) told per interval; the rest are summed up. Default 10. */
  floodLines?: number;
  /** Wall ms. Default 5000. */
  floodIntervalMs?: number;
  /** Wall ms between fleet throughput lines (info), none when nothing reported; 0: none. Default 5 min. */
  throughputIntervalMs?: number;
  /**
   * Meters' connected, online and offline lines at debug until `started()` (`serve`'s start: the
   * banner comes first, then one line for them all). Default false.
   */
  quietStart?: boolean;
}

/** The meters' lines a quiet start tells as one (startSummary). */
const START_TYPES = new Set(['meter.connected', 'meter.online', 'meter.offline']);

/** Who was online when the start ended, and who went offline during it. */
export interface StartTally {
  online: string[];
  offline: string[];
}

/** `8 meters online`, `7 meters online, 1 offline: MTR-B203`; '' when no meter came up. */
export function startSummary(t: StartTally): string {
  if (t.online.length + t.offline.length === 0) return '';
  const off = t.offline.length;
  const names = `${t.offline.slice(0, SHOWN).join(', ')}${off > SHOWN ? ', …' : ''}`;
  const meters = (n: number) => `${n.toLocaleString('en')} meter${n === 1 ? '' : 's'}`;
  return `${meters(t.online.length)} online${off ? `, ${off.toLocaleString('en')} offline: ${names}` : ''}`;
}

/** Names counted per flood key and interval (a bound on memory whoever floods). */
const FLOOD_NAMES = 1000;
/** Names shown in a summary line. */
const SHOWN = 3;

type FloodKey = `${string} ${LogLevel}`;

/** What a flood of this event is counted by: the meter, else what tells its lines apart. */
function floodName(e: MeterEvent): string | undefined {
  if (e.device_id !== undefined) return e.device_id;
  if (e.type === 'http.request') {
    const d = e.data as MeterEvent<'http.request'>['data'];
    return `${d.status} ${d.method} ${d.route}`;
  }
  if (e.type === 'broker.refused') {
    const d = e.data as MeterEvent<'broker.refused'>['data'];
    return d.username ?? (d.client_id || d.peer);
  }
  return undefined;
}

export class BusLogger {
  readonly #logger: Logger;
  readonly #flood: BoundedLog<FloodKey>;
  readonly #unsubscribe: () => void;
  readonly #floodIntervalMs: number;
  readonly #throughputTimer: NodeJS.Timeout | null = null;
  /** Virtual time of the newest event: what summary lines carry, as the bus's clock is not ours. */
  #lastVt = 0;
  #tp = { messages: 0, samples: 0, meters: new Set<string>(), since: Date.now() };
  /** While the start is quiet: each meter's last word (online or not), in the order they came. */
  #start: Map<string, boolean> | null;

  constructor(bus: EventBus, opts: BusLoggerOptions) {
    this.#logger = opts.logger;
    this.#floodIntervalMs = opts.floodIntervalMs ?? 5000;
    this.#start = opts.quietStart ? new Map() : null;
    this.#flood = new BoundedLog<FloodKey>({
      perInterval: opts.floodLines ?? 10,
      intervalMs: this.#floodIntervalMs,
      namesPerKey: FLOOD_NAMES,
      budget: 'key',
      summarize: (counted) => this.#summarize(counted),
    });
    const every = opts.throughputIntervalMs ?? 300_000;
    if (every > 0) {
      this.#throughputTimer = setInterval(() => this.#throughput(), every);
      this.#throughputTimer.unref();
    }
    const events = bus.subscribe((e) => this.#onEvent(e));
    const requests = bus.onRequest((seq, vt, wt, data, accountId) => {
      this.#lastVt = vt;
      // [EXT-7] The level first, from the fields: a request below it builds no event at all.
      if (!this.#logger.isLevelEnabled(requestLevel(data))) return;
      this.#onEvent(requestEvent(seq, vt, wt, data, accountId));
    });
    this.#unsubscribe = () => {
      events();
      requests();
    };
  }

  /** Tells now what floods counted so far (at a stop, before the last line). */
  flush(): void {
    this.#flood.flush();
  }

  /** Ends a quiet start: later meters' lines keep their levels. Who was online, who went offline. */
  started(): StartTally {
    const start = this.#start ?? new Map<string, boolean>();
    this.#start = null;
    const online = [...start].filter(([, on]) => on).map(([id]) => id);
    const offline = [...start].filter(([, on]) => !on).map(([id]) => id);
    return { online, offline };
  }

  /** Stops listening; tells what a flood counted so far. */
  close(): void {
    this.#unsubscribe();
    if (this.#throughputTimer) clearInterval(this.#throughputTimer);
    this.#flood.flush();
  }

  #onEvent(e: MeterEvent): void {
    this.#lastVt = e.vt;
    if (e.type === 'telemetry.summary') this.#countTelemetry(e as MeterEvent<'telemetry.summary'>);
    // The level first: an event below it costs a table lookup, nothing formatted.
    const level = this.#quietAtStart(e) ? 'debug' : levelOf(e);
    if (!this.#logger.isLevelEnabled(level)) return;
    if (!this.#flood.note(`${e.type} ${level}`, floodName(e))) return;
    this.#line(e, level);
  }

  /** Counts a meter's line of a quiet start; true if it is one (told at debug). */
  #quietAtStart(e: MeterEvent): boolean {
    if (this.#start === null || e.device_id === undefined || !START_TYPES.has(e.type)) return false;
    if (e.type === 'meter.offline') this.#start.set(e.device_id, false);
    else if (e.type === 'meter.online') this.#start.set(e.device_id, true);
    return true;
  }

  /**
   * Writes one event's line as if it had come through the bus: for the last lines of a run, emitted
   * after this logger stopped listening ('stopped cleanly'). Not counted against a flood.
   */
  write(e: MeterEvent): void {
    const level = levelOf(e);
    if (this.#logger.isLevelEnabled(level)) this.#line(e, level);
  }

  #line(e: MeterEvent, level: LogLevel): void {
    const fields: Record<string, unknown> = { vt: toIstIso(e.vt), seq: e.seq, type: e.type };
    if (e.device_id !== undefined) fields.device_id = e.device_id;
    if (e.account_id !== undefined) fields.account_id = e.account_id;
    const data = dataOf(e);
    if (data !== undefined) fields.data = data;
    this.#logger[level](fields, messageOf(e));
  }

  #summarize(counted: ReadonlyMap<FloodKey, Tally>): void {
    const seconds = this.#floodIntervalMs / 1000;
    for (const [key, t] of counted) {
      const [type, level] = key.split(' ') as [string, LogLevel];
      const names = [...t.byName].sort((a, b) => b[1] - a[1]);
      const shown = names
        .slice(0, SHOWN)
        .map(([name, n]) => `${name} ×${n.toLocaleString('en')}`)
        .join(', ');
      const others = names.length > SHOWN || t.untracked > 0 ? ', …' : '';
      this.#logger[level](
        {
          vt: toIstIso(this.#lastVt),
          type,
          flood: { more: t.n, interval_s: seconds, by: Object.fromEntries(names.slice(0, SHOWN)) },
        },
        `… and ${t.n.toLocaleString('en')} more ${type} lines in the last ${seconds} s` +
          `${shown ? `: ${shown}${others}` : ''}`,
      );
    }
  }

  #countTelemetry(e: MeterEvent<'telemetry.summary'>): void {
    this.#tp.messages += e.data.messages;
    this.#tp.samples += e.data.samples;
    for (const m of e.data.meters) this.#tp.meters.add(m.device_id);
  }

  #throughput(): void {
    const tp = this.#tp;
    const now = Date.now();
    this.#tp = { messages: 0, samples: 0, meters: new Set(), since: now };
    if (tp.messages === 0 || !this.#logger.isLevelEnabled('info')) return;
    const seconds = Math.max(1, Math.round((now - tp.since) / 1000));
    const data = { meters: tp.meters.size, messages: tp.messages, samples: tp.samples, period_s: seconds };
    this.#logger.info(
      { vt: toIstIso(this.#lastVt), type: 'telemetry.throughput', data },
      `fleet: ${data.meters.toLocaleString('en')} meters sent ${data.messages.toLocaleString('en')} telemetry ` +
        `messages (${(data.messages / seconds).toFixed(1)}/s, ${data.samples.toLocaleString('en')} samples) ` +
        `in the last ${seconds} s`,
    );
  }
}
