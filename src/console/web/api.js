// The console's only way to the service: the public /sim/v1 (admin token) and /api/v2 (an account's
// API key) over fetch [STYLE 12]. Every answer comes back as a tagged result, never a throw:
//   { ok: true, data } | { ok: false, status, code, message }
// status 0 means the service could not be reached.

const TOKEN = 'meterstack.console.token';
const KEYS = 'meterstack.console.keys';

export const session = {
  token: () => sessionStorage.getItem(TOKEN),
  setToken: (t) => (t ? sessionStorage.setItem(TOKEN, t) : sessionStorage.removeItem(TOKEN)),
  /** account id -> API key minted for this browser session */
  keys: () => JSON.parse(sessionStorage.getItem(KEYS) ?? '{}'),
  setKey(accountId, key) {
    const k = session.keys();
    if (key) k[accountId] = key;
    else delete k[accountId];
    sessionStorage.setItem(KEYS, JSON.stringify(k));
  },
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
 * /api/v2 as the device's account. The admin token mints one key per account on first use and the
 * session keeps it (spec-decisions 61); a key the service no longer knows is minted again, once.
 */
export async function v2(accountId, method, path, body) {
  for (let attempt = 0; attempt < 2; attempt++) {
    let key = session.keys()[accountId];
    if (!key) {
      const minted = await sim('POST', `/accounts/${accountId}/keys`, {});
      if (!minted.ok) return minted;
      key = minted.data.api_key;
      session.setKey(accountId, key);
    }
    const r = await call(method, `/api/v2${path}`, body, { 'x-service-api-key': key });
    if (r.status !== 401 || attempt > 0) return r;
    session.setKey(accountId, null);
  }
}
