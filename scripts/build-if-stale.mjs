// `npm start`'s build: runs `npm run build` (tsc, incremental) only when a source is newer than the last
// build. tsc even with nothing to do spends seconds loading and hashing the program; a walk of mtimes
// takes milliseconds, so a restart with no change starts at once. The stamp is dist/.tsbuildinfo,
// set after every successful build to the time the build began (tsc leaves it alone when nothing
// changed; a file saved during the build is newer, so the next start builds again). A directory's own
// mtime counts too, so a file added or deleted is a change.

import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

/** What tsconfig.build.json compiles, and the files that change how. */
const SOURCES = [
  'src',
  'simulator',
  'firmware-protocol',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
];
const STAMP = 'dist/.tsbuildinfo';

function newest(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  let t = st.mtimeMs;
  if (st.isDirectory()) {
    for (const name of readdirSync(path)) {
      if (name !== 'node_modules') t = Math.max(t, newest(join(path, name)));
    }
  }
  return t;
}

function stampTime() {
  try {
    return statSync(STAMP).mtimeMs;
  } catch {
    return -1;
  }
}

const stamp = stampTime();
if (stamp < 0 || SOURCES.some((p) => newest(p) > stamp)) {
  const began = new Date();
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  utimesSync(STAMP, began, began);
}
