// Requests for the HTTP fuzz test, generated with fast-check from the service's own OpenAPI document: for
// each operation, valid path parameters, query parameters and JSON bodies drawn from its schemas, and
// hostile mutations of each part (wrong types, huge numbers, NaN-ish strings, lone surrogates, emoji, deep
// nesting, extra fields, over-long strings, malformed %-encoding, wrong content types and keys).

import fc from 'fast-check';
import { isWellFormed } from './fuzz-config.ts';

export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  nullable?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  pattern?: string;
  format?: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI path, e.g. `/api/v2/devices/{device_id}/relay`. */
  path: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  /** Which credential the operation takes. */
  auth: 'apiKey' | 'admin';
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        security?: Record<string, unknown>[];
      }
    >
  >;
}

export function operationsOf(doc: unknown): Operation[] {
  return Object.entries((doc as OpenApiDoc).paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      parameters: op.parameters ?? [],
      body: op.requestBody?.content['application/json']?.schema ?? null,
      auth: op.security?.some((s) => 'adminToken' in s) ? ('admin' as const) : ('apiKey' as const),
    })),
  );
}

/** Values the fixture owns, so valid requests reach real objects: the tenant's, the other tenant's, none. */
export interface Pools {
  /**
   * Values for a parameter or field by name (device_id, space_id, account_id, api_key, transaction_id);
   * `own_<name>` and `other_<name>` list which of them belong to the key's tenant and to the other one.
   */
  byName: Record<string, readonly unknown[]>;
  keys: { own: string; other: string; admin: string };
}

// ---- hostile values ----

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
export const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'NaN',
    'Infinity',
    '-0',
    '1e400',
    '0x1',
    '1e0',
    ' 1',
    'true',
    'null',
    '💥⚡️🇮🇳',
    '\u0000',
    '%00',
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.tuple(fc.string({ maxLength: 4 }), loneSurrogate, fc.string({ maxLength: 4 })).map((p) => p.join('')),
  fc.integer({ min: 200, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 17, max: 300 }).map((n) => 'é'.repeat(n)),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 0.5, 1.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 5e-324),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
/** Nested `depth` levels deep, built as text so the generator itself needs no deep recursion. */
const deepText = fc.integer({ min: 50, max: 20_000 }).map((n) => `${'{"a":['.repeat(n)}1${']}'.repeat(n)}`);
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false, [], {}, [1, 2], { a: 1 }),
  fc.jsonValue({ maxDepth: 3 }),
);

// ---- valid values from a schema ----

function integerIn(lo: number, hi: number): fc.Arbitrary<number> {
  const small = fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) });
  return fc.oneof({ weight: 4, arbitrary: small }, fc.constantFrom(lo, hi));
}

export function validValue(schema: JsonSchema, name: string, pools: Pools): fc.Arbitrary<unknown> {
  const pool = pools.byName[name];
  if (pool !== undefined && pool.length > 0) return fc.constantFrom(...pool);
  const base = validOfType(schema, pools);
  return schema.nullable ? fc.oneof(fc.constant(null), base) : base;
}

function validOfType(schema: JsonSchema, pools: Pools): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validOfType(s, pools)));
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const exclusive = schema.exclusiveMinimum === true;
      const lo = (schema.minimum ?? -1e9) + (exclusive ? 1 : 0);
      const hi = Math.min(schema.maximum ?? 1e9, Number.MAX_SAFE_INTEGER);
      return schema.type === 'integer' ? integerIn(lo, hi) : fc.double({ min: lo, max: hi, noNaN: true });
    }
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 40;
      if (schema.format === 'date-time') {
        return fc
          .date({ min: new Date('2020-01-01'), max: new Date('2040-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= max);
      const text = fc.oneof(
        fc.string({ minLength: min, maxLength: max }),
        fc.string({ unit: 'grapheme', minLength: min, maxLength: max }),
      );
      return text.filter((s) => s.length >= min && s.length <= max);
    }
    case 'object':
      return validObject(schema, pools);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validObject(schema: JsonSchema, pools: Pools): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const record = Object.fromEntries(
    Object.entries(props).map(([key, s]) => [key, validValue(s, key, pools)] as const),
  );
  return fc.record(record, { requiredKeys: schema.required ?? [] });
}

// ---- a whole request ----

export interface FuzzRequest {
  op: string;
  method: string;
  /** Already %-encoded, with its query string. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What was done to the request, for the failure message. */
  how: string[];
  /** The path names an object of one tenant and the key is the other tenant's: must never succeed. */
  crossTenant: boolean;
}

/** Bytes that are valid UTF-8, %-encoded. */
const utf8Bytes = fc
  .uint8Array({ minLength: 1, maxLength: 12 })
  .filter((b) => Buffer.from(Buffer.from(b).toString('utf8')).equals(Buffer.from(b)))
  .map((b) => [...b].map((x) => `%${x.toString(16).padStart(2, '0')}`).join(''));

/** A hostile path segment that still is a well-formed URL component of at most 100 characters. */
const hostileSegment = fc.oneof(
  hostileString
    .filter((s) => isWellFormed(s) && s.length < 100)
    .map(encodeURIComponent)
    .filter((s) => s.length <= 100),
  utf8Bytes,
  fc.constantFrom('..', '.', '-1', '1.5', '9007199254740993', '0x1', '1e0', '%201', '+1', '%2F', '%00'),
  fc.integer({ min: 65, max: 100 }).map((n) => 'a'.repeat(n)),
);

/**
 * A malformed URL component [issue 8 item 19]: bad %-escapes, escapes of invalid UTF-8 (a lone surrogate
 * as CESU bytes, an overlong `/`), or a segment longer than the router takes (fastify: 100 characters).
 */
export const malformedSegment = fc.oneof(
  fc.constantFrom('%', '%zz', '%E2%82', '%ED%A0%80', '%C0%AF', '%80%00', 'a%'),
  fc
    .uint8Array({ minLength: 1, maxLength: 12 })
    .filter((b) => !Buffer.from(Buffer.from(b).toString('utf8')).equals(Buffer.from(b)))
    .map((b) => [...b].map((x) => `%${x.toString(16).padStart(2, '0')}`).join('')),
  fc.integer({ min: 101, max: 20_000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 34, max: 2_000 }).map((n) => encodeURIComponent('é'.repeat(n))),
);

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/JSON',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  'application/json-patch+json',
  '',
];

type BodyMode = 'valid' | 'drop' | 'field' | 'extra' | 'replace' | 'raw' | 'type';

/**
 * A request to one of `ops`. With `malformedUrls`, every path parameter is a malformed URL component
 * (only operations with path parameters are drawn); otherwise path parameters are valid or hostile but
 * well-formed.
 */
export function requestArb(
  ops: readonly Operation[],
  pools: Pools,
  opts: { malformedUrls?: boolean } = {},
): fc.Arbitrary<FuzzRequest> {
  if (opts.malformedUrls) ops = ops.filter((op) => op.parameters.some((p) => p.in === 'path'));
  return fc.constantFrom(...ops).chain((op) => {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const segment = (p: Parameter) =>
      opts.malformedUrls
        ? malformedSegment.map((s) => `!${s}`)
        : fc.oneof(
            {
              weight: 5,
              arbitrary: validValue(p.schema, p.name, pools).map((v) => encodeURIComponent(String(v))),
            },
            { weight: 1, arbitrary: hostileSegment.map((s) => `!${s}`) },
          );
    const query = fc.tuple(
      ...queryParams.map((p) =>
        fc.oneof(
          {
            weight: 6,
            arbitrary: validValue(p.schema, p.name, pools).map((v) => ({ p: p.name, v: String(v) })),
          },
          { weight: 1, arbitrary: fc.constant(null) },
          {
            weight: 2,
            arbitrary: hostileString
              .filter((s) => isWellFormed(s) && s.length < 3000)
              .map((v) => ({ p: p.name, v, bad: true })),
          },
        ),
      ),
    );
    const body = op.body
      ? bodyArb(op.body, pools)
      : fc.constant({ text: undefined, how: [] as string[], type: null });
    const key = fc.constantFrom(
      'own',
      'own',
      'own',
      'own',
      'own',
      'other',
      'none',
      'bogus',
      'bearer',
      'wrong-header',
    );
    const method = fc.oneof(
      { weight: 12, arbitrary: fc.constant(op.method) },
      { weight: 1, arbitrary: fc.constantFrom('DELETE', 'PATCH', 'POST', 'PUT', 'GET') },
    );
    return fc
      .tuple(fc.tuple(...pathParams.map(segment)), query, body, key, method)
      .map(([segments, q, b, k, m]) => {
        const how: string[] = [];
        let path = op.path;
        let namesOwn = false;
        let namesOther = false;
        const named = (list: string, seg: string) =>
          (pools.byName[list] ?? []).map((v) => encodeURIComponent(String(v))).includes(seg);
        pathParams.forEach((p, i) => {
          let seg = segments[i]!;
          if (seg.startsWith('!')) {
            seg = seg.slice(1);
            how.push(`hostile ${p.name}`);
          }
          namesOwn ||= named(`own_${p.name}`, seg);
          namesOther ||= named(`other_${p.name}`, seg);
          path = path.replace(`{${p.name}}`, seg);
        });
        const qs = q
          .filter((x): x is { p: string; v: string; bad?: boolean } => x !== null)
          .map((x) => {
            if (x.bad) how.push(`hostile ?${x.p}`);
            return `${x.p}=${encodeURIComponent(x.v)}`;
          });
        const headers = headersFor(op, k, pools, how);
        if (m !== op.method) how.push(`method ${m}`);
        const request: FuzzRequest = {
          op: `${op.method} ${op.path}`,
          method: m,
          url: qs.length > 0 ? `${path}?${qs.join('&')}` : path,
          headers,
          how: [...how, ...b.how],
          crossTenant: op.auth === 'apiKey' && ((k === 'own' && namesOther) || (k === 'other' && namesOwn)),
        };
        if (b.text !== undefined && m !== 'GET') {
          request.body = b.text;
          if (b.type !== '') request.headers['content-type'] = b.type ?? 'application/json';
        }
        return request;
      });
  });
}

function headersFor(op: Operation, k: string, pools: Pools, how: string[]): Record<string, string> {
  const own = op.auth === 'admin' ? pools.keys.admin : pools.keys.own;
  const name = op.auth === 'admin' ? 'x-admin-token' : 'x-service-api-key';
  if (k !== 'own') how.push(`key ${k}`);
  switch (k) {
    case 'own':
      return { [name]: own };
    case 'other':
      return { [name]: op.auth === 'admin' ? 'not-the-admin-token' : pools.keys.other };
    case 'none':
      return {};
    case 'bogus':
      return { [name]: 'msk_ünïcödé'.replace(/[^\x20-\x7e]/g, '?').repeat(40) };
    case 'bearer':
      return { authorization: `Bearer ${own}` };
    default:
      return { [op.auth === 'admin' ? 'x-service-api-key' : 'x-admin-token']: own };
  }
}

function bodyArb(
  schema: JsonSchema,
  pools: Pools,
): fc.Arbitrary<{ text: string | undefined; how: string[]; type: string | null }> {
  const keys = Object.keys(schema.properties ?? {});
  const mode = fc.constantFrom<BodyMode>(
    'valid',
    'valid',
    'valid',
    'drop',
    'field',
    'extra',
    'replace',
    'raw',
    'type',
  );
  return fc
    .tuple(
      validObject(schema, pools),
      mode,
      fc.nat(),
      hostileValue,
      fc.string({ maxLength: 10 }),
      deepText,
      fc.constantFrom(...CONTENT_TYPES),
    )
    .map(([valid, m, pick, value, extra, deep, contentType]) => {
      const obj: Record<string, unknown> = { ...valid };
      const key = keys.length > 0 ? keys[pick % keys.length]! : 'x';
      switch (m) {
        case 'valid':
          return { text: JSON.stringify(obj), how: [], type: null };
        case 'drop':
          delete obj[key];
          return { text: JSON.stringify(obj), how: [`no ${key}`], type: null };
        case 'field':
          obj[key] = value;
          return {
            text: JSON.stringify(obj),
            how: [`${key}=${JSON.stringify(value)?.slice(0, 60)}`],
            type: null,
          };
        case 'extra':
          obj[`extra_${extra}`] = value;
          return { text: JSON.stringify(obj), how: ['extra field'], type: null };
        case 'replace':
          return {
            text: JSON.stringify(value) ?? 'null',
            how: [`body=${JSON.stringify(value)?.slice(0, 60)}`],
            type: null,
          };
        case 'raw': {
          const texts = [
            JSON.stringify(obj).slice(0, -1),
            `\ufeff${JSON.stringify(obj)}`,
            deep,
            '',
            'NaN',
            `{"${key}": NaN}`,
            `{"${key}": 1e400}`,
            `{"${key}": "\\ud800"}`,
            `${JSON.stringify(obj)}${JSON.stringify(obj)}`,
          ];
          const text = texts[pick % texts.length]!;
          return { text, how: [`raw body ${text.slice(0, 60)}`], type: null };
        }
        default:
          return { text: JSON.stringify(obj), how: [`content-type "${contentType}"`], type: contentType };
      }
    });
}
