// The virtual clock: now in IST (extrapolated between reads at its speed), its speed, and jumps.

import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ActButton, isRunning, runOnce, useRunning } from './action.js';
import { sim } from './api.js';
import { istDateTime } from './format.js';
import { useEvery } from './hooks.js';
import { live, refreshClock, refreshSoon, virtualNow } from './live.js';

const PRESETS = [
  ['+1 h', 3600],
  ['+1 d', 86_400],
  ['+7 d', 7 * 86_400],
  ['+30 d', 30 * 86_400],
];

export function Clock() {
  const [, tick] = useState(0);
  const [msg, setMsg] = useState(null);
  const [speed, setSpeed] = useState('');
  useEvery(1000, () => tick((n) => n + 1));
  useEvery(5000, refreshClock);
  // [CON-1] One clock operation at a time: an advance clicked twice would bill twice the time.
  useRunning();
  const busy = isRunning('clock');
  const advance = (label, seconds) =>
    runOnce('clock', async () => {
      setMsg({ text: `advancing ${label}…` });
      const r = await sim('POST', '/clock/advance', { seconds });
      setMsg(r.ok ? null : { bad: true, text: `advance failed: ${r.message}` });
      await refreshClock();
      refreshSoon();
    });
  const setClockSpeed = (e) => {
    e.preventDefault();
    return runOnce('clock', () => changeSpeed());
  };
  const changeSpeed = async () => {
    const r = await sim('POST', '/clock/speed', { speed: Number(speed) });
    setMsg(
      r.ok
        ? null
        : {
            bad: true,
            text: r.status === 404 ? 'this service cannot change the clock speed' : `speed: ${r.message}`,
          },
    );
    setSpeed('');
    await refreshClock();
  };
  return html`<div class="clock">
    <span class="now" data-clock>${istDateTime(virtualNow())}</span>
    <form onSubmit=${setClockSpeed} class="speed">
      <label class="muted">speed × <input type="number" min="0" step="any" aria-label="clock speed" placeholder=${live.clock?.speed ?? ''}
        value=${speed} disabled=${busy} onInput=${(e) => setSpeed(e.currentTarget.value)} /></label>
    </form>
    ${PRESETS.map(
      ([label, s]) =>
        // Disabled outright while any clock operation runs (not only aria-disabled): nothing about them
        // looks clickable until the world's time is settled [spec-decisions 196].
        html`<${ActButton} data-advance=${s} busy=${busy} disabled=${busy}
          title=${busy ? 'the clock is busy: wait for it to finish' : `advance the world's clock ${label}`}
          onAct=${() => advance(label, s)}>${label}<//>`,
    )}
    <span class=${`clock-msg ${msg?.bad ? 'bad' : 'muted'}`} role="status" title=${msg?.text ?? ''}>${msg?.text ?? ''}</span>
  </div>`;
}
