// The JSON Schema of scenario files (SC-3): generated from the zod schema and committed as
// schema/scenario.schema.json, which the package publishes and every fixture names for its editor.
// An editor's validator (ajv here, draft-07 as the YAML language server reads it) takes every fixture
// and flags what the runner refuses: an unknown key, a bad duration.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import AjvModule, { type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { starterScenario } from '../../src/qa/scenario/init.ts';
import { SCENARIO_SCHEMA_PATH, scenarioJsonSchemaText } from '../../src/qa/scenario/json-schema.ts';
import { REPO_ROOT } from '../helpers/child.ts';

const SCHEMA_FILE = join(REPO_ROOT, SCENARIO_SCHEMA_PATH);
const DIR = join(REPO_ROOT, 'fixtures/scenarios');
const fixtures = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f));
const MODELINE = /^# yaml-language-server: \$schema=(\S+)\n/;

// ajv is what fastify validates with (a dependency of a dependency): here only to play the editor.
type AjvClass = new (opts: object) => { compile(schema: unknown): ValidateFunction };
const Ajv = ((AjvModule as unknown as { default?: AjvClass }).default ?? AjvModule) as AjvClass;
const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(
  JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')),
);

describe('the scenario JSON Schema [SC-3]', () => {
  it('SC-3: the committed file is what the zod schema generates (npm run gen:scenario-schema)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(scenarioJsonSchemaText());
  });

  it('SC-3: the package publishes it', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain(dirname(SCENARIO_SCHEMA_PATH));
  });

  it('SC-3: every fixture names it on its first line, by a relative path that reaches it', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(19);
    for (const f of fixtures) {
      const m = MODELINE.exec(readFileSync(join(DIR, f), 'utf8'));
      expect(m, f).not.toBeNull();
      expect(resolve(DIR, m![1]!), f).toBe(SCHEMA_FILE);
    }
  });

  it('SC-3: an editor finds every fixture valid', () => {
    for (const f of fixtures) {
      const ok = validate(parse(readFileSync(join(DIR, f), 'utf8')));
      expect(ok ? [] : validate.errors, f).toEqual([]);
    }
  });

  it('SC-3: and the scenario `scenario init` writes (SC-4)', () => {
    const ok = validate(parse(starterScenario('x', '../schema/scenario.schema.json')));
    expect(ok ? [] : validate.errors).toEqual([]);
  });

  it('SC-3: and flags an unknown key, a bad duration and a step field out of range', () => {
    const doc = {
      name: 'x',
      world: { accounts: [{ name: 'acme', meters: [{ id: 'M-1', load_wats: 5 }] }] },
      timeline: [
        { advnce: '5m' },
        { advance: 'soon' },
        { expect_event: { type: 'meter.cutoff', within_s: 99 } },
      ],
    };
    expect(validate(doc)).toBe(false);
    const where = new Set(validate.errors!.map((e) => `${e.instancePath} ${e.keyword}`));
    expect(where).toContain('/world/accounts/0/meters/0 additionalProperties');
    expect(where).toContain('/timeline/0 additionalProperties');
    expect(where).toContain('/timeline/1/advance pattern');
    expect(where).toContain('/timeline/2/expect_event/within_s maximum');
  });
});
