// The live journal: every event the stream (or the journal poll) brought, filtered by family and
// device, newest first; and the HTTP requests with their status and latency.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { eventTime, istDateTime, relative, rupees, span } from './format.js';
import { useLive } from './hooks.js';
import { live, virtualNow } from './live.js';

const FAMILIES = ['meter', 'money', 'command', 'http', 'broker', 'contract', 'clock', 'telemetry', 'log'];
const MONEY_FIELDS = new Set(['balance', 'amount', 'threshold']);
/**
 * Fields that carry a time as epoch ms (src/events/schemas.ts `Ms`: clock.advanced's from/to, a
 * fault's from/until, meter.online's since): shown as IST date-times, never as raw numbers.
 */
const TIME_FIELDS = new Set(['from', 'to', 'until', 'since', 'ts', 'at']);
const isEpochMs = (k, v) => TIME_FIELDS.has(k) && typeof v === 'number' && v > 1e11;
/** A number as a person reads it: a duration in ms to 0.1 ms, others to 3 decimals at most (no float noise). */
const plain = (k, v) => (k.endsWith('_ms') ? `${v.toFixed(1)} ms` : String(Math.round(v * 1000) / 1000));
/** The reads a console makes by itself every few seconds: hidden unless asked for, they would drown the rest. */
const OWN_POLL = /^\/sim\/v1\/(fleet|clock|events|devices\/[^/?]+$)/;
export const isOwnPoll = (e) =>
  e.type === 'http.request' && e.data.method === 'GET' && e.data.status < 400 && OWN_POLL.test(e.data.url);

/** An event's data in one line: `key=value` pairs, money in ₹. */
export function summary(e) {
  if (e.type === 'telemetry.summary')
    return `${e.data.meters.length} meters, ${e.data.messages} messages, ${e.data.samples} samples`;
  if (e.type === 'clock.advanced' && typeof e.data.from === 'number' && typeof e.data.to === 'number')
    return `+${span((e.data.to - e.data.from) / 1000)}: ${istDateTime(e.data.from)} → ${istDateTime(e.data.to)}`;
  if (e.type === 'http.request') {
    const d = e.data;
    return `${d.method} ${d.url} → ${d.status} in ${d.latency_ms.toFixed(1)} ms${d.code ? ` (${d.code})` : ''}`;
  }
  return Object.entries(e.data)
    .map(
      ([k, v]) =>
        `${k}=${MONEY_FIELDS.has(k) && typeof v === 'number' ? rupees(v) : isEpochMs(k, v) ? istDateTime(v) : typeof v === 'number' ? plain(k, v) : typeof v === 'object' ? JSON.stringify(v) : v}`,
    )
    .join(' ');
}

/** Events, newest first: a time with its date when the day is not today's, the full time and how long ago on hover. */
export function EventList({ events }) {
  if (events.length === 0) return html`<p class="muted">No events yet.</p>`;
  const now = virtualNow();
  return html`<ol class="events">
    ${events.map(
      (e) => html`<li key=${e.seq} data-type=${e.type}>
        <time class="muted mono" data-time=${e.vt} title=${`${istDateTime(e.vt)}${now ? ` · ${relative(e.vt, now)}` : ''}`}>${eventTime(e.vt, now)}</time>
        <span class=${`etype fam-${e.type.split('.')[0]}`}>${e.type}</span>
        ${e.device_id ? html`<b>${e.device_id}</b>` : null}
        <span class="edata">${summary(e)}</span>
      </li>`,
    )}
  </ol>`;
}

function Requests({ events }) {
  const reqs = events
    .filter((e) => e.type === 'http.request')
    .slice(-200)
    .reverse();
  if (reqs.length === 0) return html`<p class="muted">No requests seen yet.</p>`;
  const now = virtualNow();
  return html`<table class="requests">
    <thead><tr><th>time (IST)</th><th>method</th><th>url</th><th>status</th><th>latency</th><th>account</th></tr></thead>
    <tbody>${reqs.map(
      (e) => html`<tr key=${e.seq}>
        <td class="mono" title=${istDateTime(e.vt)}>${eventTime(e.vt, now)}</td><td>${e.data.method}</td><td class="mono">${e.data.url}</td>
        <td class=${e.data.status >= 500 ? 'bad' : e.data.status >= 400 ? 'warn' : ''}>${e.data.status}${e.data.code ? ` ${e.data.code}` : ''}</td>
        <td class="num">${e.data.latency_ms.toFixed(1)} ms</td><td>${e.data.account_id ?? '—'}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

const STREAM_WORDS = {
  live: 'live (event stream)',
  polling: 'polling the journal every second',
  connecting: 'connecting…',
  none: 'this service has no event journal: the fleet is polled instead',
};

export function Events() {
  useLive();
  const [family, setFamily] = useState('');
  const [device, setDevice] = useState('');
  const [tab, setTab] = useState('events');
  const [polls, setPolls] = useState(false);
  const kept = polls ? live.events : live.events.filter((e) => !isOwnPoll(e));
  const shown = kept
    .filter(
      (e) =>
        (!family || e.type.startsWith(`${family}.`)) && (!device || (e.device_id ?? '').includes(device)),
    )
    .slice(-300)
    .reverse();
  return html`<section class="events-view">
    <div class="filters">
      <span class="pills">
        <button type="button" class=${tab === 'events' ? 'on' : ''} onClick=${() => setTab('events')}>Journal</button>
        <button type="button" class=${tab === 'requests' ? 'on' : ''} onClick=${() => setTab('requests')}>HTTP requests</button>
      </span>
      <select aria-label="event family" value=${family} onChange=${(e) => setFamily(e.currentTarget.value)}>
        <option value="">every type</option>
        ${FAMILIES.map((f) => html`<option value=${f}>${f}.*</option>`)}
      </select>
      <input type="search" aria-label="device filter" placeholder="device id" value=${device}
        onInput=${(e) => setDevice(e.currentTarget.value)} />
      <label class="muted"><input type="checkbox" checked=${polls} onChange=${(e) => setPolls(e.currentTarget.checked)} />
        consoles' own reads</label>
      <span class="muted" data-stream=${live.stream}>${STREAM_WORDS[live.stream]}</span>
    </div>
    <div class="scroll">${tab === 'events' ? html`<${EventList} events=${shown} />` : html`<${Requests} events=${kept} />`}</div>
  </section>`;
}
