// Issue 10 item 5: the package as a user gets it. `npm pack` (which runs `prepare`: a clean build of
// dist/), the tarball installed into an empty directory with `npm install <tarball>`, then
// `npx meterstack` there: --version, help serve, and `serve` until /healthz answers, the web console's
// files included. Nothing of the checkout is reachable from that directory, so a file the tarball
// lacks or a path that only works inside the repository fails here. The only slow test (1-4 min: the
// install compiles better-sqlite3 when no prebuilt binary can be fetched).

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const run = promisify(execFile);
const tmp = tempDir('meterstack-pack-');
const app = join(tmp.dir, 'app');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  allowScripts: Record<string, boolean>;
};

// The child npm gets neither this run's METERSTACK_* nor the npm_* of an outer `npm test`.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_') && !/^npm_/i.test(k)),
);

let tarball = '';
let files: string[] = [];

beforeAll(async () => {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', tmp.dir], {
    cwd: REPO_ROOT,
    env,
    maxBuffer: 64 << 20,
  });
  // `npm pack --json` prints the prepare script's output first; the JSON array is the last thing.
  const report = JSON.parse(packed.stdout.slice(packed.stdout.lastIndexOf('\n[\n') + 1)) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = join(tmp.dir, report[0]!.filename);
  files = report[0]!.files.map((f) => f.path);
  // An empty project, as a user's; its allowScripts lets the native modules build quietly (npm 11).
  await run('mkdir', [app]);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, allowScripts: pkg.allowScripts }),
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: app,
    env,
    maxBuffer: 64 << 20,
  });
}, 480_000);

afterAll(() => tmp.remove());

const npx = (args: string[]) => run('npx', ['--no-install', 'meterstack', ...args], { cwd: app, env });

describe('npm pack → npm install <tarball> → npx meterstack (issue 10 item 5)', () => {
  it('the tarball holds what runs: compiled JavaScript, bin, the web console; no tests or TypeScript', () => {
    expect(files).toContain('dist/src/cli/main.js');
    expect(files).toContain('bin/meterstack.js');
    expect(files).toContain('src/console/web/index.html');
    expect(files).toContain('schema/scenario.schema.json');
    expect(files).toContain('package.json');
    const stray = files.filter(
      (f) =>
        (f.endsWith('.ts') && !f.endsWith('.d.ts')) ||
        f.includes('.test.') ||
        /^(test|bench|scripts|fixtures|docs)\//.test(f) ||
        f.endsWith('.tsbuildinfo'),
    );
    expect(stray).toEqual([]);
  });

  it('npx meterstack --version prints package.json version', async () => {
    const r = await npx(['--version']);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it('npx meterstack help serve prints serve --help', async () => {
    const r = await npx(['help', 'serve']);
    expect(r.stdout).toMatch(/^usage: meterstack serve \[flags\]/);
    expect(r.stdout).toContain('--no-demo');
  });

  it('--help and --version load no command module: only bin, cli/main and package-root', async () => {
    // A module hook that names every file node loads, on stderr (process._rawDebug: the hooks thread).
    const hook = join(tmp.dir, 'trace-loads.mjs');
    const load = `export async function load(url, ctx, next) {
      if (url.startsWith('file:')) process._rawDebug('LOADED ' + url);
      return next(url, ctx);
    }`;
    writeFileSync(
      hook,
      `import { register } from 'node:module';\nregister('data:text/javascript,' + ${JSON.stringify(encodeURIComponent(load))});\n`,
    );
    const bin = join(app, 'node_modules/.bin/meterstack');
    for (const arg of ['--help', '--version']) {
      const r = await run(process.execPath, ['--import', hook, bin, arg], { cwd: app, env });
      const loaded = r.stderr
        .split('\n')
        .filter((l) => l.startsWith('LOADED '))
        .map((l) => l.slice(l.indexOf('/node_modules/meterstack/') + '/node_modules/meterstack/'.length));
      expect(loaded, arg).toEqual(['bin/meterstack.js', 'dist/src/cli/main.js', 'dist/src/package-root.js']);
    }
  });

  it('npx meterstack serve answers /healthz and serves the web console with its vendor modules', async () => {
    // Its own process group, so the stop reaches the service and not only npx.
    const child: ChildProcess = spawn(
      'npx',
      [
        '--no-install',
        'meterstack',
        'serve',
        '--no-demo',
        '--http-port',
        '0',
        '--mqtt-port',
        '0',
        '--db',
        ':memory:',
      ],
      { cwd: app, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    // 'close': every holder of the pipes has gone, the service too, not only npx.
    const closed = new Promise<void>((r) => child.once('close', () => r()));
    try {
      const deadline = Date.now() + 30_000;
      let url: string | undefined;
      while (url === undefined) {
        url = /HTTP API\s+(http:\/\/\S+)/.exec(out)?.[1];
        if (url === undefined && Date.now() > deadline) throw new Error(`no banner in 30 s:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ success: true, data: { status: 'ok' } });
      // The page, and a vendor module found beside meterstack in the user's node_modules (hoisted).
      for (const path of ['/', '/console/app.js', '/console/vendor/preact/preact.mjs']) {
        const r = await fetch(`${url}${path}`);
        expect(`${path} ${r.status}`).toBe(`${path} 200`);
      }
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
    // npx itself dies of the signal; the service's own last line says it stopped as it should.
    await closed;
    expect(out).toContain('stopped cleanly');
  }, 60_000);
});
