// The console's API keys, one per account, for every tab of this origin [CON-4]: account id ->
// {key, until}. IndexedDB, not localStorage: a tab that takes the mint lock after another tab minted
// must read what that tab wrote, and Chromium gives each tab its own copy of localStorage, updated
// later (two tabs minted two keys in a test); IndexedDB's transactions are one store for all tabs.
//
// The console never waits on it without end [CON-4]: an open can be queued forever (behind another
// tab's upgrade or deleteDatabase that a connection never closed blocks), and a transaction's promise
// is pending until the browser ends it. Every open and transaction is bounded by STORE_WAIT_MS; past
// it, this tab's memory answers (one key per account still, for this tab), and the store is tried
// again after STORE_RETRY_MS. Our own connection closes when another asks for a version change, so
// it never blocks another tab's.

const DB = 'meterstack.console';
const STORE = 'keys';
/** Far above an open or a transaction on a loaded machine (milliseconds), far below a person's patience. */
const STORE_WAIT_MS = 3000;
const STORE_RETRY_MS = 30_000;

const timedOut = (what) =>
  new DOMException(`the console's key store did not answer ${what} in time`, 'TimeoutError');

let opened = null;
let retryAt = 0;
function db() {
  if (opened) return opened;
  if (Date.now() < retryAt) return Promise.reject(timedOut('lately'));
  opened = new Promise((resolve, reject) => {
    const fail = (e) => {
      clearTimeout(timer);
      opened = null;
      retryAt = Date.now() + STORE_RETRY_MS;
      reject(e);
    };
    const timer = setTimeout(() => fail(timedOut('its open')), STORE_WAIT_MS);
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => r.result.createObjectStore(STORE);
    // Blocked: our upgrade waits on another tab's connection; the timer decides, not the wait.
    r.onblocked = () => {};
    r.onerror = () => fail(r.error);
    r.onsuccess = () => {
      const d = r.result;
      const forget = () => {
        if (opened === mine) opened = null;
      };
      // Another tab's upgrade or deleteDatabase: step aside (the next use opens again).
      d.onversionchange = () => {
        d.close();
        forget();
      };
      d.onclose = forget;
      if (opened !== mine) return d.close(); // answered after the timer gave up on it: not used
      clearTimeout(timer);
      resolve(d);
    };
  });
  const mine = opened;
  return opened;
}

/** One transaction on the store: `f(store)` makes a request; its result once the transaction committed. */
async function transact(mode, f) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const t = d.transaction(STORE, mode);
    const timer = setTimeout(() => {
      try {
        t.abort();
      } catch {
        // already finished
      }
      reject(timedOut('a transaction'));
    }, STORE_WAIT_MS);
    const request = f(t.objectStore(STORE));
    t.oncomplete = () => {
      clearTimeout(timer);
      resolve(request.result);
    };
    t.onerror = () => {
      clearTimeout(timer);
      reject(t.error);
    };
    t.onabort = () => {
      clearTimeout(timer);
      reject(t.error ?? timedOut('a transaction'));
    };
  });
}

/** Where IndexedDB cannot be opened or does not answer: this tab's memory, one key per account still. */
const memory = new Map();
const fallback = {
  get: (id) => memory.get(id),
  put: (held, id) => memory.set(id, held),
  getAll: () => [...memory.values()],
  clear: () => memory.clear(),
};
async function use(mode, f) {
  try {
    return await transact(mode, f);
  } catch {
    return f({
      get: (id) => ({ result: fallback.get(id) }),
      put: (held, id) => ({ result: fallback.put(held, id) }),
      getAll: () => ({ result: fallback.getAll() }),
      clear: () => ({ result: fallback.clear() }),
    }).result;
  }
}

/** The key held for an account: {key, until} (until: ms on this browser's clock), or undefined. */
export const heldKey = (accountId) => use('readonly', (s) => s.get(Number(accountId)));
export const holdKey = (accountId, held) => use('readwrite', (s) => s.put(held, Number(accountId)));
export const heldKeys = () => use('readonly', (s) => s.getAll());
export const forgetKeys = () => use('readwrite', (s) => s.clear());
