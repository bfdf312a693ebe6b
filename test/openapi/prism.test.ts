// The API's own traffic checked against its OpenAPI document by a third-party validator: Stoplight
// Prism's proxy (issue 10 item 1) sits between these requests and a running service and reports in
// `sl-violations` every way a request or a response breaks GET /openapi.json. The traffic covers
// every v2 endpoint's success, each error kind a client can cause (401, 400 codes, 413, 414, 415, 417,
// 422, 429) and the main /sim/v1 routes (201, 404, 409, 422). No response may break the document;
// a request sent as valid must not either (bad requests are expected to, and are answered anyway).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrismProxy, startPrismProxy, violationsOf } from '../helpers/prism.ts';
import {
  ADMIN_TOKEN,
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { ROUTES, type Tenant, tenant } from '../helpers/v2.ts';

const RATE_LIMIT = 60;

let t: TestService;
let prism: PrismProxy;
let tmp: ReturnType<typeof tempDir>;
let a: Tenant;
let other: Tenant;
let offline: string;
let spaceless: string;
let limitedKey: string;
let today: string;

beforeAll(async () => {
  t = await startTestService({ speed: 0, rateLimit: RATE_LIMIT });
  tmp = tempDir('meterstack-prism-');
  const doc = join(tmp.dir, 'openapi.json');
  writeFileSync(doc, await (await fetch(`${t.svc.httpUrl}/openapi.json`)).text());
  [prism, a, other] = await Promise.all([
    startPrismProxy(doc, t.svc.httpUrl),
    tenant(t.sim, { model: 'full', backfill_days: 1 }),
    tenant(t.sim),
  ]);
  offline = (await provision(t.sim, { account_id: a.accountId, space_id: a.spaceId, online: false }))
    .device_id;
  spaceless = (await provision(t.sim, { account_id: a.accountId })).device_id;
  limitedKey = (await newAccount(t.sim)).api_key;
  today = ok(await t.sim<{ now: string }>('GET', '/clock')).now.slice(0, 10);
}, 60_000);

afterAll(async () => {
  await prism?.stop();
  await t?.close();
  tmp?.remove();
});

interface Call {
  what: string;
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  path: string;
  status: number;
  /** The request itself follows the document (else only the response is held to it). */
  valid?: boolean;
  body?: unknown;
  raw?: string;
  contentType?: string;
  /** API key (v2) or admin token (sim): default a's key for /api, the admin token for /sim. */
  auth?: string | null;
}

interface Outcome {
  call: Call;
  status: number;
  contentType: string | null;
  code?: string;
  violations: ReturnType<typeof violationsOf>;
}

async function send(call: Call): Promise<Outcome> {
  const headers: Record<string, string> = {};
  const sim = call.path.startsWith('/sim/');
  const auth = call.auth === undefined ? (sim ? ADMIN_TOKEN : a.key) : call.auth;
  if (auth !== null) headers[sim ? 'x-admin-token' : 'x-service-api-key'] = auth;
  const body = call.raw ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  if (body !== undefined) headers['content-type'] = call.contentType ?? 'application/json';
  const res = await fetch(`${prism.url}${call.path}`, { method: call.method, headers, body });
  const text = await res.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code: string } }).error?.code;
  } catch {}
  return {
    call,
    status: res.status,
    contentType: res.headers.get('content-type'),
    code,
    violations: violationsOf(res.headers),
  };
}

const v2 = (p: string) => `/api/v2${p}`;

function v2Traffic(): Call[] {
  const ids = { space: a.spaceId, dev: a.deviceId };
  const ok200: Call[] = ROUTES.map((r) => ({
    what: `endpoint ${r.n}`,
    method: r.method,
    path: v2(r.path(ids)),
    body: r.body,
    status: 200,
    valid: true,
  }));
  const dev = (d: string, rest = '') => v2(`/devices/${d}/${rest}`);
  return [
    ...ok200,
    {
      what: 'history today at 15m (the interval in progress)',
      method: 'GET',
      path: `${dev(a.deviceId, 'metrics/history')}?property_id=energy&from_date=${today}&to_date=${today}&interval=15m`,
      status: 200,
      valid: true,
    },
    { what: 'no key', method: 'GET', path: v2('/spaces/'), auth: null, status: 401 },
    {
      what: 'unknown key',
      method: 'GET',
      path: dev(a.deviceId),
      auth: 'msk_nobody',
      status: 401,
      valid: true,
    },
    { what: 'unknown device', method: 'GET', path: dev('NO-SUCH'), status: 400, valid: true },
    {
      what: "another account's space",
      method: 'GET',
      path: v2(`/spaces/${other.spaceId}/`),
      status: 400,
      valid: true,
    },
    {
      what: "another account's device",
      method: 'PUT',
      path: dev(other.deviceId, 'relay'),
      body: { state: false },
      status: 400,
      valid: true,
    },
    {
      what: 'offline: relay',
      method: 'PUT',
      path: dev(offline, 'relay'),
      body: { state: true },
      status: 400,
      valid: true,
    },
    { what: 'offline: metrics', method: 'GET', path: dev(offline, 'metrics'), status: 400, valid: true },
    { what: 'offline: wifi', method: 'GET', path: dev(offline, 'wifi'), status: 400, valid: true },
    { what: 'device in no space', method: 'GET', path: dev(spaceless), status: 417, valid: true },
    {
      what: 'relay state a string',
      method: 'PUT',
      path: dev(a.deviceId, 'relay'),
      body: { state: 'on' },
      status: 422,
    },
    {
      what: 'mode not in the enum',
      method: 'PUT',
      path: dev(a.deviceId, 'mode'),
      body: { mode: 'free' },
      status: 422,
    },
    {
      what: 'ssid of 33 characters',
      method: 'POST',
      path: dev(a.deviceId, 'wifi'),
      body: { ssid: 's'.repeat(33), password: 'x' },
      status: 422,
    },
    { what: 'space_id not a number', method: 'GET', path: v2('/spaces/abc/'), status: 422 },
    {
      what: 'unknown property_id',
      method: 'GET',
      path: `${dev(a.deviceId, 'metrics/history')}?property_id=frequency&from_date=${today}&to_date=${today}`,
      status: 422,
    },
    {
      what: 'a bad date',
      method: 'GET',
      path: `${dev(a.deviceId, 'metrics/history')}?property_id=energy&from_date=2026-1-5&to_date=${today}`,
      status: 422,
    },
    // (Malformed JSON is not here: Prism parses the body itself and answers 400 before forwarding;
    // test/api/validation.test.ts covers the service's 422.)
    {
      what: 'a text/plain body',
      method: 'PUT',
      path: dev(a.deviceId, 'relay'),
      raw: 'true',
      contentType: 'text/plain',
      status: 415,
    },
    {
      what: 'a 70 KiB body',
      method: 'PUT',
      path: dev(a.deviceId),
      body: { name: 'x'.repeat(70_000) },
      status: 413,
    },
    { what: 'a device id over the router limit', method: 'GET', path: dev('D'.repeat(120)), status: 414 },
  ];
}

function simTraffic(deviceId: string, keyToRevoke: string): Call[] {
  const sim = (p: string) => `/sim/v1${p}`;
  return [
    {
      what: 'create account',
      method: 'POST',
      path: sim('/accounts'),
      body: { name: 'prism' },
      status: 200,
      valid: true,
    },
    {
      what: 'create key',
      method: 'POST',
      path: sim(`/accounts/${a.accountId}/keys`),
      body: {},
      status: 200,
      valid: true,
    },
    {
      what: 'create space',
      method: 'POST',
      path: sim('/spaces'),
      body: { account_id: a.accountId, name: 'P' },
      status: 200,
      valid: true,
    },
    {
      what: 'create device',
      method: 'POST',
      path: sim('/devices'),
      body: { account_id: a.accountId, space_id: a.spaceId },
      status: 201,
      valid: true,
    },
    {
      what: 'create external device',
      method: 'POST',
      path: sim('/devices'),
      body: { account_id: a.accountId, device_id: 'EXT-P1', external: true },
      status: 201,
      valid: true,
    },
    { what: 'get device', method: 'GET', path: sim(`/devices/${deviceId}`), status: 200, valid: true },
    { what: 'list devices', method: 'GET', path: sim('/devices'), status: 200, valid: true },
    {
      what: 'online',
      method: 'POST',
      path: sim(`/devices/${deviceId}/online`),
      body: { online: true },
      status: 200,
      valid: true,
    },
    {
      what: 'recharge',
      method: 'POST',
      path: sim(`/devices/${deviceId}/recharge`),
      body: { amount: 50_000, transaction_id: 'tx-p1' },
      status: 200,
      valid: true,
    },
    {
      what: 'load',
      method: 'POST',
      path: sim(`/devices/${deviceId}/load`),
      body: { watts: 900 },
      status: 200,
      valid: true,
    },
    {
      what: 'button',
      method: 'POST',
      path: sim(`/devices/${deviceId}/button`),
      body: { hold_seconds: 1 },
      status: 200,
      valid: true,
    },
    {
      what: 'advance',
      method: 'POST',
      path: sim('/clock/advance'),
      body: { seconds: 60 },
      status: 200,
      valid: true,
    },
    { what: 'clock', method: 'GET', path: sim('/clock'), status: 200, valid: true },
    { what: 'ledger', method: 'GET', path: sim('/ledger'), status: 200, valid: true },
    { what: 'backfills', method: 'GET', path: sim('/backfills'), status: 200, valid: true },
    { what: 'fleet', method: 'GET', path: sim('/fleet'), status: 200, valid: true },
    { what: 'journal', method: 'GET', path: sim('/events?limit=5'), status: 200, valid: true },
    { what: 'revoke key', method: 'DELETE', path: sim(`/keys/${keyToRevoke}`), status: 200, valid: true },
    { what: 'no admin token', method: 'GET', path: sim('/clock'), auth: null, status: 401 },
    {
      what: 'unknown meter',
      method: 'POST',
      path: sim('/devices/NO-SUCH/load'),
      body: { watts: 1 },
      status: 404,
      valid: true,
    },
    {
      what: 'external meter',
      method: 'POST',
      path: sim('/devices/EXT-P1/online'),
      body: { online: false },
      status: 409,
      valid: true,
    },
    {
      what: 'recharge of 0',
      method: 'POST',
      path: sim(`/devices/${deviceId}/recharge`),
      body: { amount: 0, transaction_id: 't' },
      status: 422,
    },
  ];
}

function report(bad: Outcome[]): string {
  return bad
    .map(
      (o) =>
        `${o.call.what}: ${o.call.method} ${o.call.path.slice(0, 80)} → ${o.status} ${o.code ?? ''}\n  ${JSON.stringify(o.violations)}`,
    )
    .join('\n');
}

function check(outcomes: Outcome[]): void {
  const wrongStatus = outcomes.filter((o) => o.status !== o.call.status);
  expect(
    wrongStatus.map((o) => `${o.call.what}: ${o.status} ${o.code}`),
    'the traffic did what it meant to',
  ).toEqual([]);
  // Prism's own answers are application/problem+json: every answer here must be the service's.
  expect(
    outcomes.filter((o) => !o.contentType?.startsWith('application/json')).map((o) => o.call.what),
  ).toEqual([]);
  const broken = outcomes.filter((o) => o.violations.some((v) => v.location[0] === 'response'));
  expect(broken.length, `responses that break the document:\n${report(broken)}`).toBe(0);
  const validBroken = outcomes.filter((o) => o.call.valid && o.violations.length > 0);
  expect(validBroken.length, `valid requests Prism flagged:\n${report(validBroken)}`).toBe(0);
}

describe('the API traffic through Prism against GET /openapi.json', () => {
  it('v2: every endpoint and every error kind, 0 response violations', async () => {
    const outcomes: Outcome[] = [];
    for (const call of v2Traffic()) outcomes.push(await send(call));
    check(outcomes);
    // The bad requests were seen as bad by Prism too: the document says what the service refuses.
    const flagged = outcomes.filter((o) => !o.call.valid && o.status >= 400 && o.violations.length > 0);
    expect(flagged.length).toBeGreaterThan(5);
  });

  it('v2: 429 with RateLimit-* and Retry-After as documented', async () => {
    const direct = { headers: { 'x-service-api-key': limitedKey } };
    for (let i = 0; i < RATE_LIMIT; i++) await fetch(`${t.svc.httpUrl}/api/v2/spaces/`, direct);
    const o = await send({
      what: 'over the limit',
      method: 'GET',
      path: v2('/spaces/'),
      auth: limitedKey,
      status: 429,
      valid: true,
    });
    check([o]);
  });

  it('/sim/v1: the main routes, 201 for a new device, 401/404/409/422', async () => {
    const spare = ok(await t.sim<{ api_key: string }>('POST', `/accounts/${a.accountId}/keys`, {})).api_key;
    const outcomes: Outcome[] = [];
    for (const call of simTraffic(a.deviceId, spare)) outcomes.push(await send(call));
    check(outcomes);
  });
});
