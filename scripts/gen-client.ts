// `npm run gen:client`: regenerates src/client/schema.ts from the service's OpenAPI document.
// Run it after changing any route schema; test/client/schema-fresh.test.ts fails until you do.

import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fetchOpenApiDocument, SCHEMA_FILE, schemaSource } from './client-schema.ts';

const source = await schemaSource(await fetchOpenApiDocument());
const before = await readFile(SCHEMA_FILE, 'utf8').catch(() => '');
const name = relative(process.cwd(), SCHEMA_FILE);
if (before === source) console.log(`${name}: up to date`);
else {
  await writeFile(SCHEMA_FILE, source);
  console.log(`${name}: written (${source.length} characters)`);
}
