// The web console (issue 9 §4): `GET /` serves its page; its plain ES modules are served from
// src/console/web/ under /console/, and Preact, htm and uPlot straight from node_modules under
// /console/vendor/ (an import map in index.html names them). No build step, no CDN: everything the
// page loads comes from this server. The console acts only through /api/v2 and /sim/v1 [STYLE 12].

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const WEB = fileURLToPath(new URL('./web/', import.meta.url));
const MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** Only the few files the page imports: the rest of node_modules stays private. */
const VENDOR: { prefix: string; root: string[]; allow: RegExp }[] = [
  {
    prefix: '/console/vendor/preact/',
    root: [`${MODULES}preact/dist/`, `${MODULES}preact/hooks/dist/`],
    allow: /^(preact|hooks)\.mjs$/,
  },
  { prefix: '/console/vendor/htm/', root: [`${MODULES}htm/dist/`], allow: /^htm\.mjs$/ },
  {
    prefix: '/console/vendor/uplot/',
    root: [`${MODULES}uplot/dist/`],
    allow: /^uPlot\.(esm\.js|min\.css)$/,
  },
];

export async function consolePlugin(app: FastifyInstance): Promise<void> {
  // Read per request: a few KB, and an edited page shows on reload while developing.
  app.get('/', { schema: { hide: true } }, async (_req, reply) => {
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache');
    return readFile(`${WEB}index.html`, 'utf8');
  });
  await app.register(fastifyStatic, {
    root: WEB,
    prefix: '/console/',
    decorateReply: false,
    index: false,
    cacheControl: true,
    maxAge: 0,
  });
  for (const v of VENDOR) {
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
