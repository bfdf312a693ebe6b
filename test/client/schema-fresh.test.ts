// src/client/schema.ts is generated from the service's OpenAPI document; a route schema changed
// without `npm run gen:client` would leave the typed client describing an API that no longer exists.

import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { fetchOpenApiDocument, SCHEMA_FILE, schemaSource } from '../../scripts/client-schema.ts';

it('src/client/schema.ts is what `npm run gen:client` makes from GET /openapi.json now', async () => {
  const fresh = await schemaSource(await fetchOpenApiDocument());
  const committed = await readFile(SCHEMA_FILE, 'utf8');
  // One line, not a 2,000-line diff: what to do about it.
  expect(committed === fresh, 'src/client/schema.ts is stale: run `npm run gen:client` and commit it').toBe(
    true,
  );
});
