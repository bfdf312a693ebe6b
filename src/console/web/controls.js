// Every control of a meter, each acting through the public API a client would use: the v2 API with
// the account's key (relay, mode, tariffs, gateway, WiFi) and /sim/v1 with the admin token (load,
// recharge, button hold, online/offline). Each shows what the service answered, in words.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { sim, v2 } from './api.js';
import { rupees } from './format.js';
import { refreshSoon } from './live.js';

/** Runs one action; remembers its outcome for the line under the controls. */
function useAction(onDone) {
  const [status, setStatus] = useState(null);
  const run = async (what, f) => {
    setStatus({ busy: true, text: `${what}…` });
    const r = await f();
    setStatus(
      r.ok
        ? { ok: true, text: `${what}: ${r.json?.message ?? 'done'}` }
        : { ok: false, text: `${what} failed: ${r.message}` },
    );
    refreshSoon();
    onDone?.();
    return r;
  };
  return [status, run];
}

const num = (e) => Number(e.currentTarget.value);

function Group({ title, children }) {
  return html`<fieldset class="group"><legend>${title}</legend>${children}</fieldset>`;
}

export function Controls({ row, detail, onChanged }) {
  const [status, run] = useAction(onChanged);
  const id = row.device_id;
  const acct = row.account_id;
  const put = (path, body) => v2(acct, 'PUT', `/devices/${encodeURIComponent(id)}${path}`, body);
  const simPost = (path, body) => sim('POST', `/devices/${encodeURIComponent(id)}${path}`, body);
  const virtual = row.kind === 'virtual';
  const [eb, setEb] = useState(row.eb_tariff ?? 800);
  const [dg, setDg] = useState(row.dg_tariff ?? 1800);
  const [ssid, setSsid] = useState('');
  const [pass, setPass] = useState('');
  const [hold, setHold] = useState(5);
  const [loadW, setLoadW] = useState(detail?.load?.watts ?? detail?.load?.peakWatts ?? 1000);
  const [profile, setProfile] = useState(detail?.load?.kind ?? 'constant');
  const [amount, setAmount] = useState(500);
  const [wifi, setWifi] = useState(null);
  const [metrics, setMetrics] = useState(null);
  const [name, setName] = useState(row.name);
  const newTx = () => `console-${Date.now().toString(36)}`;
  const [tx, setTx] = useState(newTx);

  const readMetrics = () =>
    run('Read metrics', async () => {
      const r = await v2(acct, 'GET', `/devices/${encodeURIComponent(id)}/metrics`);
      setMetrics(r.ok ? r.data : null);
      return r;
    });

  return html`<div class="controls">
    <${Group} title="Read live from the meter (v2 endpoint 5)">
      <button data-action="read-metrics" onClick=${readMetrics}>Read metrics</button>
      ${
        metrics
          ? html`<span class="muted" data-metrics>${metrics.mode} · relay ${metrics.relay_state ? 'closed' : 'open'} ·
            ${metrics.active_power} W · ${metrics.voltage} V · ${metrics.energy} kWh · ${rupees(metrics.balance)}</span>`
          : null
      }
    <//>
    <${Group} title="Name (v2 endpoint 6)">
      <input aria-label="meter name" value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
      <button onClick=${() => run('Name', () => v2(acct, 'PUT', `/devices/${encodeURIComponent(id)}/`, { name }))}>Save</button>
    <//>
    <${Group} title="Relay">
      <button data-action="relay-on" onClick=${() => run('Relay on', () => put('/relay', { state: true }))}>Close (on)</button>
      <button data-action="relay-off" onClick=${() => run('Relay off', () => put('/relay', { state: false }))}>Open (off)</button>
    <//>
    <${Group} title="Mode">
      <select aria-label="mode" value=${row.mode}
        onChange=${(e) => run('Mode', () => put('/mode', { mode: e.currentTarget.value }))}>
        ${['prepaid', 'postpaid', 'measurement', 'relay_off'].map((m) => html`<option value=${m}>${m}</option>`)}
      </select>
    <//>
    <${Group} title="Tariffs (paise/kWh)">
      <label>EB <input type="number" min="0" value=${eb} onInput=${(e) => setEb(num(e))} /></label>
      <button onClick=${() => run('EB tariff', () => put('/tariffs/eb', { tariff: eb }))}>Set</button>
      <label>DG <input type="number" min="0" value=${dg} onInput=${(e) => setDg(num(e))} /></label>
      <button onClick=${() => run('DG tariff', () => put('/tariffs/dg', { tariff: dg }))}>Set</button>
      <span class="split">Active:
        <button onClick=${() => run('Active tariff EB', () => put('/tariffs/active', { active_tariff: 1 }))}>EB</button>
        <button onClick=${() => run('Active tariff DG', () => put('/tariffs/active', { active_tariff: 2 }))}>DG</button></span>
    <//>
    <${Group} title="Payment gateway">
      <button onClick=${() => run('Gateway on', () => put('/payments/gateway', { state: true }))}>Enable</button>
      <button onClick=${() => run('Gateway off', () => put('/payments/gateway', { state: false }))}>Disable</button>
    <//>
    <${Group} title="WiFi">
      <input aria-label="ssid" placeholder="SSID" value=${ssid} onInput=${(e) => setSsid(e.currentTarget.value)} />
      <input aria-label="wifi password" placeholder="password" value=${pass} onInput=${(e) => setPass(e.currentTarget.value)} />
      <button onClick=${() => run('WiFi', () => v2(acct, 'POST', `/devices/${encodeURIComponent(id)}/wifi`, { ssid, password: pass }))}>Set</button>
      <button onClick=${() =>
        run('Read WiFi', async () => {
          const r = await v2(acct, 'GET', `/devices/${encodeURIComponent(id)}/wifi`);
          setWifi(r.ok ? r.data : null);
          return r;
        })}>Read</button>
      ${wifi ? html`<span class="muted">${wifi.ssid} (${wifi.type}, ${wifi.rssi} dBm)</span>` : null}
      ${
        virtual
          ? html`<span class="split">Button hold <input type="number" min="0" max="600" value=${hold} onInput=${(e) => setHold(num(e))} /> s
        <button onClick=${() => run('Button', () => simPost('/button', { hold_seconds: hold }))}>Press</button></span>`
          : null
      }
    <//>
    ${
      virtual
        ? html`
    <${Group} title="Recharge (₹)">
      <input type="number" aria-label="recharge amount" min="1" value=${amount} onInput=${(e) => setAmount(num(e))} />
      <input aria-label="transaction id" value=${tx} onInput=${(e) => setTx(e.currentTarget.value)} />
      <button data-action="recharge" onClick=${async () => {
        const r = await run(`Recharge ${rupees(Math.round(amount * 100))}`, () =>
          simPost('/recharge', { amount: Math.round(amount * 100), transaction_id: tx }),
        );
        if (r.ok) setTx(newTx());
      }}>Recharge</button>
    <//>
    <${Group} title="Load">
      <select aria-label="load profile" value=${profile} onChange=${(e) => setProfile(e.currentTarget.value)}>
        <option value="constant">constant</option><option value="household">household</option>
      </select>
      <input type="number" aria-label="load watts" min="0" value=${loadW} onInput=${(e) => setLoadW(num(e))} /> W
      <button onClick=${() => run('Load', () => simPost('/load', { watts: loadW, profile }))}>Set</button>
    <//>
    <${Group} title="Power supply">
      <button data-action="plug" onClick=${() => run('Online', () => simPost('/online', { online: true }))}>Plug in (online)</button>
      <button data-action="unplug" onClick=${() => run('Offline', () => simPost('/online', { online: false }))}>Unplug (offline)</button>
    <//>`
        : html`<p class="muted">An external meter: recharge, load, button and power supply are the meter's own.</p>`
    }
    <p class=${`status ${status?.ok === false ? 'bad' : ''}`} role="status" data-status>${status?.text ?? ''}</p>
  </div>`;
}
