// Every control of a meter, each acting through the public API a client would use: the v2 API with
// the account's key (relay, mode, tariffs, gateway, WiFi) and /sim/v1 with the admin token (load,
// recharge, button hold, online/offline). Each shows what the service answered, in words.

import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Act, intent, reviseIntent, useAction } from './action.js';
import { sim, v2 } from './api.js';
import { rupees } from './format.js';
import { expectRow } from './live.js';

const num = (e) => Number(e.currentTarget.value);

/**
 * A group of controls, and the outcome of the newest action of one of them (`acts`, names in
 * useAction) in words right under them, where the person clicked [spec-decisions 191].
 */
function Group({ title, act, acts = [], children }) {
  const outcome = act?.outcomeOf(acts);
  return html`<fieldset class="group"><legend>${title}</legend>${children}
    ${outcome ? html`<p class=${`status${outcome.ok === false ? ' bad' : outcome.ok ? ' good' : ''}`} role="status" data-status=${outcome.name}>${outcome.text}</p>` : null}
  </fieldset>`;
}

export function Controls({ row, detail, onChanged }) {
  const id = row.device_id;
  // [CON-1] Every control below acts through `act`: disabled while its request is in flight.
  const act = useAction(id, onChanged);
  // What a yes from the service changes on screen at once (the control flips in place).
  const flip = (patch) => () => expectRow(id, patch);
  const [gateway, setGateway] = useState(null);
  const pgOn = gateway ?? detail?.pg_enabled;
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
  // The load fields take the meter's load once its detail is read (it arrives after the panel opens),
  // unless the person already changed them. Not by re-mounting this panel when it arrives: that threw
  // away what the panel had read and said meanwhile (a Read metrics answered just before was lost).
  const loadTaken = useRef(!!detail?.load);
  const loadEdited = useRef(false);
  useEffect(() => {
    if (loadTaken.current || !detail?.load) return;
    loadTaken.current = true;
    if (loadEdited.current) return;
    setLoadW(detail.load.watts ?? detail.load.peakWatts ?? 1000);
    setProfile(detail.load.kind ?? 'constant');
  }, [detail]);
  const [wifi, setWifi] = useState(null);
  const [metrics, setMetrics] = useState(null);
  const [name, setName] = useState(row.name);
  // [CON-2] The recharge under way: its amount and transaction id outlive a re-mount of this panel.
  const rechargeKey = `recharge:${id}`;
  const recharge = intent(rechargeKey);
  const amount = recharge.amount ?? 500;
  const paise = Math.round(amount * 100);

  const readMetrics = async () => {
    const r = await v2(acct, 'GET', `/devices/${encodeURIComponent(id)}/metrics`);
    setMetrics(r.ok ? r.data : null);
    return r;
  };
  const readWifi = async () => {
    const r = await v2(acct, 'GET', `/devices/${encodeURIComponent(id)}/wifi`);
    setWifi(r.ok ? r.data : null);
    return r;
  };

  // A repeat of one intent is a duplicate [CON-2]: say how to make another recharge.
  const rechargeOnce = async (amountPaise, transactionId) => {
    const r = await simPost('/recharge', { amount: amountPaise, transaction_id: transactionId });
    if (!r.ok || r.data?.applied !== false) return r;
    return { ...r, json: { ...r.json, message: `${r.json.message}; for another recharge, press "new id"` } };
  };

  return html`<div class="controls">
    <${Group} title="Read live from the meter (v2 endpoint 5)" act=${act} acts=${['read-metrics']}>
      <${Act} act=${act} name="read-metrics" data-action="read-metrics" what="Read metrics" run=${readMetrics}>Read metrics<//>
      ${
        metrics
          ? html`<span class="muted" data-metrics>${metrics.mode} · relay ${metrics.relay_state ? 'closed' : 'open'} ·
            ${metrics.active_power} W · ${metrics.voltage} V · ${metrics.energy} kWh · ${rupees(metrics.balance)}</span>`
          : null
      }
    <//>
    <${Group} title="Name (v2 endpoint 6)" act=${act} acts=${['name']}>
      <input aria-label="meter name" value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
      <${Act} act=${act} name="name" what="Name" run=${() => v2(acct, 'PUT', `/devices/${encodeURIComponent(id)}/`, { name })} onOk=${flip({ name })}>Save<//>
    <//>
    <${Group} title="Relay" act=${act} acts=${['relay']}>
      <span class="pills toggle">
      <${Act} act=${act} name="relay" data-action="relay-on" what="Relay on" pressed=${row.relay_commanded === true}
        run=${() => put('/relay', { state: true })} onOk=${flip({ relay_commanded: true })}>Close (on)<//>
      <${Act} act=${act} name="relay" data-action="relay-off" what="Relay off" pressed=${row.relay_commanded === false}
        run=${() => put('/relay', { state: false })} onOk=${flip({ relay_commanded: false })}>Open (off)<//></span>
    <//>
    <${Group} title="Mode" act=${act} acts=${['mode']}>
      <select aria-label="mode" value=${row.mode} disabled=${act.busy('mode')}
        onChange=${(e) => {
          const mode = e.currentTarget.value;
          act.run('mode', 'Mode', () => put('/mode', { mode }), flip({ mode }));
        }}>
        ${['prepaid', 'postpaid', 'measurement', 'relay_off'].map((m) => html`<option value=${m}>${m}</option>`)}
      </select>
    <//>
    <${Group} title="Tariffs (paise/kWh)" act=${act} acts=${['tariff-eb', 'tariff-dg', 'tariff-active']}>
      <label>EB <input type="number" min="0" value=${eb} onInput=${(e) => setEb(num(e))} /></label>
      <${Act} act=${act} name="tariff-eb" what="EB tariff" run=${() => put('/tariffs/eb', { tariff: eb })} onOk=${flip({ eb_tariff: eb })}>Set<//>
      <label>DG <input type="number" min="0" value=${dg} onInput=${(e) => setDg(num(e))} /></label>
      <${Act} act=${act} name="tariff-dg" what="DG tariff" run=${() => put('/tariffs/dg', { tariff: dg })} onOk=${flip({ dg_tariff: dg })}>Set<//>
      <span class="split">Active: <span class="pills toggle">
        <${Act} act=${act} name="tariff-active" what="Active tariff EB" pressed=${row.active_tariff === 1}
          run=${() => put('/tariffs/active', { active_tariff: 1 })} onOk=${flip({ active_tariff: 1 })}>EB<//>
        <${Act} act=${act} name="tariff-active" what="Active tariff DG" pressed=${row.active_tariff === 2}
          run=${() => put('/tariffs/active', { active_tariff: 2 })} onOk=${flip({ active_tariff: 2 })}>DG<//></span></span>
    <//>
    <${Group} title="Payment gateway" act=${act} acts=${['gateway']}>
      <span class="pills toggle">
      <${Act} act=${act} name="gateway" what="Gateway on" pressed=${pgOn === undefined ? undefined : pgOn === true}
        run=${() => put('/payments/gateway', { state: true })} onOk=${() => setGateway(true)}>Enable<//>
      <${Act} act=${act} name="gateway" what="Gateway off" pressed=${pgOn === undefined ? undefined : pgOn === false}
        run=${() => put('/payments/gateway', { state: false })} onOk=${() => setGateway(false)}>Disable<//></span>
    <//>
    <${Group} title="WiFi" act=${act} acts=${['wifi', 'read-wifi', 'button']}>
      <input aria-label="ssid" placeholder="SSID" value=${ssid} onInput=${(e) => setSsid(e.currentTarget.value)} />
      <input aria-label="wifi password" placeholder="password" value=${pass} onInput=${(e) => setPass(e.currentTarget.value)} />
      <${Act} act=${act} name="wifi" what="WiFi" run=${() => v2(acct, 'POST', `/devices/${encodeURIComponent(id)}/wifi`, { ssid, password: pass })}>Set<//>
      <${Act} act=${act} name="read-wifi" what="Read WiFi" run=${readWifi}>Read<//>
      ${wifi ? html`<span class="muted">${wifi.ssid} (${wifi.type}, ${wifi.rssi} dBm)</span>` : null}
      ${
        virtual
          ? html`<span class="split">Button hold <input type="number" min="0" max="600" value=${hold} onInput=${(e) => setHold(num(e))} /> s
        <${Act} act=${act} name="button" what="Button" run=${() => simPost('/button', { hold_seconds: hold })}>Press<//></span>`
          : null
      }
    <//>
    ${
      virtual
        ? html`
    <${Group} title="Recharge (₹)" act=${act} acts=${['recharge']}>
      <input type="number" aria-label="recharge amount" min="1" value=${amount} disabled=${act.busy('recharge')}
        onInput=${(e) => reviseIntent(rechargeKey, { amount: num(e) })} />
      <input aria-label="transaction id" class="txid" value=${recharge.id} disabled=${act.busy('recharge')}
        onInput=${(e) => reviseIntent(rechargeKey, { id: e.currentTarget.value })} />
      <${Act} act=${act} name="recharge" data-action="recharge" what=${`Recharge ${rupees(paise)} (${recharge.id})`}
        run=${() => rechargeOnce(paise, recharge.id)}>Recharge<//>
      <button type="button" class="ghost" data-action="new-transaction" disabled=${act.busy('recharge')}
        title="another recharge: a new transaction id (the same id is never credited twice)"
        onClick=${() => reviseIntent(rechargeKey)}>new id</button>
    <//>
    <${Group} title="Load" act=${act} acts=${['load']}>
      <select aria-label="load profile" value=${profile} onChange=${(e) => {
        loadEdited.current = true;
        setProfile(e.currentTarget.value);
      }}>
        <option value="constant">constant</option><option value="household">household</option>
      </select>
      <input type="number" aria-label="load watts" min="0" value=${loadW} onInput=${(e) => {
        loadEdited.current = true;
        setLoadW(num(e));
      }} /> W
      <${Act} act=${act} name="load" what="Load" run=${() => simPost('/load', { watts: loadW, profile })}>Set<//>
    <//>
    <${Group} title="Power supply" act=${act} acts=${['online']}>
      <span class="pills toggle">
      <${Act} act=${act} name="online" data-action="plug" what="Online" pressed=${row.plugged === true}
        run=${() => simPost('/online', { online: true })} onOk=${flip({ plugged: true })}>Plug in (online)<//>
      <${Act} act=${act} name="online" data-action="unplug" what="Offline" pressed=${row.plugged === false}
        run=${() => simPost('/online', { online: false })} onOk=${flip({ plugged: false })}>Unplug (offline)<//></span>
    <//>`
        : html`<p class="muted">An external meter: recharge, load, button and power supply are the meter's own.</p>`
    }
  </div>`;
}
