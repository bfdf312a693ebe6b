// The OpenAPI 3 document (GET /openapi.json) describes all 15 v2 operations and the /sim/v1 API,
// generated from the same zod schemas that validate requests; Swagger UI is served at /docs. What a
// client generator relies on is pinned here (issue 10 item 1): operationIds, the named component
// schemas, the statuses and headers each route declares, `servers`. test/openapi/ lints the document
// and checks real traffic against it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/http/errors.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
});
afterAll(() => t.close());

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content?: Record<string, { schema: Record<string, unknown>; examples?: Record<string, unknown> }>;
    }
  >;
  parameters?: { name: string; in: string; required?: boolean; schema?: { enum?: string[] } }[];
  requestBody?: {
    content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }>;
  };
  security?: Record<string, unknown>[];
}
type Doc = {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in: string; name: string }>;
    schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }>;
  };
};

/** The spec's 15 operations and their operationIds: a generated client's method names. */
const V2_OPERATION_IDS: Record<string, string> = {
  'get /api/v2/spaces/': 'listSpaces',
  'get /api/v2/spaces/{space_id}/': 'getSpace',
  'put /api/v2/spaces/{space_id}/': 'updateSpace',
  'get /api/v2/devices/{device_id}/': 'getDevice',
  'get /api/v2/devices/{device_id}/metrics': 'getDeviceMetrics',
  'put /api/v2/devices/{device_id}/': 'updateDevice',
  'put /api/v2/devices/{device_id}/relay': 'setRelay',
  'put /api/v2/devices/{device_id}/mode': 'setMode',
  'put /api/v2/devices/{device_id}/tariffs/eb': 'setEbTariff',
  'put /api/v2/devices/{device_id}/tariffs/dg': 'setDgTariff',
  'put /api/v2/devices/{device_id}/tariffs/active': 'setActiveTariff',
  'get /api/v2/devices/{device_id}/metrics/history': 'getDeviceHistory',
  'get /api/v2/devices/{device_id}/wifi': 'getWifi',
  'post /api/v2/devices/{device_id}/wifi': 'setWifi',
  'put /api/v2/devices/{device_id}/payments/gateway': 'setPaymentGateway',
};
const V2_OPERATIONS = Object.keys(V2_OPERATION_IDS);
const NAMED_SCHEMAS = [
  'Space',
  'DeviceSummary',
  'Device',
  'Reading',
  'Metrics',
  'HistoricalReading',
  'WifiStatus',
  'Error',
  'ValidationItem',
];

describe('GET /openapi.json', () => {
  let doc: Doc;
  beforeAll(async () => {
    const res = await fetch(`${t.svc.httpUrl}/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });
  const operations = (prefix: string) =>
    Object.entries(doc.paths)
      .filter(([path]) => path.startsWith(prefix))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));

  it('is OpenAPI 3 and documents exactly the 15 operations of /api/v2', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(operations('/api/v2/').sort()).toEqual([...V2_OPERATIONS].sort());
  });

  it('every v2 operation requires the X-Service-API-Key header', () => {
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-API-Key',
    });
    for (const op of V2_OPERATIONS) {
      const [method, path] = op.split(' ') as [string, string];
      expect(doc.paths[path]![method]!.security, op).toEqual([{ apiKey: [] }]);
    }
  });

  it('carries the request schemas: history query parameters, and bodies with their limits', () => {
    const history = doc.paths['/api/v2/devices/{device_id}/metrics/history']!.get!;
    const query = Object.fromEntries(
      (history.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.required ?? false]),
    );
    expect(query).toEqual({ property_id: true, from_date: true, to_date: true, interval: false });
    const wifi =
      doc.paths['/api/v2/devices/{device_id}/wifi']!.post!.requestBody!.content['application/json']!.schema;
    expect(wifi.properties).toMatchObject({
      ssid: { type: 'string', maxLength: 32 },
      password: { maxLength: 64 },
    });
    expect(wifi.required?.sort()).toEqual(['password', 'ssid']);
    const mode =
      doc.paths['/api/v2/devices/{device_id}/mode']!.put!.requestBody!.content['application/json']!.schema;
    expect(mode.properties).toMatchObject({
      mode: { enum: ['prepaid', 'postpaid', 'measurement', 'relay_off'] },
    });
  });

  it('documents the simulation control API under /sim/v1', () => {
    const sim = operations('/sim/v1/');
    for (const op of [
      'post /sim/v1/accounts',
      'post /sim/v1/accounts/{account_id}/keys',
      'delete /sim/v1/keys/{api_key}',
      'post /sim/v1/spaces',
      'post /sim/v1/devices',
      'get /sim/v1/devices/{device_id}',
      'post /sim/v1/devices/{device_id}/online',
      'post /sim/v1/devices/{device_id}/recharge',
      'post /sim/v1/devices/{device_id}/button',
      'post /sim/v1/devices/{device_id}/replace',
      'post /sim/v1/clock/advance',
    ]) {
      expect(sim).toContain(op);
    }
  });
});

describe('GET /openapi.json: what a client generator relies on', () => {
  let doc: Doc;
  beforeAll(async () => {
    doc = (await (await fetch(`${t.svc.httpUrl}/openapi.json`)).json()) as Doc;
  });
  const op = (key: string) => {
    const [method, path] = key.split(' ') as [string, string];
    return doc.paths[path]![method]!;
  };
  const all = () =>
    Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops).map(([m, o]) => ({ key: `${m} ${p}`, o })),
    );

  it('every v2 operation has its pinned operationId; every operation a unique one and a summary', () => {
    for (const [key, id] of Object.entries(V2_OPERATION_IDS)) expect(op(key).operationId, key).toBe(id);
    const ops = all();
    expect(ops.filter(({ o }) => !o.operationId || !o.summary).map(({ key }) => key)).toEqual([]);
    const ids = ops.map(({ o }) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  });

  it("names the spec's shapes as component schemas, and the responses refer to them", () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(expect.arrayContaining(NAMED_SCHEMAS));
    const dataOf = (key: string) =>
      (op(key).responses['200']!.content!['application/json']!.schema.properties as Record<string, unknown>)
        .data;
    expect(dataOf('get /api/v2/spaces/')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Space' },
    });
    expect(dataOf('get /api/v2/devices/{device_id}/')).toEqual({ $ref: '#/components/schemas/Device' });
    expect(dataOf('get /api/v2/devices/{device_id}/metrics')).toEqual({
      $ref: '#/components/schemas/Metrics',
    });
    expect(dataOf('get /api/v2/devices/{device_id}/wifi')).toEqual({
      $ref: '#/components/schemas/WifiStatus',
    });
  });

  it('Error.code is the one error list, enumerated', () => {
    expect(doc.components.schemas.Error!.properties!.code!.enum!.sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it('declares the statuses each route answers, 429 with RateLimit-* and Retry-After', () => {
    const statuses = (key: string) => Object.keys(op(key).responses).sort();
    expect(statuses('get /api/v2/spaces/')).toEqual(['200', '401', '429', '500']);
    expect(statuses('put /api/v2/devices/{device_id}/relay')).toEqual(
      ['200', '400', '401', '413', '414', '415', '417', '422', '429', '500'].sort(),
    );
    expect(Object.keys(op('get /api/v2/spaces/').responses['429']!.headers ?? {}).sort()).toEqual(
      ['RateLimit-Limit', 'RateLimit-Policy', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'].sort(),
    );
    expect(statuses('post /sim/v1/devices')).toContain('201');
    expect(statuses('post /sim/v1/devices')).not.toContain('200');
    expect(statuses('post /sim/v1/devices/{device_id}/online')).toEqual(
      expect.arrayContaining(['404', '409']),
    );
  });

  it('servers is the URL the document was fetched from; property_id is an enum; history explains the interval in progress', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: t.svc.httpUrl })]);
    const history = op('get /api/v2/devices/{device_id}/metrics/history');
    expect(history.parameters!.find((p) => p.name === 'property_id')!.schema!.enum).toContain('active_power');
    expect(history.description).toMatch(/interval in progress/i);
  });

  it('examples come from the demo world', () => {
    const example = op('get /api/v2/devices/{device_id}/').responses['200']!.content!['application/json']!
      .examples!;
    expect(JSON.stringify(example)).toContain('MTR-A101');
  });
});

describe('both slash forms (spec-decisions 66)', () => {
  it('each documented v2 path answers the same with one trailing slash added or removed', async () => {
    const acc = await t.sim<{ api_key: string }>('POST', '/accounts', { name: 'slash' });
    const key = acc.body.data.api_key;
    for (const path of ['/api/v2/spaces/', '/api/v2/devices/NOPE/', '/api/v2/devices/NOPE/metrics']) {
      const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
      const [a, b] = await Promise.all(
        [path, other].map((p) => fetch(`${t.svc.httpUrl}${p}`, { headers: { 'x-service-api-key': key } })),
      );
      const [ja, jb] = (await Promise.all([a!.json(), b!.json()])) as { success: boolean; error?: unknown }[];
      expect({ status: b!.status, error: jb!.error }, other).toEqual({ status: a!.status, error: ja!.error });
      expect(a!.status, path).not.toBe(404);
    }
  });
});

describe('GET /docs', () => {
  it('serves Swagger UI', async () => {
    const res = await fetch(`${t.svc.httpUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/swagger-ui/i);
  });
});
