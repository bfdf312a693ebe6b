// Provision: an account (its API key shown once), a space, a device. For an external device, the
// exact command lines that connect a meter to it over a serial pair, with its credentials; the same
// lines on the meter's page (ConnectLines).

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { isRunning, runOnce, useRunning } from './action.js';
import { sim } from './api.js';
import { useLive } from './hooks.js';
import { live, refreshFleet } from './live.js';

/** Accounts created in this session that have no device yet (the fleet lists only those with one). */
const created = [];

function accountsKnown() {
  const all = [...live.accounts];
  for (const a of created) if (!all.some((b) => b.account_id === a.account_id)) all.push(a);
  return all;
}

/**
 * The shell commands for an external device: a serial pair, the meter on one end, the bridge on the
 * other. `npx meterstack`: what runs in the checkout (or project) where the service runs, with or
 * without a global install [spec-decisions 195].
 */
export function commandLines(device, model, mode, balance) {
  const { url, username, password } = device.mqtt;
  const a = `/tmp/${device.device_id}-meter`;
  const b = `/tmp/${device.device_id}-bridge`;
  return [
    `socat -d -d pty,raw,echo=0,link=${a} pty,raw,echo=0,link=${b} &`,
    `npx meterstack meter --serial ${a} --device ${device.device_id} --model ${model} --mode ${mode} --balance ${balance} &`,
    `npx meterstack bridge --serial ${b} --broker ${url} --username ${username} --password '${password}'`,
  ];
}

/**
 * What this page provisioned, by device id: the password (the service shows it once and keeps only
 * its hash), the mode and the opening balance, so the meter's page can repeat the exact lines. Kept
 * in this page's memory only, never stored.
 */
const provisioned = new Map();
const PASSWORD_PLACEHOLDER = '<the password shown when it was provisioned>';

/** [spec-decisions 195] The connect lines on an external meter's page; open while it never connected. */
export function ConnectLines({ row, mqttUrl }) {
  const mine = provisioned.get(row.device_id);
  const device = {
    device_id: row.device_id,
    mqtt: {
      url: mqttUrl ?? '<the MQTT URL the service printed>',
      username: row.device_id,
      password: mine?.password ?? PASSWORD_PLACEHOLDER,
    },
  };
  const lines = commandLines(device, row.model, mine?.mode ?? 'prepaid', mine?.balance ?? 50_000);
  return html`<details class="card connect" open=${row.heard === false} data-connect>
    <summary><h3>Connect a serial meter</h3></summary>
    <pre class="cmd" data-commands>${lines.join('\n')}</pre><${Copy} text=${lines.join('\n')} />
    ${mine ? null : html`<p class="muted small">The password is shown once, when the device is provisioned; the service keeps only its hash.</p>`}
  </details>`;
}

/** [CON-3] `type="button"`: inside a form, a button without a type submits it (and creates another). */
function Copy({ text }) {
  const [done, setDone] = useState(false);
  return html`<button type="button" class="ghost" data-copy onClick=${async () => {
    await navigator.clipboard?.writeText(text).catch(() => {});
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  }}>${done ? 'copied' : 'copy'}</button>`;
}

function Result({ r }) {
  if (!r) return null;
  if (!r.ok) return html`<p class="bad" role="alert">${r.message}</p>`;
  return html`<div class="result">${r.view}</div>`;
}

/**
 * [CON-1] A form that creates something: its submit runs once at a time (the submit button is disabled
 * meanwhile, and a second Enter or click is dropped), and never reloads the page.
 */
const creating = (name, f) => (e) => {
  e.preventDefault();
  runOnce(`provision:${name}`, f);
};
const Submit = ({ name, children }) =>
  html`<button type="submit" disabled=${isRunning(`provision:${name}`)}>${children}</button>`;

export function Provision() {
  useLive();
  useRunning();
  const accounts = accountsKnown();
  const [acctName, setAcctName] = useState('');
  const [acctRes, setAcctRes] = useState(null);
  const [space, setSpace] = useState({ account: '', name: '' });
  const [spaceRes, setSpaceRes] = useState(null);
  const [dev, setDev] = useState({
    account: '',
    space: '',
    device_id: '',
    name: '',
    model: 'full',
    mode: 'prepaid',
    balance: 500,
    external: false,
  });
  const [devRes, setDevRes] = useState(null);
  const spacesOf = (id) => accounts.find((a) => a.account_id === Number(id))?.spaces ?? [];

  // The account's first key is the person's, shown once to copy: the console keeps none of it and
  // mints its own short-lived key when it acts for the account [CON-4].
  const createAccount = creating('account', async () => {
    const r = await sim('POST', '/accounts', { name: acctName });
    if (r.ok) created.push({ account_id: r.data.account_id, name: r.data.name, spaces: [] });
    setAcctRes(
      r.ok
        ? {
            ok: true,
            view: html`Account <b>#${r.data.account_id}</b> ${r.data.name}; its API key (shown once): <code>${r.data.api_key}</code> <${Copy} text=${r.data.api_key} />`,
          }
        : r,
    );
  });
  const createSpace = creating('space', async () => {
    const r = await sim('POST', '/spaces', { account_id: Number(space.account), name: space.name });
    if (r.ok) {
      const a = created.find((c) => c.account_id === r.data.account_id);
      a?.spaces.push({ space_id: r.data.space_id, name: r.data.name });
      await refreshFleet();
    }
    setSpaceRes(r.ok ? { ok: true, view: html`Space <b>#${r.data.space_id}</b> ${r.data.name}` } : r);
  });
  const createDevice = creating('device', async () => {
    const body = {
      account_id: Number(dev.account),
      space_id: dev.space ? Number(dev.space) : null,
      model: dev.model,
      external: dev.external,
      ...(dev.device_id ? { device_id: dev.device_id } : {}),
      ...(dev.name ? { name: dev.name } : {}),
      ...(dev.external ? {} : { mode: dev.mode, balance: Math.round(dev.balance * 100) }),
    };
    const r = await sim('POST', '/devices', body);
    await refreshFleet();
    if (!r.ok) return setDevRes(r);
    const d = r.data;
    const lines = commandLines(d, dev.model, dev.mode, Math.round(dev.balance * 100));
    if (d.kind === 'external')
      provisioned.set(d.device_id, {
        password: d.mqtt.password,
        mode: dev.mode,
        balance: Math.round(dev.balance * 100),
      });
    setDevRes({
      ok: true,
      view: html`<p>Device <a href=${`#/meter/${encodeURIComponent(d.device_id)}`} data-open-meter><b>${d.device_id}</b></a> (${d.kind}) created. MQTT: <code>${d.mqtt.url}</code>, username${' '}<code>${d.mqtt.username}</code>,
        password <code>${d.mqtt.password}</code> (shown once).</p>
        ${
          d.kind === 'external'
            ? html`<p>Run a serial meter and bridge it to this service:</p>
          <pre class="cmd" data-commands>${lines.join('\n')}</pre><${Copy} text=${lines.join('\n')} />`
            : null
        }`,
    });
  });
  const setD = (k) => (e) =>
    setDev({
      ...dev,
      [k]: e.currentTarget.type === 'checkbox' ? e.currentTarget.checked : e.currentTarget.value,
    });
  const acctOptions = html`<option value="">account…</option>${accounts.map((a) => html`<option value=${a.account_id}>${a.name} (#${a.account_id})</option>`)}`;

  return html`<section class="provision">
    <form class="card" onSubmit=${createAccount}><h3>Account</h3>
      <input aria-label="account name" placeholder="name" value=${acctName} onInput=${(e) => setAcctName(e.currentTarget.value)} />
      <${Submit} name="account">Create account<//><${Result} r=${acctRes} /></form>
    <form class="card" onSubmit=${createSpace}><h3>Space</h3>
      <select aria-label="space account" value=${space.account} onChange=${(e) => setSpace({ ...space, account: e.currentTarget.value })}>${acctOptions}</select>
      <input aria-label="space name" placeholder="name" value=${space.name} onInput=${(e) => setSpace({ ...space, name: e.currentTarget.value })} />
      <${Submit} name="space">Create space<//><${Result} r=${spaceRes} /></form>
    <form class="card" onSubmit=${createDevice}><h3>Device</h3>
      <div class="form-grid">
        <select aria-label="device account" value=${dev.account} onChange=${(e) => setDev({ ...dev, account: e.currentTarget.value, space: '' })}>${acctOptions}</select>
        <select aria-label="device space" value=${dev.space} onChange=${setD('space')}>
          <option value="">no space</option>${spacesOf(dev.account).map((s) => html`<option value=${s.space_id}>${s.name}</option>`)}
        </select>
        <input aria-label="device id" placeholder="device id (optional)" value=${dev.device_id} onInput=${setD('device_id')} />
        <input aria-label="device name" placeholder="name (optional)" value=${dev.name} onInput=${setD('name')} />
        <select aria-label="model" value=${dev.model} onChange=${setD('model')}><option>full</option><option>basic</option></select>
        <select aria-label="device mode" value=${dev.mode} onChange=${setD('mode')}>
          ${['prepaid', 'postpaid', 'measurement', 'relay_off'].map((m) => html`<option>${m}</option>`)}</select>
        <label>opening ₹ <input type="number" aria-label="opening balance" value=${dev.balance} onInput=${setD('balance')} /></label>
        <label><input type="checkbox" aria-label="external" checked=${dev.external} onChange=${setD('external')} /> external (a bridged or real meter)</label>
      </div>
      <${Submit} name="device">Create device<//><${Result} r=${devRes} /></form>
  </section>`;
}
