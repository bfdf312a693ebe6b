// The web console (issue 9 §4): `GET /` serves its page; its plain ES modules are served from
// src/console/web/ under /console/, and Preact, htm and uPlot straight from node_modules under
// /console/vendor/ (an import map in index.html names them). No build step, no CDN: everything the
// page loads comes from this server. The console acts only through /api/v2 and /sim/v1 [STYLE 12].
// web/ ships as it is (package.json "files"), found from the package root, so the compiled code in
// dist/ serves the very files an edit changes; the vendor files are found where Node would resolve
// them: in an installed package they sit beside meterstack (hoisted), not inside it.

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { inlineScriptHashes } from '../http/security-headers.ts';
import { packageRoot } from '../package-root.ts';

const WEB = join(packageRoot(), 'src/console/web/');

/** The folder of an installed dependency, looked up along Node's own node_modules search path. */
function moduleDir(name: string): string {
  const paths = createRequire(import.meta.url).resolve.paths(name) ?? [];
  const dir = paths.find((p) => existsSync(join(p, name, 'package.json')));
  if (dir === undefined) throw new Error(`the web console needs ${name}, which is not installed`);
  return `${join(dir, name)}/`;
}

/** Only the few files the page imports: the rest of node_modules stays private. */
const vendor = (): { prefix: string; root: string[]; allow: RegExp }[] => [
  {
    prefix: '/console/vendor/preact/',
    root: [`${moduleDir('preact')}dist/`, `${moduleDir('preact')}hooks/dist/`],
    allow: /^(preact|hooks)\.mjs$/,
  },
  { prefix: '/console/vendor/htm/', root: [`${moduleDir('htm')}dist/`], allow: /^htm\.mjs$/ },
  {
    prefix: '/console/vendor/uplot/',
    root: [`${moduleDir('uplot')}dist/`],
    allow: /^uPlot\.(esm\.js|min\.css)$/,
  },
];

/** The page at `/` and the hashes of its inline scripts (its import map), which the CSP allows. */
export interface ConsolePage {
  html: string;
  scriptHashes: string[];
}

/**
 * Read once, when the app is built: the page and the CSP that allows its import map must not drift
 * apart [SEC-4]. After an edit of index.html, restart (the modules under /console/ are read per request).
 */
export async function consolePage(): Promise<ConsolePage> {
  const html = await readFile(`${WEB}index.html`, 'utf8');
  return { html, scriptHashes: inlineScriptHashes(html) };
}

export async function consolePlugin(app: FastifyInstance, opts: { page: ConsolePage }): Promise<void> {
  app.get('/', { schema: { hide: true } }, async (_req, reply) => {
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache');
    return opts.page.html;
  });
  await app.register(fastifyStatic, {
    root: WEB,
    prefix: '/console/',
    decorateReply: false,
    index: false,
    cacheControl: true,
    maxAge: 0,
  });
  for (const v of vendor()) {
    await app.register(fastifyStatic, {
      root: v.root,
      prefix: v.prefix,
      decorateReply: false,
      index: false,
      allowedPath: (path) => v.allow.test(path.replace(/^\//, '')),
      maxAge: 3_600_000,
    });
  }
}
