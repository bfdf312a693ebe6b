#!/usr/bin/env node
// The compiled CLI in dist/ (`npm run build`; npm's `prepare` builds it on `npm install` in a clone and
// on `npm pack`): plain JavaScript, nothing compiled at run time. Tests run the TypeScript sources
// instead (test/helpers/meterstack.js).
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
try {
  await import(main.href);
} catch (err) {
  // Only a missing dist/ itself gets the hint; any other missing module is a real error.
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes(fileURLToPath(main))) throw err;
  process.stderr.write('meterstack: dist/ is not built: run `npm run build` (or `npm install`)\n');
  process.exitCode = 1;
}
