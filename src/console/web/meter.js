// One meter: what the fleet row says, its live power and balance, its history by date (history.js),
// every control, its events and its MQTT traffic (the journal filtered by its device id).

import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { reviseIntent } from './action.js';
import { sim, v2 } from './api.js';
import { TimeChart } from './charts.js';
import { Controls } from './controls.js';
import { cutoffHint } from './cutoff.js';
import { EventList } from './events.js';
import { isWaiting } from './fleet.js';
import { ago, clockText, eventTime, istDate, kwh, relayText, rupees, tariffText, watts } from './format.js';
import { History } from './history.js';
import { useEvery, useLive } from './hooks.js';
import { live, virtualNow } from './live.js';
import { ConnectLines } from './provision.js';

const MAX_POINTS = 600;

/** Series kept per meter for the session, fed by whatever the console hears (poll or stream). */
const seriesOf = new Map();
function series(id) {
  let s = seriesOf.get(id);
  if (!s) {
    s = { power: { xs: [], ys: [] }, balance: { xs: [], ys: [] } };
    seriesOf.set(id, s);
  }
  return s;
}
function push(line, x, y) {
  if (x === null || x === undefined || y === null || y === undefined) return false;
  if (line.xs.length > 0 && x <= line.xs[line.xs.length - 1]) return false;
  line.xs = [...line.xs, x].slice(-MAX_POINTS);
  line.ys = [...line.ys, y].slice(-MAX_POINTS);
  return true;
}

/** Adds older points (history, journal) under the live ones, keeping x ascending and unique. */
function seed(line, xs, ys) {
  const points = new Map();
  for (const [i, x] of xs.entries()) points.set(x, ys[i]);
  for (const [i, x] of line.xs.entries()) points.set(x, line.ys[i]);
  const sorted = [...points.entries()].sort((a, b) => a[0] - b[0]).slice(-MAX_POINTS);
  line.xs = sorted.map((p) => p[0]);
  line.ys = sorted.map((p) => p[1]);
}

/** On opening: today's 15-minute power readings and the balances the journal recorded. */
async function seedSeries(row, s) {
  const now = virtualNow() ?? Date.now();
  const day = istDate(now);
  const q = `property_id=active_power&from_date=${istDate(now - 86_400_000)}&to_date=${day}&interval=15m`;
  const [hist, journal] = await Promise.all([
    v2(row.account_id, 'GET', `/devices/${encodeURIComponent(row.device_id)}/metrics/history?${q}`),
    sim('GET', `/events?device_id=${encodeURIComponent(row.device_id)}&limit=500`),
  ]);
  if (hist.ok) {
    const recent = hist.data.readings.filter((p) => Date.parse(p.timestamp) > now - 6 * 3_600_000);
    seed(
      s.power,
      recent.map((p) => Date.parse(p.timestamp)),
      recent.map((p) => p.value),
    );
  }
  if (journal.ok) {
    const withBalance = journal.data.events.filter((e) => typeof e.data.balance === 'number');
    seed(
      s.balance,
      withBalance.map((e) => e.vt),
      withBalance.map((e) => e.data.balance / 100),
    );
  }
}

function Facts({ row, detail, now }) {
  const fact = (k, v) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`;
  // An external meter never heard from has no mode, relay or balance yet: what the row holds are
  // defaults, not readings [spec-decisions 194].
  if (isWaiting(row))
    return html`<dl class="facts">
      ${fact('Online', html`<span class="dot off"></span><span data-waiting>waiting for its first connection</span>`)}
      ${fact('Model', row.model)}
      ${fact('Clock', html`<span data-clock-kind=${row.clock ?? 'virtual'}>${clockText(row.kind, row.clock, live.clock?.wall_offset_ms)}</span>`)}
    </dl>`;
  const hint = cutoffHint(row);
  return html`<dl class="facts">
    ${fact('Online', html`<span class=${`dot ${row.online ? 'on' : 'off'}`}></span>${row.online ? 'online' : 'offline'}`)}
    ${fact('Mode', row.mode)}
    ${fact('Relay', html`<span data-relay=${String(row.relay_state)}>${relayText(row.relay_state)}</span> <span class="muted">(commanded ${relayText(row.relay_commanded)})</span>`)}
    ${fact('Balance', html`<span data-balance=${row.balance}>${rupees(row.balance)}</span>${hint ? html` <span class="warn" data-cutoff-hint>${hint} at ${watts(row.active_power)}</span>` : null}`)}
    ${fact('Tariff', `${tariffText(row.active_tariff)} active · EB ${rupees(row.eb_tariff)} · DG ${rupees(row.dg_tariff)} per kWh`)}
    ${fact('Power', watts(row.active_power))}
    ${fact('Energy', kwh(row.energy))}
    ${fact('Last seen', ago(row.last_seen, now))}
    ${fact('Clock', html`<span data-clock-kind=${row.clock ?? 'virtual'}>${clockText(row.kind, row.clock, live.clock?.wall_offset_ms)}</span>`)}
    ${fact('Model', `${row.model}${detail?.firmware ? ` · fw ${detail.firmware}` : ''}`)}
    ${detail?.wifi ? fact('WiFi', `${detail.wifi.ssid}${detail.wifi.config_mode ? ' · config mode' : ''}`) : null}
    ${detail?.load ? fact('Load', detail.load.kind === 'constant' ? `constant ${watts(detail.load.watts)}` : `household, peak ${watts(detail.load.peakWatts)}`) : null}
  </dl>`;
}

const TRAFFIC = /^(command\.|meter\.(connected|online|offline|info)|broker\.|contract\.)/;

function MeterEvents({ id }) {
  useLive();
  const [older, setOlder] = useState({ events: [], error: null });
  useEffect(() => {
    sim('GET', `/events?device_id=${encodeURIComponent(id)}&limit=200`).then((r) =>
      setOlder(
        r.ok
          ? { events: r.data.events, error: null }
          : { events: [], error: r.status === 404 ? 'this service has no journal' : r.message },
      ),
    );
  }, [id]);
  const seen = new Set(older.events.map((e) => e.seq));
  const all = [...older.events, ...live.events.filter((e) => e.device_id === id && !seen.has(e.seq))];
  const traffic = all.filter((e) => TRAFFIC.test(e.type));
  return html`<div class="two">
    <div class="card"><h3>Events</h3>${older.error ? html`<p class="muted">${older.error}</p>` : null}
      <${EventList} events=${all.slice(-100).reverse()} /></div>
    <div class="card"><h3>MQTT traffic</h3><${EventList} events=${traffic.slice(-100).reverse()} /></div>
  </div>`;
}

export function Meter({ id, onClose }) {
  useLive();
  const row = live.rows.get(id);
  // The detail read for a meter, tagged with its id: another meter opened in this panel shows none
  // until its own arrives (not the last meter's load, firmware or WiFi), and a late answer for the
  // meter before is not taken as this one's.
  const [read, setRead] = useState(null);
  const detail = read?.id === id ? read.data : null;
  const s = series(id);
  // Another meter opened in this panel starts at its top: its name, not the last one's scroll position.
  const panel = useRef(null);
  useEffect(() => {
    const el = panel.current;
    if (!el) return;
    el.scrollTop = 0;
    if (el.getBoundingClientRect().top < 0) el.scrollIntoView({ block: 'start' });
  }, [id, !row]);
  const readDetail = () =>
    sim('GET', `/devices/${encodeURIComponent(id)}`).then((r) => r.ok && setRead({ id, data: r.data }));
  useEvery(5000, readDetail, [id]);
  // [CON-2] Opening a meter begins a new recharge intent: a new transaction id, the last amount kept.
  useEffect(() => reviseIntent(`recharge:${id}`), [id]);
  const [, seeded] = useState(0);
  useEffect(() => {
    if (row && !isWaiting(row)) seedSeries(row, s).then(() => seeded((n) => n + 1));
  }, [id, row && isWaiting(row)]);
  // Every value the row gains becomes a point of the live charts.
  const last = useRef(null);
  if (row && (row.sample_ts !== last.current?.ts || row.balance !== last.current?.balance)) {
    const t = row.sample_ts ?? row.last_seen;
    push(s.power, row.sample_ts, row.active_power);
    push(s.balance, t, row.balance / 100);
    last.current = { ts: row.sample_ts, balance: row.balance };
  }
  if (!row)
    return html`<aside class="meter" ref=${panel} data-meter-missing=${id}><p>${live.order.length === 0 ? `Loading ${id}…` : `Meter ${id} is not in the fleet.`}</p><button type="button" onClick=${onClose}>Close</button></aside>`;
  return html`<aside class="meter" ref=${panel} data-meter=${id}>
    <header class="meter-head">
      <div><h2>${row.device_id}</h2><span class="muted">${row.name} · account #${row.account_id}${row.kind === 'external' ? ' · external' : ''}</span></div>
      <button type="button" class="ghost" aria-label="close meter" onClick=${onClose}>✕</button>
    </header>
    <${Facts} row=${row} detail=${detail} now=${virtualNow()} />
    ${row.kind === 'external' ? html`<${ConnectLines} row=${row} mqttUrl=${live.mqttUrl} />` : null}
    ${
      // A meter never heard from has no readings, history or state to act on yet: its connect lines say how.
      isWaiting(row)
        ? null
        : html`<div class="card"><h3>Live power</h3><${TimeChart} xs=${s.power.xs} ys=${s.power.ys} label="active_power (W)" height=${140} /></div>
    <div class="card"><h3>Balance over time (₹)</h3><${TimeChart} xs=${s.balance.xs} ys=${s.balance.ys} label="balance (₹)" height=${140} stepped=${true} /></div>
    <${Controls} key=${id} row=${row} detail=${detail} onChanged=${readDetail} />
    <${History} key=${id} row=${row} />`
    }
    <${MeterEvents} id=${id} />
    <p class="muted small">Times are IST; the live charts hold what this page heard since it opened (${eventTime(s.power.xs[0], virtualNow())} on).</p>
  </aside>`;
}
