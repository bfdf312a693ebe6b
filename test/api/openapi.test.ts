// The OpenAPI 3 document (GET /openapi.json) describes all 15 v2 operations and the /sim/v1 API,
// generated from the same zod schemas that validate requests; Swagger UI is served at /docs.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
});
afterAll(() => t.close());

interface Operation {
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: {
    content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }>;
  };
  security?: Record<string, unknown>[];
}
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
};

const V2_OPERATIONS = [
  'get /api/v2/spaces/',
  'get /api/v2/spaces/{space_id}/',
  'put /api/v2/spaces/{space_id}/',
  'get /api/v2/devices/{device_id}/',
  'get /api/v2/devices/{device_id}/metrics',
  'put /api/v2/devices/{device_id}/',
  'put /api/v2/devices/{device_id}/relay',
  'put /api/v2/devices/{device_id}/mode',
  'put /api/v2/devices/{device_id}/tariffs/eb',
  'put /api/v2/devices/{device_id}/tariffs/dg',
  'put /api/v2/devices/{device_id}/tariffs/active',
  'get /api/v2/devices/{device_id}/metrics/history',
  'get /api/v2/devices/{device_id}/wifi',
  'post /api/v2/devices/{device_id}/wifi',
  'put /api/v2/devices/{device_id}/payments/gateway',
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
      'post /sim/v1/clock/advance',
    ]) {
      expect(sim).toContain(op);
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
