// Where meterstack's own files are: the folder that holds its package.json. The same modules run from
// src/ (tests, tsx) and from dist/src/ (the compiled package, one level deeper), so a file that ships
// beside the code (the console's web/, package.json) is found from the root, not from `import.meta.url`.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The nearest folder above this module holding a package.json (dist/ has none). */
export function packageRoot(): string {
  root ??= findRoot(fileURLToPath(import.meta.url));
  return root;
}

function findRoot(here: string): string {
  for (let dir = dirname(here); ; ) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`meterstack: no package.json above ${here}`);
    dir = up;
  }
}

/** The `version` of meterstack's package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return String(pkg.version);
}
