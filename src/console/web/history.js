// A meter's history by date (issue 23 §2, spec-decisions 179): a property, an interval, and a range of
// IST days picked by hand or by a preset (today, the last 7 days, a month, the stored range); read from
// the v2 history, read again after a clock jump or restore; when the range holds nothing but the meter
// has data elsewhere, its stored range is offered (GET /sim/v1/devices/{id}/history/span, HX-5);
// "Export CSV" downloads the same range from history.csv (HX-1).

import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { ActButton, isRunning, runOnce, useRunning } from './action.js';
import { sim, simFile, v2 } from './api.js';
import { TimeChart } from './charts.js';
import { istDate } from './format.js';
import { useLive } from './hooks.js';
import { live, virtualNow } from './live.js';

const PROPERTIES = [
  'active_power',
  'energy',
  'voltage',
  'current',
  'power_factor',
  'apparent_power',
  'reactive_power',
];
/** How many IST days each interval shows when no range was picked, ending today (virtual). */
const SPAN_DAYS = { '15m': 1, '30m': 2, '60m': 7, '1d': 30 };
/** Ranges ending today (virtual): [label, days]. */
const PRESETS = [
  ['today', 1],
  ['7 days', 7],
  ['a month', 30],
];
/** The longest range one history request covers (spec-decisions 11). */
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** The day `n` days after (before, when negative) the IST day `date`, YYYY-MM-DD. */
export const addDays = (date, n) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** The later (earlier) of two YYYY-MM-DD days: such strings order as the days do. */
const laterDay = (a, b) => [a, b].sort()[1];
const earlierDay = (a, b) => [a, b].sort()[0];

const DAY_TEXT = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'UTC',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
});
/** "5 Jan 2026 – 11 Jan 2026", or one day. */
export const rangeText = (from, to) => {
  const day = (d) => DAY_TEXT.format(Date.parse(`${d}T00:00:00Z`));
  return from === to ? day(from) : `${day(from)} – ${day(to)}`;
};

/**
 * The days a range covers today: `auto` (the interval's default window), `last` (n days to today), or
 * `fixed` (as picked). Relative ranges move with the virtual clock.
 */
export function resolveRange(range, interval, today) {
  if (range.kind === 'fixed') return { from: range.from, to: range.to };
  const days = range.kind === 'last' ? range.days : SPAN_DAYS[interval];
  return { from: addDays(today, 1 - days), to: today };
}

/** The stored range as one request can take it: its last MAX_DAYS days. */
export function storedRange(span) {
  const from = laterDay(span.from, addDays(span.to, 1 - MAX_DAYS));
  return { kind: 'fixed', from, to: span.to, label: 'stored' };
}

/**
 * What changes when the world's clock jumps: the seq of the newest `clock.advanced` or
 * `world.restored` event the console heard. The clock's own day is the other trigger.
 */
function clockEpoch() {
  for (let i = live.events.length - 1; i >= 0; i--) {
    const e = live.events[i];
    if (e.type === 'clock.advanced' || e.type === 'world.restored') return e.seq;
  }
  return 0;
}

/** Hands a downloaded blob to the browser as a file. */
function saveFile(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Keyed by the meter (meter.js): another meter starts from its own defaults, not the last one's range. */
export function History({ row }) {
  useLive();
  useRunning();
  const id = row.device_id;
  const [property, setProperty] = useState('active_power');
  const [interval, setBucket] = useState('60m');
  const [range, setRange] = useState({ kind: 'auto' });
  const [data, setData] = useState({ xs: [], ys: [], unit: '', error: null, loading: true });
  const [span, setSpan] = useState(null);
  const [exported, setExported] = useState(null);
  const today = istDate(virtualNow() ?? Date.now());
  const epoch = clockEpoch();
  const { from, to } = resolveRange(range, interval, today);

  useEffect(() => {
    let gone = false;
    sim('GET', `/devices/${encodeURIComponent(id)}/history/span`).then((r) => {
      if (!gone) setSpan(r.ok && r.data.from ? r.data : null);
    });
    return () => {
      gone = true;
    };
  }, [id, epoch]);

  useEffect(() => {
    const q = `property_id=${property}&from_date=${from}&to_date=${to}&interval=${interval}`;
    let gone = false;
    const asked = performance.now();
    setData((d) => ({ ...d, loading: true }));
    v2(row.account_id, 'GET', `/devices/${encodeURIComponent(id)}/metrics/history?${q}`).then((r) => {
      if (gone) return;
      if (!r.ok) return setData({ xs: [], ys: [], unit: '', error: r.message, loading: false });
      const readings = r.data.readings;
      setData({
        xs: readings.map((p) => Date.parse(p.timestamp)),
        ys: readings.map((p) => p.value),
        unit: readings[0]?.unit ?? '',
        error: null,
        loading: false,
        asked,
      });
    });
    return () => {
      gone = true;
    };
  }, [id, property, interval, from, to, epoch]);

  // The chart drew this read: how long from asking to the frame it is on (DevTools' performance panel
  // and the console's browser test read it; bench/history.ts times it).
  const drawn = () => {
    if (data.asked !== undefined) performance.measure('meterstack:history', { start: data.asked });
  };

  const exportKey = `history-export:${id}`;
  const exportCsv = () =>
    runOnce(exportKey, async () => {
      setExported({ text: 'exporting…' });
      const path = `/devices/${encodeURIComponent(id)}/history.csv?from=${from}&to=${to}&interval=${interval}`;
      const r = await simFile(path, `${id}_${from}_${to}_${interval}.csv`);
      if (!r.ok) return setExported({ bad: true, text: `export failed: ${r.message}` });
      saveFile(r.blob, r.filename);
      setExported({ text: `${r.filename} (${Math.ceil(r.blob.size / 1024)} KB)` });
    });

  const pick = (next) => {
    setRange(next);
    setExported(null);
  };
  // A day past the other end takes that end along: the range is never upside down.
  const pickDay = (which) => (e) => {
    const v = e.currentTarget.value;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return;
    if (which === 'from') pick({ kind: 'fixed', from: v, to: laterDay(v, to) });
    else pick({ kind: 'fixed', from: earlierDay(v, from), to: v });
  };
  const stored = span && storedRange(span);
  const isOn = (kind, days) =>
    (range.kind === 'last' && range.days === days && kind === 'last') ||
    (kind === 'stored' && range.label === 'stored');
  // Nothing in the range, but the meter has data elsewhere: offer where it is.
  const outside =
    !data.loading && !data.error && data.xs.length === 0 && stored && (span.to < from || span.from > to);

  return html`<div class="card history" data-history=${id}>
    <div class="card-head"><h3>History</h3>
      <select aria-label="history property" value=${property} onChange=${(e) => setProperty(e.currentTarget.value)}>
        ${PROPERTIES.map((p) => html`<option value=${p}>${p}</option>`)}
      </select>
      <span class="pills" role="group" aria-label="interval">${Object.keys(SPAN_DAYS).map(
        (i) =>
          html`<button type="button" class=${i === interval ? 'on' : ''} aria-pressed=${String(i === interval)} onClick=${() => setBucket(i)}>${i}</button>`,
      )}</span>
    </div>
    <div class="history-range">
      <label>from <input type="date" aria-label="history from" value=${from} onChange=${pickDay('from')} /></label>
      <label>to <input type="date" aria-label="history to" value=${to} onChange=${pickDay('to')} /></label>
      <span class="pills" role="group" aria-label="history range">
        ${PRESETS.map(
          ([label, days]) =>
            html`<button type="button" class=${isOn('last', days) ? 'on' : ''} aria-pressed=${String(isOn('last', days))}
              onClick=${() => pick({ kind: 'last', days })}>${label}</button>`,
        )}
        ${
          stored
            ? html`<button type="button" data-history-stored class=${isOn('stored') ? 'on' : ''} aria-pressed=${String(isOn('stored'))}
              title=${`what the service holds: ${rangeText(span.from, span.to)}`} onClick=${() => pick(stored)}>stored</button>`
            : null
        }
      </span>
      <${ActButton} class="export" busy=${isRunning(exportKey)} onAct=${exportCsv}
        title="download this range as CSV (every property, with units)">Export CSV<//>
    </div>
    ${exported ? html`<p class=${`small ${exported.bad ? 'bad' : 'muted'}`} data-history-export>${exported.text}</p>` : null}
    ${data.error ? html`<p class="bad">${data.error}</p>` : null}
    ${
      outside
        ? html`<p class="hint" data-history-offer>${`Nothing from ${rangeText(from, to)}: this meter's readings lie ${rangeText(span.from, span.to)}. `}<button
            type="button" onClick=${() => pick(stored)}>Show ${rangeText(stored.from, stored.to)}</button></p>`
        : null
    }
    <${TimeChart} xs=${data.xs} ys=${data.ys} label=${`${property}${data.unit ? ` (${data.unit})` : ''}`}
      empty=${data.loading ? 'reading…' : 'no data in this range'} onDrawn=${drawn} />
  </div>`;
}
