// `meterstack` from the TypeScript sources, through tsx: what tests spawn instead of bin/meterstack.js,
// which runs the compiled dist/ (the package's). A test thus checks the code as it is now, with no
// build in between; test/package/pack.test.ts checks the compiled package itself.
import { register } from 'tsx/esm/api';

register();
await import('../../src/cli/main.ts');
