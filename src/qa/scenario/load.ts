// Reads a scenario file (YAML, or JSON, which is YAML too) and validates it, with errors that name the
// file, the line and the field: `fixtures/scenarios/x.yaml:14:9: timeline[3].advance: …`.

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Document, isNode, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { didYouMean } from '../did-you-mean.ts';
import { keysAt } from './keys-at.ts';
import { badMeterReferences, badOperators, nearMissNames } from './references.ts';
import { NO_ACTION, type Scenario, scenarioSchema, type WorldSpec, worldSchema } from './schema.ts';

/** A scenario as loaded: where it came from, each step's line, `from_snapshot` resolved to a path. */
export interface LoadedScenario extends Scenario {
  file: string;
  /** The line of each timeline step in the file (1-based). */
  stepLines: number[];
}

export class ScenarioError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ScenarioError';
  }
}

/**
 * The `world` given to the test harness's `startMeterstack` is not one: a field wrong (each problem
 * at its field) or a meter the service refused. Named for what its user did, not for the scenario
 * files whose schema it shares; still a ScenarioError, for code that catches that.
 */
export class InvalidWorldError extends ScenarioError {
  constructor(problems: string[]) {
    super(problems);
    this.name = 'InvalidWorldError';
  }
}

/** A zod issue in a reader's words: an unknown key with the one probably meant. */
function issueMessage(schema: z.core.$ZodType, issue: z.core.$ZodIssue): string {
  if (issue.code !== 'unrecognized_keys') return issue.message;
  const known = keysAt(schema, issue.path);
  return issue.keys.map((k) => `unknown key '${k}'${didYouMean(k, known)}`).join('; ');
}

/** [SC-5] A value not among a field's options (`method: GTE`, `mode: prepiad`): the one probably meant. */
function optionGuess(doc: Document, issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_value') return '';
  const given = doc.getIn(issue.path as unknown[]);
  if (typeof given !== 'string') return '';
  return didYouMean(
    given,
    issue.values.filter((v): v is string => typeof v === 'string'),
  );
}

/**
 * The issues to tell: a step with a mistyped action (`advnce:`) also has no action, which its
 * unknown key already explains.
 */
function tellable(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const unknownAt = new Set(
    issues.filter((i) => i.code === 'unrecognized_keys').map((i) => JSON.stringify(i.path)),
  );
  return issues.filter((i) => !(i.message.startsWith(NO_ACTION) && unknownAt.has(JSON.stringify(i.path))));
}

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(top level)';
}

export function parseScenario(file: string, text: string): LoadedScenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const p = lines.linePos(offset);
    return `${file}:${p.line}:${p.col}`;
  };
  if (doc.errors.length > 0)
    throw new ScenarioError(doc.errors.map((e) => `${at(e.pos[0])}: ${e.message.split('\n')[0]}`));
  const located = (path: readonly PropertyKey[], message: string) => {
    // The deepest node the path reaches: the field itself, or the object that lacks it.
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) return `${at(node.range[0])}: ${fieldPath(path)}: ${message}`;
    }
    return `${file}: ${fieldPath(path)}: ${message}`;
  };
  const result = scenarioSchema.safeParse(doc.toJS());
  if (!result.success)
    throw new ScenarioError(
      tellable(result.error.issues)
        .slice(0, 20)
        .map((issue) => located(issue.path, issueMessage(scenarioSchema, issue) + optionGuess(doc, issue))),
    );
  const bad = [
    ...badMeterReferences(result.data),
    ...badOperators(result.data),
    ...nearMissNames(result.data),
  ];
  if (bad.length > 0) throw new ScenarioError(bad.slice(0, 20).map((b) => located(b.path, b.message)));
  const stepLines = result.data.timeline.map((_, i) => {
    const node = doc.getIn(['timeline', i], true);
    return isNode(node) && node.range ? lines.linePos(node.range[0]).line : 0;
  });
  const s: LoadedScenario = { ...result.data, file, stepLines };
  if (s.from_snapshot !== undefined) {
    s.from_snapshot = resolve(dirname(file), s.from_snapshot);
    if (!existsSync(s.from_snapshot))
      throw new ScenarioError([located(['from_snapshot'], `no such file ${s.from_snapshot}`)]);
  }
  return s;
}

/**
 * A world given as a value (the test harness's `startMeterstack({ world })`), checked by the same
 * schema as a scenario file's `world:`, each problem located by its field: `world.accounts[0].name: …`.
 */
export function parseWorld(value: unknown): WorldSpec {
  const result = worldSchema.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidWorldError(
    result.error.issues
      .slice(0, 20)
      .map((issue) => `${fieldPath(['world', ...issue.path])}: ${issueMessage(worldSchema, issue)}`),
  );
}

export async function loadScenario(file: string): Promise<LoadedScenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ScenarioError([
      `${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    ]);
  }
  return parseScenario(file, text);
}
