// The console's shell: the admin token (asked once per browser session), the unreachable banner,
// the clock bar, the theme toggle and the tabs (Fleet with its meter panel, Events, Provision).

import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { isRunning, runOnce, useRunning } from './action.js';
import { call, logout as endSession, onAuthFailed, onReach, session } from './api.js';
import { Clock } from './clock.js';
import { Events } from './events.js';
import { Fleet } from './fleet.js';
import { follow, pollFleet, refreshClock, refreshFleet } from './live.js';
import { Meter } from './meter.js';
import { Provision } from './provision.js';
import { parseRoute, routeHash } from './route.js';

const THEME = 'meterstack.console.theme';

function TokenPrompt({ message, onToken }) {
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(message);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    // Any admin route tells whether the token is right; the clock is the cheapest.
    const r = await call('GET', '/sim/v1/clock', undefined, { 'x-admin-token': value });
    setBusy(false);
    if (r.ok) return onToken(value);
    setError(
      r.status === 401
        ? 'That admin token was refused. Use the one `meterstack serve` printed (or METERSTACK_ADMIN_TOKEN).'
        : `The service did not accept it: ${r.message}`,
    );
  };
  return html`<form class="token card" onSubmit=${submit}>
    <h2>meterstack console</h2>
    <p>Paste the admin token: this console can do what <code>/sim/v1</code> can. It is kept for this browser tab only.</p>
    <input type="password" name="token" aria-label="admin token" autocomplete="off" autofocus value=${value}
      onInput=${(e) => setValue(e.currentTarget.value)} />
    <button type="submit" disabled=${busy || !value}>Open</button>
    ${error ? html`<p class="bad" role="alert" data-token-error>${error}</p>` : null}
  </form>`;
}

function ThemeToggle() {
  const [theme, setTheme] = useState(localStorage.getItem(THEME) ?? '');
  useEffect(() => {
    if (theme) document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  }, [theme]);
  const dark = theme ? theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  const flip = () => {
    const next = dark ? 'light' : 'dark';
    localStorage.setItem(THEME, next);
    setTheme(next);
  };
  return html`<button type="button" class="ghost" aria-label="toggle theme" title="light / dark" onClick=${flip}>${dark ? '☀' : '☾'}</button>`;
}

function Banner() {
  const [down, setDown] = useState(false);
  useEffect(() => onReach((ok) => setDown(!ok)), []);
  if (!down) return null;
  return html`<div class="banner" role="alert" data-unreachable>
    The service cannot be reached. Is <code>meterstack serve</code> running? Retrying every second…
  </div>`;
}

const TABS = ['Fleet', 'Events', 'Provision'];

function Console({ onLogout }) {
  useRunning();
  // [spec-decisions 190] The URL is the place: a meter's page reloads and can be shared, and the back
  // button goes where the person was.
  const [place, setPlace] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setPlace(parseRoute(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const { tab, meter } = place;
  useEffect(() => {
    const stop = new AbortController();
    refreshFleet();
    refreshClock();
    follow(session.token(), stop.signal);
    pollFleet(stop.signal);
    return () => stop.abort();
  }, []);
  const go = (next) => {
    const hash = routeHash(next);
    if (location.hash !== hash)
      location.hash = hash; // hashchange then sets the place
    else setPlace(next);
  };
  const setMeter = (id) => go({ tab: 'Fleet', meter: id });
  return html`<div class="app">
    <header class="top">
      <b class="brand">meterstack</b>
      <nav>${TABS.map((t) => html`<button type="button" class=${t === tab ? 'on' : ''} onClick=${() => go({ tab: t, meter: t === 'Fleet' ? meter : null })}>${t}</button>`)}</nav>
      <${Clock} />
      <span class="grow"></span>
      <a href="/docs" target="_blank" class="muted">API docs</a>
      <${ThemeToggle} />
      <button type="button" class="ghost" data-action="logout" disabled=${isRunning('logout')}
        onClick=${onLogout} title="revoke this console's API keys and forget the admin token">Log out</button>
    </header>
    <main class=${meter && tab === 'Fleet' ? 'with-meter' : ''}>
      ${tab === 'Fleet' ? html`<${Fleet} onOpen=${setMeter} selected=${meter} />` : null}
      ${tab === 'Fleet' && meter ? html`<${Meter} id=${meter} onClose=${() => go({ tab: 'Fleet', meter: null })} />` : null}
      ${tab === 'Events' ? html`<${Events} />` : null}
      ${tab === 'Provision' ? html`<${Provision} />` : null}
    </main>
  </div>`;
}

function App() {
  const [token, setToken] = useState(session.token());
  const [message, setMessage] = useState(null);
  useEffect(
    () =>
      onAuthFailed(() => {
        session.setToken(null);
        setMessage(
          'The admin token is no longer accepted (was the service restarted with another?). Paste it again.',
        );
        setToken(null);
      }),
    [],
  );
  const accept = (t) => {
    session.setToken(t);
    setMessage(null);
    setToken(t);
  };
  const logout = () =>
    runOnce('logout', async () => {
      await endSession();
      setToken(null);
    });
  return html`<${Banner} />${token ? html`<${Console} onLogout=${logout} />` : html`<${TokenPrompt} message=${message} onToken=${accept} />`}`;
}

render(html`<${App} />`, document.getElementById('app'));
