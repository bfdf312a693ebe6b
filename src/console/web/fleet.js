// The fleet: every meter as one row, filtered and searched; only the rows in view are in the DOM
// (fixed row height, a spacer for the rest), so 10,000 meters scroll as smoothly as ten.

import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { cutoffHint } from './cutoff.js';
import { ago, kwh, relayText, rupees, tariffText, watts } from './format.js';
import { useLive } from './hooks.js';
import { live, virtualNow } from './live.js';

const ROW_H = 34;
const OVERSCAN = 8;
const MODES = ['prepaid', 'postpaid', 'measurement', 'relay_off'];

/** space_id -> its name, from the accounts the fleet read listed. */
export function spaceNames(accounts) {
  const names = new Map();
  for (const a of accounts) for (const sp of a.spaces) names.set(sp.space_id, sp.name);
  return names;
}

/** Whether `row` passes the filters `f`; the search matches the id, the name and the space's name. */
export function matches(row, f, spaces = new Map()) {
  if (f.online === 'online' && !row.online) return false;
  if (f.online === 'offline' && row.online) return false;
  if (f.mode && row.mode !== f.mode) return false;
  if (f.account && row.account_id !== Number(f.account)) return false;
  if (f.space && String(row.space_id) !== f.space) return false;
  if (f.q) {
    const q = f.q.toLowerCase();
    const space = spaces.get(row.space_id) ?? '';
    const hit = [row.device_id, row.name, space].some((t) => t.toLowerCase().includes(q));
    if (!hit) return false;
  }
  return true;
}

/** A prepaid meter whose relay is open for want of balance. */
export const isCutOff = (row) => row.mode === 'prepaid' && row.relay_state === false && row.balance <= 0;

function Filters({ f, set, shown, total }) {
  const spaces = live.accounts
    .filter((a) => !f.account || a.account_id === Number(f.account))
    .flatMap((a) => a.spaces);
  const field = (name) => (e) => set({ ...f, [name]: e.currentTarget.value });
  return html`<div class="filters">
    <input type="search" placeholder="Search id, name, space" value=${f.q} onInput=${field('q')} aria-label="search" />
    <select value=${f.online} onChange=${field('online')} aria-label="online filter">
      <option value="">online and offline</option><option value="online">online</option>
      <option value="offline">offline</option>
    </select>
    <select value=${f.mode} onChange=${field('mode')} aria-label="mode filter">
      <option value="">every mode</option>
      ${MODES.map((m) => html`<option value=${m}>${m}</option>`)}
    </select>
    <select value=${f.account} onChange=${(e) => set({ ...f, account: e.currentTarget.value, space: '' })}
      aria-label="account filter">
      <option value="">every account</option>
      ${live.accounts.map((a) => html`<option value=${a.account_id}>${a.name} (#${a.account_id})</option>`)}
    </select>
    <select value=${f.space} onChange=${field('space')} aria-label="space filter">
      <option value="">every space</option><option value="null">no space</option>
      ${spaces.map((s) => html`<option value=${s.space_id}>${s.name}</option>`)}
    </select>
    <span class="muted count">${shown} of ${total} meters</span>
  </div>`;
}

const HEAD = [
  'Meter',
  'Space',
  'Online',
  'Mode',
  'Relay / commanded',
  'Balance',
  'Tariff',
  'Power',
  'Energy',
  'Last seen',
];

/** Never heard from: an external meter provisioned but not yet connected (fleet row `heard`). */
export const isWaiting = (row) => row.kind === 'external' && row.heard === false;

function Row({ row, top, now, onOpen, selected, space }) {
  const cut = isCutOff(row);
  const waiting = isWaiting(row);
  const hint = waiting ? null : cutoffHint(row);
  return html`<div class=${`row${selected ? ' selected' : ''}${row.online ? '' : ' offline'}`} style=${`top:${top}px`} data-device=${row.device_id}
    role="button" tabindex="0" onClick=${() => onOpen(row.device_id)}
    onKeyDown=${(e) => e.key === 'Enter' && onOpen(row.device_id)}>
    <span class="cell-meter"><b>${row.device_id}</b> <span class="muted">${row.name}</span>
      ${row.kind === 'external' ? html` <span class="tag" title=${row.clock === 'wall' ? "lives on wall time; its data are mapped onto the world's clock [MC-11]" : "declares the world's clock [MC-4.7]: its times are taken as they are"}>external · ${row.clock === 'wall' ? 'wall clock' : 'world clock'}</span>` : null}</span>
    <span class="muted" data-space=${row.space_id ?? ''} title=${space ?? 'no space'}>${space ?? '—'}</span>
    <span><span class=${`dot ${row.online ? 'on' : 'off'}`}></span>${row.online ? 'online' : 'offline'}</span>
    ${
      waiting
        ? html`<span class="waiting muted" data-waiting data-relay=${String(row.relay_state)}
            title="provisioned; the service has heard nothing from it yet">waiting for its first connection</span>`
        : html`<span>${row.mode}</span>
    <span class="relay" data-relay=${String(row.relay_state)} title=${`relay ${relayText(row.relay_state)}, commanded ${relayText(row.relay_commanded)}`}>
      ${cut ? html`<span class="badge bad">cut off</span> ` : null}${relayText(row.relay_state)}
      <span class="muted"> / ${relayText(row.relay_commanded)}</span></span>
    <span class=${`num${row.balance < 0 ? ' neg' : ''}`} data-balance=${row.balance} title=${hint ?? ''}>
      ${hint ? html`<span class="badge warn" data-cutoff-hint>low</span> ` : null}${rupees(row.balance)}</span>
    <span>${tariffText(row.active_tariff)}</span>
    <span class="num">${watts(row.active_power)}</span>
    <span class="num">${kwh(row.energy)}</span>`
    }
    <span class="muted">${ago(row.last_seen, now)}</span>
  </div>`;
}

export function Fleet({ onOpen, selected }) {
  const version = useLive();
  const [f, setF] = useState({ q: '', online: '', mode: '', account: '', space: '' });
  const [scroll, setScroll] = useState({ top: 0, height: 600 });
  const box = useRef(null);
  // The window's height decides how many rows are drawn: follow it.
  useEffect(() => {
    const el = box.current;
    const seen = new ResizeObserver(() => setScroll({ top: el.scrollTop, height: el.clientHeight }));
    seen.observe(el);
    return () => seen.disconnect();
  }, []);
  // Filtered again when the data or the filters change (not on scroll); the order is kept sorted
  // by live.js, so 10,000 rows are never re-sorted per event.
  const spaces = useMemo(() => spaceNames(live.accounts), [live.accounts]);
  const rows = useMemo(() => {
    const out = [];
    for (const id of live.order) {
      const r = live.rows.get(id);
      if (r && matches(r, f, spaces)) out.push(r);
    }
    return out;
  }, [version, f, spaces]);
  // A meter opened from its URL (or the back button) is brought into the fleet's view too.
  const found = selected ? rows.findIndex((r) => r.device_id === selected) : -1;
  useEffect(() => {
    const el = box.current;
    if (found < 0 || !el) return;
    const y = found * ROW_H;
    if (y < el.scrollTop || y + 2 * ROW_H > el.scrollTop + el.clientHeight)
      el.scrollTop = Math.max(0, y - ROW_H);
  }, [selected, found >= 0]);
  const first = Math.max(0, Math.floor(scroll.top / ROW_H) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scroll.top + scroll.height) / ROW_H) + OVERSCAN);
  const now = virtualNow();
  const onScroll = (e) => setScroll({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight });
  return html`<section class="fleet">
    <${Filters} f=${f} set=${setF} shown=${rows.length} total=${live.rows.size} />
    <div class="rows" ref=${box} onScroll=${onScroll}>
      <div class="grid head">${HEAD.map((h) => html`<span>${h}</span>`)}</div>
      <div class="spacer" style=${`height:${rows.length * ROW_H}px`}>
        ${rows.slice(first, last).map(
          (row, i) => html`<${Row} key=${row.device_id} row=${row} top=${(first + i) * ROW_H} now=${now}
            onOpen=${onOpen} selected=${row.device_id === selected} space=${spaces.get(row.space_id)} />`,
        )}
      </div>
      ${live.rows.size === 0 ? html`<p class="empty">No meters yet: provision one in the Provision tab.</p>` : null}
    </div>
  </section>`;
}
