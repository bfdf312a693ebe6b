// The console's API keys, one per account, for every tab of this origin [CON-4]: account id ->
// {key, until}. IndexedDB, not localStorage: a tab that takes the mint lock after another tab minted
// must read what that tab wrote, and Chromium gives each tab its own copy of localStorage, updated
// later (two tabs minted two keys in a test); IndexedDB's transactions are one store for all tabs.

const DB = 'meterstack.console';
const STORE = 'keys';

let opened = null;
function db() {
  opened ??= new Promise((resolve, reject) => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => r.result.createObjectStore(STORE);
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  return opened;
}

/** One transaction on the store: `f(store)` makes a request; its result once the transaction committed. */
async function transact(mode, f) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const t = d.transaction(STORE, mode);
    const request = f(t.objectStore(STORE));
    t.oncomplete = () => resolve(request.result);
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error);
  });
}

/** Where IndexedDB cannot be opened (storage disabled): this tab's memory, one key per account still. */
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
