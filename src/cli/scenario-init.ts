// `meterstack scenario init <name>`: writes <name>.yaml, a commented scenario that runs green as
// written, naming the package's JSON Schema by a path relative to it [SC-4]. Never overwrites.

import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { packageRoot } from '../package-root.ts';
import { INIT_NAME, initFileName, starterScenario } from '../qa/scenario/init.ts';
import { SCENARIO_SCHEMA_PATH } from '../qa/scenario/json-schema.ts';

/**
 * Writes the starting scenario in `dir` (the current folder); a problem is returned for the caller's
 * usage error (exit 2).
 */
export async function scenarioInit(args: string[], dir = process.cwd()): Promise<string | null> {
  if (args.length !== 1) return 'init takes one name: meterstack scenario init <name>';
  const name = args[0]!;
  if (!INIT_NAME.test(name))
    return `init: '${name}' is not a name for a scenario file: 1-100 of A-Z a-z 0-9 _ . - , starting with a letter or digit`;
  const file = resolve(dir, initFileName(name));
  const schema = join(packageRoot(), SCENARIO_SCHEMA_PATH);
  const ref = relative(dirname(file), schema).split(sep).join('/');
  try {
    await writeFile(file, starterScenario(name, ref), { flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      return `init: ${initFileName(name)} already exists; remove it or give another name`;
    return `init: cannot write ${initFileName(name)}: ${(err as Error).message}`;
  }
  process.stdout.write(
    `wrote ${initFileName(name)}: a prepaid meter that runs out and is recharged\nrun it: meterstack scenario run ${initFileName(name)}\n`,
  );
  return null;
}
