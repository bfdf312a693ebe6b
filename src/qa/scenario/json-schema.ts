// The scenario format as a JSON Schema, for editors: each fixture names it on its first line
// (`# yaml-language-server: $schema=…`), so keys complete and typos are flagged as they are typed.
// Generated from the zod schema (schema.ts), never written by hand: `npm run gen:scenario-schema`
// writes schema/scenario.schema.json, the file the package publishes, and a test fails when the two
// differ [SC-3]. What JSON Schema cannot say (a fault's kind and params, an event type list, a meter
// named by a step) the runner still checks when the file loads.

import { z } from 'zod';
import { scenarioSchema } from './schema.ts';

/** Where the schema lives in the package, from its root. */
export const SCENARIO_SCHEMA_PATH = 'schema/scenario.schema.json';

/** The JSON Schema (draft-07, what the YAML and JSON language servers know best) of a scenario file. */
export function scenarioJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(scenarioSchema, {
    target: 'draft-7',
    // What a person writes: defaults make keys optional, not required.
    io: 'input',
    // Refinements (a fault's params, an event type list) have no JSON Schema: the runner checks them.
    unrepresentable: 'any',
  });
  const { $schema, ...rest } = generated;
  return {
    $schema,
    title: 'meterstack scenario',
    description:
      'A declarative meterstack scenario: a world of accounts, spaces and meters and a timeline of steps ' +
      'with expectations, run by `meterstack scenario run` (fixtures/README.md in the package).',
    ...rest,
  };
}

/** The file's text: stable key order, two-space indent, a final newline. */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
