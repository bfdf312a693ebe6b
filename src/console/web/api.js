// The console's only way to the service: the public /sim/v1 (admin token) and /api/v2 (an account's
// API key) over fetch [STYLE 12]. Every answer comes back as a tagged result, never a throw:
//   { ok: true, data } | { ok: false, status, code, message }
// status 0 means the service could not be reached.

import { forgetKeys, heldKey, heldKeys, holdKey } from './keystore.js';

const TOKEN = 'meterstack.console.token';
/** [CON-4] A console key's life on the wall clock, and how long before its end another is minted. */
export const KEY_TTL_SECONDS = 3600;
const RENEW_MS = 10 * 60_000;

export const session = {
  token: () => sessionStorage.getItem(TOKEN),
  setToken: (t) => (t ? sessionStorage.setItem(TOKEN, t) : sessionStorage.removeItem(TOKEN)),
};

/** Listeners told whether the service answered (true) or could not be reached (false). */
const reachListeners = new Set();
/** Listeners told the admin token was refused. */
const authListeners = new Set();
export function onReach(f) {
  reachListeners.add(f);
  return () => reachListeners.delete(f);
}
export function onAuthFailed(f) {
  authListeners.add(f);
  return () => authListeners.delete(f);
}

function reached(ok) {
  for (const f of reachListeners) f(ok);
}

/** Words for an error envelope: the message, plus each validation item's location. */
export function describeError(body, status) {
  const err = body?.error;
  if (!err) return `HTTP ${status}`;
  if (Array.isArray(err.detail)) {
    const items = err.detail.map((d) => `${(d.loc ?? []).filter((l) => l !== 'body').join('.')}: ${d.msg}`);
    return `${err.code}: ${items.join('; ')}`;
  }
  return `${err.code}: ${typeof err.detail === 'string' ? err.detail : (body.message ?? '')}`;
}

/** One HTTP call; `headers` carries the credential. */
export async function call(method, path, body, headers = {}) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    reached(false);
    return { ok: false, status: 0, code: 'unreachable', message: 'the service cannot be reached' };
  }
  reached(true);
  let json = null;
  try {
    json = await res.json();
  } catch {
    // not JSON: a proxy error page or an empty body
  }
  if (res.ok && json?.success !== false) return { ok: true, status: res.status, data: json?.data, json };
  return {
    ok: false,
    status: res.status,
    code: json?.error?.code ?? `http_${res.status}`,
    message: describeError(json, res.status),
  };
}

/** /sim/v1 with the admin token; a 401 tells the auth listeners (the console asks again). */
export async function sim(method, path, body) {
  const r = await call(method, `/sim/v1${path}`, body, { 'x-admin-token': session.token() ?? '' });
  if (!r.ok && r.status === 401) for (const f of authListeners) f(r);
  return r;
}

/**
 * A file from /sim/v1 (history.csv, HX-1): `{ok: true, blob, filename}` (the name from its
 * Content-Disposition, else `fallback`), or the refusal in words as `call` gives it.
 */
export async function simFile(path, fallback) {
  let res;
  try {
    res = await fetch(`/sim/v1${path}`, { headers: { 'x-admin-token': session.token() ?? '' } });
  } catch {
    reached(false);
    return { ok: false, status: 0, code: 'unreachable', message: 'the service cannot be reached' };
  }
  reached(true);
  if (!res.ok) {
    const json = await res.json().catch(() => null);
    if (res.status === 401) for (const f of authListeners) f({ status: 401 });
    return {
      ok: false,
      status: res.status,
      code: json?.error?.code,
      message: describeError(json, res.status),
    };
  }
  const named = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '');
  return { ok: true, blob: await res.blob(), filename: named?.[1] ?? fallback };
}

/** This tab's mint of a key per account, under way: concurrent first uses wait for the one mint. */
const minting = new Map();

/** How long a tab waits for the mint lock, and holds it at most (ms): a mint is one request. */
const LOCK_WAIT_MS = 5000;
const LOCK_HOLD_MS = 5000;
const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `f` under the lock `name` across tabs, where the browser has Web Locks (a secure context: localhost,
 * https); else this tab only. Never a wait without end [CON-4]: a lock not had in LOCK_WAIT_MS (its
 * holder stuck) is done without, and a holder lets go after LOCK_HOLD_MS even if `f` is still under
 * way (its caller still gets what `f` gives). At worst a second key is minted, never a hang.
 */
async function locked(name, f) {
  if (!navigator.locks) return f();
  let work = null;
  try {
    await navigator.locks.request(name, { signal: AbortSignal.timeout(LOCK_WAIT_MS) }, () => {
      work = f();
      return Promise.race([work.catch(() => {}), delay(LOCK_HOLD_MS)]);
    });
  } catch {
    // not had in time (AbortSignal's TimeoutError), or refused: this tab goes on alone
  }
  return work ?? f();
}

/**
 * [CON-4] The console's key for an account: one per account for all tabs of this origin, minted with a
 * wall-clock life of KEY_TTL_SECONDS (a virtual clock advance does not end it), reused until 10 min
 * before its end, then replaced and the old one revoked. `refused`: a key the service just refused.
 * Tagged result: {ok: true, key} or the failed mint.
 */
async function consoleKey(accountId, refused) {
  const fresh = (h) => h && h.key !== refused && h.until - Date.now() > RENEW_MS;
  const held = await heldKey(accountId);
  if (fresh(held)) return { ok: true, key: held.key };
  let p = minting.get(accountId);
  if (!p) {
    p = locked(`meterstack.console.key.${accountId}`, async () => {
      const now = await heldKey(accountId); // another tab may have minted it meanwhile
      if (fresh(now)) return { ok: true, key: now.key };
      const minted = await sim('POST', `/accounts/${accountId}/keys`, { ttl_seconds: KEY_TTL_SECONDS });
      if (!minted.ok) return minted;
      const key = minted.data.api_key;
      await holdKey(accountId, { key, until: Date.now() + KEY_TTL_SECONDS * 1000 });
      // Replaced before its end: one valid console key per account, not two.
      if (now && now.key !== refused) revokeKey(now.key);
      return { ok: true, key };
    }).finally(() => minting.delete(accountId));
    minting.set(accountId, p);
  }
  return p;
}

const revokeKey = (key) => sim('DELETE', `/keys/${encodeURIComponent(key)}`);

/**
 * /api/v2 as the device's account, with the console's key for it (spec-decisions 61, 135). A key the
 * service refuses (revoked at a logout in another tab, or a service started afresh) is replaced, once:
 * a refused request changed nothing (spec-decisions 50), so sending it again is safe.
 */
export async function v2(accountId, method, path, body) {
  let refused;
  for (let attempt = 0; attempt < 2; attempt++) {
    const k = await consoleKey(accountId, refused);
    if (!k.ok) return k;
    const r = await call(method, `/api/v2${path}`, body, { 'x-service-api-key': k.key });
    if (r.status !== 401) return r;
    refused = k.key;
    if (attempt > 0) return r;
  }
}

/** [CON-4] Logging out revokes the console's keys, then forgets them and the admin token. */
export async function logout() {
  const held = await heldKeys();
  await Promise.all(held.map((h) => revokeKey(h.key)));
  await forgetKeys();
  session.setToken(null);
}
