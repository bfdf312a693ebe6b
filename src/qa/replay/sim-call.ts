// A /sim/v1 call made by a replay, and the error that says what the service answered.

import type { Target } from './target.ts';

export class TargetError extends Error {
  /** The HTTP status the service answered, when it answered. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  success: boolean;
  data: T;
  error?: { code: string; detail: unknown };
}

/** One /sim/v1 call; throws a TargetError with the service's error code and detail. */
export async function simCall<T>(target: Target, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${target.httpUrl}/sim/v1${path}`, {
      method,
      headers: {
        'x-admin-token': target.adminToken,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new TargetError(`cannot reach ${target.httpUrl}: ${(err as Error).message}`);
  }
  const env = (await res.json().catch(() => null)) as Envelope<T> | null;
  if (!env?.success) {
    const e = env?.error;
    throw new TargetError(
      `${method} /sim/v1${path}: ${res.status} ${e ? `${e.code}: ${JSON.stringify(e.detail)}` : ''}`,
      res.status,
    );
  }
  return env.data;
}
