import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildJsonSchemas, schemaFileText } from './json-schema.ts';

const dir = fileURLToPath(new URL('json-schema/', import.meta.url));
const expected = buildJsonSchemas();

describe('checked-in JSON Schema', () => {
  it.each(Object.keys(expected))(
    '%s matches the zod schemas (regenerate: npx tsx firmware-protocol/mqtt/export-json-schema.ts)',
    (name) => {
      expect(readFileSync(join(dir, name), 'utf8')).toBe(schemaFileText(expected[name]));
    },
  );

  it('holds no schema that the zod schemas no longer produce', () => {
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
    expect(files.map((f) => f.split('\\').join('/')).sort()).toEqual(Object.keys(expected).sort());
  });

  it('[MC-3.6] lets receivers ignore unknown fields: no additionalProperties: false', () => {
    expect(JSON.stringify(expected)).not.toContain('"additionalProperties":false');
  });
});
