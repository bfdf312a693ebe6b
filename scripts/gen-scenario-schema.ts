// `npm run gen:scenario-schema`: writes schema/scenario.schema.json, the JSON Schema of scenario files
// (src/qa/scenario/json-schema.ts), from the zod schema. Run it after changing the scenario format;
// test/qa/scenario-json-schema.test.ts fails until you do [SC-3].

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SCENARIO_SCHEMA_PATH, scenarioJsonSchemaText } from '../src/qa/scenario/json-schema.ts';

const file = join(import.meta.dirname, '..', SCENARIO_SCHEMA_PATH);
const text = scenarioJsonSchemaText();
const before = await readFile(file, 'utf8').catch(() => '');
if (before === text) console.log(`${SCENARIO_SCHEMA_PATH}: up to date`);
else {
  await writeFile(file, text);
  console.log(`${SCENARIO_SCHEMA_PATH}: written (${text.length} characters)`);
}
