// JSON Schema (draft 2020-12) of every payload, generated from the zod schemas so the two cannot drift.
// Written to ./json-schema/ by export-json-schema.ts; json-schema.test.ts checks the files are current.
// Schemas describe what a receiver accepts (zod "input"), so unknown fields are allowed [MC-3.6].
// Checks zod cannot express (ascending ts [MC-7.3], required properties [MC-4.3]) live only in CONTRACT.md.
import { z } from 'zod';
import { CHANNEL_SCHEMAS, REPLY_DATA_SCHEMAS } from './schemas.ts';
import { CHANNELS } from './topics.ts';

/** File name (relative to json-schema/) -> schema document. */
export function buildJsonSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const channel of CHANNELS) {
    out[`${channel}.schema.json`] = document(CHANNEL_SCHEMAS[channel], `meterstack/v1 ${channel} payload`);
  }
  for (const [op, schema] of Object.entries(REPLY_DATA_SCHEMAS)) {
    out[`reply-data/${op}.schema.json`] = document(schema, `meterstack/v1 reply data of op ${op} [MC-8.6]`);
  }
  return out;
}

function document(schema: z.ZodType, title: string): unknown {
  return { ...z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }), title };
}

/** The exact text of a schema file: stable key order, two-space indent, trailing newline. */
export function schemaFileText(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
