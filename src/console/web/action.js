// How every control that acts (a button, a select, a form) acts: one user intent, one request
// [CON-1], and a money intent carries one transaction id [CON-2] (src/console/README.md, Rules).
//
// What is in flight is kept here, by key, outside any component: a meter panel that re-mounts (another
// meter opened and this one again) or a second view of the same meter sees the same request running, and a
// second event in the same frame is refused before Preact has re-rendered the control as disabled.

import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { refreshSoon } from './live.js';

/** Keys of the actions in flight. */
const running = new Set();
/** Per intent key: the intent under way, {id, ...what the person entered}. */
const intents = new Map();
const listeners = new Set();
const changed = () => {
  for (const f of listeners) f();
};

/** Re-renders the caller when an action starts or ends, or an intent changes. */
export function useRunning() {
  const [, bump] = useState(0);
  useEffect(() => {
    const f = () => bump((n) => n + 1);
    listeners.add(f);
    return () => listeners.delete(f);
  }, []);
}

export const isRunning = (key) => running.has(key);

/** Runs `f` under `key` unless an action of that key is in flight; then it answers null and sends nothing. */
export async function runOnce(key, f) {
  if (running.has(key)) return null;
  running.add(key);
  changed();
  try {
    return await f();
  } finally {
    running.delete(key);
    changed();
  }
}

/** A fresh id for the recharge body's `transaction_id` (`^[A-Za-z0-9_.:-]{1,64}$`). */
export function newTransactionId() {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return `console-${Date.now().toString(36)}-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * [CON-2] The intent `key` (e.g. a recharge of one meter): its transaction id and what the person
 * entered. The id is made when the intent begins and kept, through the request, its answer and any
 * repeat of it, until the person begins another (`reviseIntent`: another amount, an id they typed, a
 * new id asked for, the meter opened again). A repeated submit of one intent is then a duplicate the
 * ledger does not count again [LEDGER-1], however fast or slow the service answered.
 */
export function intent(key) {
  let i = intents.get(key);
  if (i === undefined) {
    i = { id: newTransactionId() };
    intents.set(key, i);
  }
  return i;
}

/** Another intent: a new id unless `patch` brings the person's own. */
export function reviseIntent(key, patch = {}) {
  intents.set(key, { ...intents.get(key), id: newTransactionId(), ...patch });
  changed();
}

/**
 * The actions of one panel (`scope`, e.g. a device id): `run(name, what, f, onOk)` runs `f` once per
 * intent under `scope:name` and keeps its outcome, in words, tagged with `name`, so the panel shows it
 * beside the control that asked (`outcomeOf(names)`), not in a line of its own far below
 * [spec-decisions 191]; `onOk(r)` flips what the control shows as soon as the service said yes, before
 * the meter's next report. `busy(name)` says whether it is in flight (its control is then disabled).
 */
export function useAction(scope, onDone) {
  useRunning();
  const [status, setStatus] = useState(null);
  const busy = (name) => running.has(`${scope}:${name}`);
  const run = (name, what, f, onOk) =>
    runOnce(`${scope}:${name}`, async () => {
      setStatus({ name, busy: true, text: `${what}…` });
      const r = await f();
      setStatus(
        r.ok
          ? { name, ok: true, text: `${what}: ${r.json?.message ?? 'done'}` }
          : { name, ok: false, text: `${what} failed: ${r.message}` },
      );
      if (r.ok) onOk?.(r);
      refreshSoon();
      onDone?.(r);
      return r;
    });
  /** An onSubmit handler: the form's submit acts once, never reloading the page. */
  const submit = (name, what, f) => (e) => {
    e.preventDefault();
    run(name, what, f);
  };
  /** The newest outcome when it came from one of `names` (the controls of one group), else null. */
  const outcomeOf = (names) => (status && names.includes(status.name) ? status : null);
  return { status, run, busy, submit, outcomeOf };
}

/**
 * A button that acts [CON-1] [CON-3]: `type="button"` (it never submits a form it sits in); while its
 * action is in flight it is `aria-disabled` and ignores clicks (it keeps the keyboard focus, which a
 * `disabled` button loses: Enter on it again is the same intent, not a lost keystroke); the second and
 * third click of a double or triple click (one gesture: `detail` > 1) are not new intents.
 */
export function ActButton({ busy, onAct, children, ...attrs }) {
  return html`<button type="button" ...${attrs} aria-disabled=${busy ? 'true' : null} aria-busy=${busy ? 'true' : null}
    onClick=${(e) => {
      if (busy || e.detail > 1) return;
      onAct();
    }}>${children}</button>`;
}

/**
 * An ActButton running `run` as the action `name` of `act` (useAction); `onOk` as in `run`. `pressed`
 * (true/false) makes it one side of a toggle: it shows which state the meter is in.
 */
export function Act({ act, name, what, run, onOk, pressed, children, ...attrs }) {
  const toggle = pressed === undefined ? {} : { 'aria-pressed': String(pressed), class: pressed ? 'on' : '' };
  return html`<${ActButton} ...${attrs} ...${toggle} busy=${act.busy(name)} onAct=${() => act.run(name, what, run, onOk)}>${children}<//>`;
}
