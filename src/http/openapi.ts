// The OpenAPI document's frame: info, tags, security schemes, and what the route schemas cannot say
// themselves. The routes give operationIds, summaries, request schemas and their responses; the zod
// schemas named with `.meta({ id })` become components.schemas (fastify-type-provider-zod's
// transformObject, which makes an `…Input` twin of each: the unused ones are dropped here).
// `servers` is the URL the client reached, so a generated client or Swagger UI works as served.

import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

const DESCRIPTION = `The Energy Metering Service v2 API under \`/api/v2\` (header \`X-Service-API-Key\`), as its
specification defines it, and the simulation control API under \`/sim/v1\` (header \`X-Admin-Token\`).

Every answer is the envelope \`{success, data | error, message?, timestamp}\`; \`error.code\` is one of
the \`Error\` schema's codes and decides the HTTP status. Money is in paise, times are +05:30.
The v2 API allows 100 requests per minute per key (\`429\` with \`Retry-After\`).

Paths are documented as the specification writes them (\`/api/v2/spaces/\` with its slash,
\`/api/v2/devices/{device_id}/metrics\` without). The other form (one trailing slash added or removed)
is answered the same way (spec-decisions 66).`;

export const swaggerOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'meterstack: Energy Metering Service v2 API and simulation control',
      version: '2.0.0',
      description: DESCRIPTION,
    },
    tags: [
      { name: 'spaces', description: 'Spaces and their device summaries (endpoints 1-3)' },
      { name: 'devices', description: 'Device records, live metrics, metadata (endpoints 4-6)' },
      { name: 'control', description: 'Relay, mode, tariffs, payment gateway (endpoints 7-11, 15)' },
      { name: 'history', description: 'Historical readings (endpoint 12)' },
      { name: 'wifi', description: 'WiFi status and primary network (endpoints 13-14)' },
      {
        name: 'simulation',
        description: 'Not the spec: the virtual world (accounts, meters, clock, events)',
      },
      {
        name: 'operations',
        description: 'Not the spec: liveness, readiness and Prometheus metrics, for operators',
      },
    ],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Service-API-Key' },
        adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token' },
        // GET /metrics also takes the admin token as Prometheus sends it (PM-3).
        adminBearer: { type: 'http', scheme: 'bearer', description: 'the admin token' },
      },
    },
  },
  transform: jsonSchemaTransform,
  transformObject: (documentObject) => withoutUnusedSchemas(jsonSchemaTransformObject(documentObject)),
};

type Doc = ReturnType<typeof jsonSchemaTransformObject>;

/** Drops component schemas nothing refers to (the `…Input` twins of response-only schemas). */
function withoutUnusedSchemas(transformed: Doc): Doc {
  const doc = transformed as { components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas ?? {};
  const used = new Set<string>();
  const visit = (text: string) => {
    for (const m of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = m[1] as string;
      if (used.has(name)) continue;
      used.add(name);
      visit(JSON.stringify(schemas[name] ?? null));
    }
  };
  visit(JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } }));
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...doc, components: { ...doc.components, schemas: kept } } as Doc;
}

// A Host header is the client's to write: only a plain host[:port] is put in the document.
const HOST = /^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?$/;

/** The document as served to this request: `servers` is the URL it reached. */
export function documentFor<T extends object>(
  doc: T,
  request: FastifyRequest,
): T & { servers: { url: string; description: string }[] } {
  const host = request.host;
  const url = HOST.test(host) ? `${request.protocol}://${host}` : '/';
  return { ...doc, servers: [{ url, description: 'this meterstack' }] };
}
