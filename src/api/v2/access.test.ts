// authenticate()'s promise path (a key the store must look up, as PostgreSQL before its cache holds
// it): the request goes on from a promise's callback, so a throw further down the request must be
// reported, never left as an unhandled rejection, which ends the process (review finding).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite/sqlite-store.ts';
import type { Store } from '../../store/types.ts';
import { API_KEY_HEADER, authenticate } from './access.ts';

const KEY = 'msk_access_test_key';

describe('authenticate, a key looked up through a promise', () => {
  let dir: string;
  let sqlite: SqliteStore;
  /** The real SQLite store, answering only through the promise (accountForApiKeyNow: "needs I/O"). */
  let store: Store;
  let failing: Store;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  let app: FastifyInstance | null = null;
  const logged: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meterstack-access-'));
    sqlite = openSqliteStore({ path: join(dir, 'store.db') });
    const account = await sqlite.createAccount('acme', 0);
    await sqlite.addApiKey(account.id, KEY, null, 0);
    store = {
      accountForApiKeyNow: () => undefined,
      accountForApiKey: (key: string, now: number, wallNow?: number) =>
        sqlite.accountForApiKey(key, now, wallNow),
    } as unknown as Store;
    failing = {
      accountForApiKeyNow: () => undefined,
      accountForApiKey: () => Promise.reject(new Error('the database is gone')),
    } as unknown as Store;
    process.on('unhandledRejection', onRejection);
  });

  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await app?.close();
    app = null;
    logged.length = 0;
    rejections.length = 0;
  });

  /** An app whose onRequest hook authenticates against `s`; `after` runs once `done` has returned. */
  function appWith(s: Store, after: () => void): FastifyInstance {
    const a = fastify({ logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } } });
    a.decorateRequest('account');
    a.addHook('onRequest', (request, _reply, done) =>
      authenticate(request, s, 0, (err) => {
        done(err);
        after();
      }),
    );
    a.get('/', async (request) => ({ account: request.account.name }));
    return a;
  }

  /** A few turns of the loop: an unhandled rejection is reported by then. */
  const settle = async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };

  it('accepts a known key through the promise and sets request.account', async () => {
    app = appWith(store, () => undefined);
    const res = await app.inject({ url: '/', headers: { [API_KEY_HEADER]: KEY } });
    expect(res.json()).toEqual({ account: 'acme' });
  });

  it('a throw after an accepted key is logged, not an unhandled rejection', async () => {
    app = appWith(store, () => {
      throw new Error('a later step threw');
    });
    const res = await app.inject({ url: '/', headers: { [API_KEY_HEADER]: KEY } });
    expect(res.statusCode).toBe(200);
    await settle();
    expect(rejections).toEqual([]);
    expect(logged.join('')).toContain('a later step threw');
  });

  it("a throw after the store's failure was handed to done is logged, not an unhandled rejection", async () => {
    app = appWith(failing, () => {
      throw new Error('a later step threw');
    });
    const res = await app.inject({ url: '/', headers: { [API_KEY_HEADER]: KEY } });
    expect(res.statusCode).toBe(500);
    await settle();
    expect(rejections).toEqual([]);
    expect(logged.join('')).toContain('a later step threw');
  });
});
