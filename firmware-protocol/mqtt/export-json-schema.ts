// Regenerates firmware-protocol/mqtt/json-schema/ from the zod schemas:
//   npx tsx firmware-protocol/mqtt/export-json-schema.ts
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildJsonSchemas, schemaFileText } from './json-schema.ts';

const outDir = join(dirname(fileURLToPath(import.meta.url)), 'json-schema');
rmSync(outDir, { recursive: true, force: true }); // a schema that no longer exists must not linger
for (const [name, schema] of Object.entries(buildJsonSchemas())) {
  const file = join(outDir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, schemaFileText(schema));
  console.log(`wrote ${file}`);
}
