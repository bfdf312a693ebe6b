// GET /readyz's judgement (issue 22 §2, PM-7): each check a process gives (the store answers, the broker
// connected, the world lease held or a world reachable, migrations done) runs at once, each bounded by
// a timeout, so a hung store makes the answer "not ready" within a second instead of no answer. Pure but
// for running the checks; the route is in ops-routes.ts.

/** One thing a ready process needs; resolves to null when it holds, or why it does not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<string | null> | string | null;
}

export interface Readiness {
  ready: boolean;
  /** Each check's name → 'ok' or why not. */
  checks: Record<string, string>;
}

/** How long one check may take before it counts as not ready. */
export const CHECK_TIMEOUT_MS = 1000;

export async function judgeReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<Readiness> {
  const results = await Promise.all(checks.map((c) => runOne(c, timeoutMs)));
  const out: Record<string, string> = {};
  checks.forEach((c, i) => {
    out[c.name] = results[i] ?? 'ok';
  });
  return { ready: results.every((r) => r === null), checks: out };
}

async function runOne(c: ReadinessCheck, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => c.check()), late]);
  } catch (err) {
    // /readyz answers anyone a load balancer lets through: an error's text can name a database host,
    // user or path, so only its code goes out (ECONNREFUSED, 28P01, SQLITE_BUSY...).
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(code) ? `failed (${code})` : 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/** The 503's detail: what is not ready, in one sentence. */
export function notReadyDetail(r: Readiness): string {
  const failing = Object.entries(r.checks).filter(([, v]) => v !== 'ok');
  return `Not ready: ${failing.map(([name, why]) => `${name} (${why})`).join('; ')}.`;
}
