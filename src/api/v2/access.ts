// Who may see what: an API key sees only its own account's spaces and devices (spec §5).

import type { FastifyRequest } from 'fastify';
import { ApiError, WRONG_CREDENTIAL } from '../../http/errors.ts';
import type { Account, AtOnce, DeviceRecord, Space, Store } from '../../store/types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account;
  }
}

export const API_KEY_HEADER = 'x-service-api-key';

/**
 * Authenticates one request, callback style (an onRequest hook's `done`): `request.account` set and
 * `done()`, or `done(refusal)`. A key the store knows at once (Store.accountForApiKeyNow: SQLite, or a
 * key in PostgreSQL's cache) is answered in this call, with no promise: every v2 request comes here,
 * and a promise and its microtask were a measurable share of a cached GET (issue 19 step 7).
 */
export function authenticate(
  request: FastifyRequest,
  store: Store,
  now: number,
  done: (err?: Error) => void,
): void {
  const key = request.headers[API_KEY_HEADER];
  if (typeof key !== 'string' || key === '') {
    done(new ApiError('authentication_error'));
    return;
  }
  // Both expiries: the virtual one (spec-decisions 34) and the wall clock's (a console key, CON-4).
  const wallNow = Date.now();
  const known = store.accountForApiKeyNow(key, now, wallNow);
  if (known !== undefined) accept(request, known, done);
  else
    store
      .accountForApiKey(key, now, wallNow)
      .then(
        (account) => accept(request, account, done),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      )
      // `done` runs the rest of the request (hooks, handler) on this stack; whatever throws there is
      // past authentication and must not come back as an unhandled rejection (which ends the process).
      // Fastify catches a throw from a synchronous `done`; here it is ours to report.
      .catch((err: unknown) => request.log.error({ err }, 'the request failed after authentication'));
}

function accept(request: FastifyRequest, account: Account | null, done: (err?: Error) => void): void {
  // A key was sent: say so, rather than "send a key" (issue 20 item 10).
  if (account) {
    request.account = account;
    done();
  } else {
    done(new ApiError('authentication_error', WRONG_CREDENTIAL.authentication_error));
  }
}

/** `f` of `value`, at once when `value` is no promise: a cached read stays free of promises. */
export function andThen<T, R>(value: AtOnce<T>, f: (v: T) => AtOnce<R>): AtOnce<R> {
  // Any thenable, as fastify tells a promise: a store may hand back a promise of another realm or library.
  return isThenable(value) ? Promise.resolve(value).then(f) : f(value);
}

function isThenable<T>(value: AtOnce<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The account's space, or not_your_space (also for a space that does not exist: no probing). */
export async function ownSpace(store: Store, account: Account, spaceId: number): Promise<Space> {
  return ownSpaceNow(store, account, spaceId);
}

/** ownSpace, at once when the store answers at once (Store.getSpaceNow). */
export function ownSpaceNow(store: Store, account: Account, spaceId: number): AtOnce<Space> {
  return andThen(store.getSpaceNow(spaceId), (space) => {
    if (!space || space.accountId !== account.id) throw new ApiError('not_your_space');
    return space;
  });
}

/** The account's device in a space: device_not_found (400) or device_not_in_space (417) otherwise. */
export async function ownDevice(store: Store, account: Account, deviceId: string): Promise<DeviceRecord> {
  return ownDeviceNow(store, account, deviceId);
}

/** ownDevice, at once when the store answers at once (Store.getDeviceNow). */
export function ownDeviceNow(store: Store, account: Account, deviceId: string): AtOnce<DeviceRecord> {
  return andThen(store.getDeviceNow(deviceId), (device) => {
    if (!device || device.accountId !== account.id) throw new ApiError('device_not_found');
    if (device.spaceId === null) throw new ApiError('device_not_in_space');
    return device;
  });
}
