// How each event on the bus becomes one log line: its level and a short human message (issue 9 §2).
// Pure: the bus logger (bus-logger.ts) decides whether and where to write it. The levels are chosen so
// that the default (info) tells a person what happened without drowning them (spec-decisions 59):
//   info   meter connected / online / offline / info changed, state changes, money, the clock, 4xx
//   warn   refusals: commands refused or timed out, recharges refused or duplicate, broker and contract
//   error  5xx requests
//   debug  commands sent and acked, 2xx/3xx requests, telemetry summaries, a meter's first info
// A `log` event (the service's own message) keeps the level it was written at.

import type { EventData, EventType, MeterEvent } from '../../events/schemas.ts';
import type { LogLevel } from '../../log/types.ts';
import { toIstIsoSeconds } from '../../time/ist.ts';
import { kwhText } from '../../units/readable.ts';

interface LineSpec<T extends EventType> {
  level: LogLevel | ((data: EventData<T>) => LogLevel);
  msg: (data: EventData<T>, device: string) => string;
}

type LineTable = { [T in EventType]: LineSpec<T> };

const onOff = (on: boolean) => (on ? 'on' : 'off');

/** Paise as rupees with paise, Indian digit grouping: 50000 → "₹500.00", -42 → "-₹0.42". */
export function rupees(paise: number): string {
  const abs = Math.abs(paise) / 100;
  const text = abs.toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${paise < 0 ? '-' : ''}₹${text}`;
}

/** A duration in words, to the unit that reads best: 90 s, 3 h, 2 d 4 h. */
export function duration(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const sign = ms < 0 ? '-' : '';
  if (s < 120) return `${sign}${s} s`;
  if (s < 7200) return `${sign}${Math.round(s / 60)} min`;
  if (s < 172_800) return `${sign}${Math.round(s / 360) / 10} h`;
  return `${sign}${Math.round(s / 8640) / 10} d`;
}

const relayText = (r: { commanded: boolean; effective: boolean }) =>
  r.commanded === r.effective ? onOff(r.effective) : `${onOff(r.effective)}, commanded ${onOff(r.commanded)}`;

const OFFLINE: Record<EventData<'meter.offline'>['reason'], string> = {
  will: 'connection lost (the broker published its will)',
  bye: 'it said goodbye',
  link_timeout: 'keep-alive timed out',
  unplugged: 'unplugged through /sim/v1',
};

/** Query parameters whose values a log line never shows, should a client put a secret in the URL. */
const SECRET_PARAM = /key|token|secret|password|auth/i;

/** The URL with the values of secret-looking query parameters masked (the v2 key goes in a header). */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((p) => {
      const eq = p.indexOf('=');
      return eq > 0 && SECRET_PARAM.test(p.slice(0, eq)) ? `${p.slice(0, eq)}=***` : p;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

const INFO_FIELDS = ['model', 'firmware', 'has_relay', 'telemetry_period_s'] as const;
const firstInfo = (d: EventData<'meter.info'>) => INFO_FIELDS.every((f) => d.changed.includes(f));

const tariffName = (t: 1 | 2) => (t === 1 ? 'EB (grid)' : 'DG (generator)');

export const LINES: LineTable = {
  'meter.connected': {
    level: 'info',
    msg: (d, dev) => `${dev} connected${d.client_id === dev ? '' : ` (MQTT client ${d.client_id})`}`,
  },
  'meter.online': { level: 'info', msg: (_, dev) => `${dev} online` },
  'meter.offline': {
    level: 'info',
    // [MC-6.8] A meter that said why is quoted: "serial port closed", not "it said goodbye".
    msg: (d, dev) =>
      d.said === undefined
        ? `${dev} offline: ${OFFLINE[d.reason]}`
        : `${dev} offline: ${d.reason === 'bye' ? `it said: ${d.said}` : `${OFFLINE[d.reason]} (it said: ${d.said})`}`,
  },
  'meter.info': {
    // A meter's first info names every field: the service learned it, nothing changed (debug). A
    // change of some (a firmware update, a new telemetry period) is news (info).
    level: (d) => (firstInfo(d) ? 'debug' : 'info'),
    msg: (d, dev) =>
      `${dev} info: model ${d.model}, firmware ${d.firmware}, ${d.has_relay ? 'with' : 'no'} relay, ` +
      `telemetry every ${d.telemetry_period_s} s${firstInfo(d) ? '' : ` (changed: ${d.changed.join(', ')})`}`,
  },
  'meter.relay': {
    level: 'info',
    msg: (d, dev) => `${dev} relay ${relayText(d)} (was ${relayText(d.was)})`,
  },
  'meter.mode': {
    level: 'info',
    msg: (d, dev) => `${dev} mode ${d.was === null ? d.mode : `${d.was} → ${d.mode}`}`,
  },
  'meter.tariff': {
    level: 'info',
    msg: (d, dev) =>
      `${dev} tariff ${tariffName(d.active_tariff)}${d.was !== null && d.was !== d.active_tariff ? `, was ${tariffName(d.was)}` : ''}` +
      `; EB ${rupees(d.eb_tariff)}/kWh, DG ${rupees(d.dg_tariff)}/kWh`,
  },
  'meter.wifi': {
    level: 'info',
    msg: (d, dev) => `${dev} WiFi ${d.wifi_type}${d.config_mode ? ', in configuration mode' : ''}`,
  },
  'meter.cutoff': {
    level: 'info',
    msg: (d, dev) => `${dev} cut off: prepaid balance ${rupees(d.balance)}`,
  },
  'meter.restored': { level: 'info', msg: (d, dev) => `${dev} restored: balance ${rupees(d.balance)}` },
  'meter.tamper': {
    level: (d) => (d.tamper.length > 0 ? 'warn' : 'info'),
    msg: (d, dev) => `${dev} tamper: ${d.tamper.length > 0 ? d.tamper.join(', ') : 'cleared'}`,
  },
  'fault.added': {
    level: 'info',
    msg: (d, dev) => `${dev} fault ${d.fault_id} ${d.kind} added${d.until === null ? ', until cleared' : ''}`,
  },
  'fault.cleared': { level: 'info', msg: (d, dev) => `${dev} faults cleared: ${d.fault_ids.join(', ')}` },
  'meter.register_reset': {
    level: 'warn',
    msg: (d, dev) =>
      `${dev} register reset (epoch ${d.epoch}) after ${kwhText(d.last_kwh)}: later readings continue from ${kwhText(d.offset_kwh)}`,
  },
  'meter.register_rollover': {
    level: 'info',
    msg: (d, dev) =>
      `${dev} register rolled over at ${kwhText(d.max_kwh)}: later readings continue from ${kwhText(d.offset_kwh)}`,
  },
  'meter.replaced': {
    level: 'info',
    msg: (d, dev) => `${dev} meter replaced: serial ${d.old_serial} → ${d.new_serial}`,
  },
  'meter.low_balance': {
    level: 'info',
    msg: (d, dev) => `${dev} low balance: below ${rupees(d.threshold)}, balance ${rupees(d.balance)}`,
  },
  'money.recharge': {
    level: (d) => (d.outcome === 'applied' ? 'info' : 'warn'),
    msg: (d, dev) => {
      const ledger = d.ledger_seq === null ? '' : ` (ledger #${d.ledger_seq})`;
      const balance = d.balance === null ? '' : `, balance ${rupees(d.balance)}`;
      if (d.outcome === 'applied') return `recharge ${rupees(d.amount)} applied to ${dev}${ledger}${balance}`;
      if (d.outcome === 'duplicate')
        return `recharge ${d.transaction_id} of ${rupees(d.amount)} to ${dev} is a duplicate: not applied again${ledger}`;
      if (d.outcome === 'pending')
        return `recharge ${d.transaction_id} of ${rupees(d.amount)} to ${dev} pending${ledger}${d.reason ? `: ${d.reason}` : ''}`;
      return `recharge ${d.transaction_id} of ${rupees(d.amount)} to ${dev} refused${d.reason ? `: ${d.reason}` : ''}`;
    },
  },
  'command.sent': { level: 'debug', msg: (d, dev) => `command ${d.op} ${d.id} sent to ${dev}` },
  'command.acked': {
    level: 'debug',
    msg: (d, dev) => `command ${d.op} ${d.id} acked by ${dev} in ${d.latency_ms.toFixed(1)} ms`,
  },
  'command.refused': {
    level: 'warn',
    msg: (d, dev) => `command ${d.op} ${d.id} refused by ${dev}: ${d.code} ${d.message}`,
  },
  'command.timeout': {
    level: 'warn',
    msg: (d, dev) => `command ${d.op} ${d.id} to ${dev}: no reply within ${d.after_ms} ms`,
  },
  'http.request': {
    level: (d) => requestLevel(d),
    msg: (d) =>
      `${d.method} ${redactUrl(d.url)} ${d.status} ${d.latency_ms.toFixed(1)} ms` +
      `${d.code ? ` ${d.code}` : ''}${d.account_id === null ? '' : ` (account ${d.account_id})`}`,
  },
  'broker.refused': {
    level: 'warn',
    msg: (d) => {
      // A refused CONNECT names its client and user; a refused connection only its peer [MC-10.5].
      const who = [
        d.client_id ? `client ${d.client_id}` : '',
        d.username === null ? '' : `user ${d.username}`,
        d.peer ? `from ${d.peer}` : '',
      ].filter(Boolean);
      const what = d.client_id || d.username !== null ? 'login' : 'connection';
      const n = d.count ?? 1;
      return (
        `${n === 1 ? `MQTT ${what}` : `${n.toLocaleString('en')} MQTT ${what}s`} refused` +
        `${who.length > 0 ? ` (${who.join(', ')})` : ''}: ${d.reason}`
      );
    },
  },
  'contract.refused': {
    level: 'warn',
    msg: (d, dev) =>
      `${d.count === 1 ? 'a message' : `${d.count.toLocaleString('en')} messages`} from ${dev} refused: ${d.reason} (${d.detail}) [MC-9.5]`,
  },
  'clock.advanced': {
    level: 'info',
    msg: (d) => `clock advanced ${duration(d.to - d.from)} to ${toIstIsoSeconds(d.to)}`,
  },
  'clock.speed': { level: 'info', msg: (d) => `clock speed ${d.was}x → ${d.speed}x` },
  'world.snapshot': {
    level: 'info',
    msg: (d) =>
      `world snapshot ${d.name} saved: ${d.devices} devices, ${d.readings} readings, at ${toIstIsoSeconds(d.clock)}`,
  },
  'world.restored': {
    level: 'warn',
    msg: (d) =>
      `world restored from snapshot ${d.name}: ${d.devices} devices, clock ${toIstIsoSeconds(d.from)} → ${toIstIsoSeconds(d.to)}`,
  },
  'world.reset': {
    level: 'warn',
    msg: (d) => `world reset: ${d.devices} devices removed with their readings and ledger`,
  },
  'telemetry.summary': {
    level: 'debug',
    msg: (d) =>
      `telemetry: ${d.meters.length} meters, ${d.messages} messages, ${d.samples} samples in ${(d.interval_ms / 1000).toFixed(1)} s`,
  },
  log: { level: (d) => d.level, msg: (d) => d.msg },
};

/**
 * An answered request's level, from its fields (the logger's request watcher asks before any event is
 * built, EXT-7). 4xx at info: the person at the other end of a refused request is who reads these logs.
 */
export function requestLevel(d: { status: number }): LogLevel {
  return d.status >= 500 ? 'error' : d.status >= 400 ? 'info' : 'debug';
}

/** The level an event is logged at: looked up before anything is formatted. */
export function levelOf(e: MeterEvent): LogLevel {
  const spec = LINES[e.type] as LineSpec<EventType>;
  return typeof spec.level === 'string' ? spec.level : spec.level(e.data);
}

/** The human message of an event. */
export function messageOf(e: MeterEvent): string {
  const spec = LINES[e.type] as LineSpec<EventType>;
  return spec.msg(e.data, e.device_id ?? 'a meter');
}

/**
 * The event's fields as a JSON log line holds them: all of `data`, except that a telemetry summary
 * gives its meter count, not every meter (10,000 of them a second is a journal's job, not a log's), and
 * a `log` event has no data beyond its message and level, and a request's URL has secret-looking query
 * values masked.
 */
export function dataOf(e: MeterEvent): object | undefined {
  if (e.type === 'log') return undefined;
  if (e.type === 'http.request') {
    const d = e.data as EventData<'http.request'>;
    return d.url.includes('?') ? { ...d, url: redactUrl(d.url) } : d;
  }
  if (e.type === 'telemetry.summary') {
    const { meters, ...rest } = e.data as EventData<'telemetry.summary'>;
    return { ...rest, meter_count: meters.length };
  }
  return e.data;
}
