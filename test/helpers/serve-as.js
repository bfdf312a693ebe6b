// `meterstack serve` run as another user: `node serve-as.js UID GID [serve flags...]`, as root only.
// The CLI's modules are loaded first, as root, and only then does the process drop to UID/GID, so the
// user needs no read access to the checkout (CI may clone under /root): what it is refused is exactly
// what the test sets up, e.g. a database directory it may not write.
import { register } from 'tsx/esm/api';

register();
const { runServe } = await import('../../src/cli/serve.ts');
const [uid, gid, ...args] = process.argv.slice(2);
process.setgid(Number(gid));
process.setuid(Number(uid));
await runServe(args);
