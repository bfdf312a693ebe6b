// issue 20 item 8: `npm start` rebuilds only when a source changed (scripts/build-if-stale.mjs), so a
// restart with nothing changed does not spend seconds in tsc. Run here in a small project whose `build`
// script counts its runs instead of compiling; file times are set outright, never waited for.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const SCRIPT = join(REPO_ROOT, 'scripts/build-if-stale.mjs');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A project whose build appends a line to builds.txt and writes the stamp tsc would. */
function project(): { dir: string; start: () => void; builds: () => number } {
  const t = tempDir('meterstack-prestart-');
  cleanups.push(t.remove);
  const build =
    "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/.tsbuildinfo','{}');require('fs').appendFileSync('builds.txt','x\\n')";
  writeFileSync(
    join(t.dir, 'package.json'),
    JSON.stringify({ name: 'p', private: true, scripts: { build: `node -e "${build}"` } }),
  );
  mkdirSync(join(t.dir, 'src/a'), { recursive: true });
  writeFileSync(join(t.dir, 'src/a/x.ts'), 'export const x = 1;\n');
  return {
    dir: t.dir,
    start: () => execFileSync(process.execPath, [SCRIPT], { cwd: t.dir, stdio: 'pipe' }),
    builds: () => {
      try {
        return readFileSync(join(t.dir, 'builds.txt'), 'utf8').split('\n').length - 1;
      } catch {
        return 0;
      }
    },
  };
}

const later = new Date(Date.now() + 3_600_000);

describe('npm start builds only what changed (issue 20 item 8)', () => {
  it('builds when there is no build yet, and not again when nothing changed', () => {
    const p = project();
    p.start();
    expect(p.builds()).toBe(1);
    p.start();
    p.start();
    expect(p.builds()).toBe(1);
  });

  it('builds again when a source is newer than the last build', () => {
    const p = project();
    p.start();
    utimesSync(join(p.dir, 'src/a/x.ts'), later, later);
    p.start();
    expect(p.builds()).toBe(2);
  });

  it('builds again when a source file is deleted (its directory changed)', () => {
    const p = project();
    p.start();
    rmSync(join(p.dir, 'src/a/x.ts'));
    utimesSync(join(p.dir, 'src/a'), later, later);
    p.start();
    expect(p.builds()).toBe(2);
  });

  it('builds again when dist is removed', () => {
    const p = project();
    p.start();
    rmSync(join(p.dir, 'dist'), { recursive: true });
    p.start();
    expect(p.builds()).toBe(2);
  });
});
