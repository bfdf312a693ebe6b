// The JSON body parser: fastify's own (with its prototype-poisoning guard), after two checks fastify
// does not make, so text is never silently changed on its way to the store (spec-decisions 44):
// - the bytes must be valid UTF-8 (fastify decodes invalid bytes to U+FFFD);
// - no string or key may hold a lone UTF-16 surrogate (`"\ud800"`: JSON.parse accepts it, SQLite and
//   every UTF-8 encoder write U+FFFD instead). Each is refused as validation_error naming the field.

import type { FastifyInstance } from 'fastify';
import { ApiError, type ValidationItem } from './errors.ts';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** A `\uD800`–`\uDFFF` escape: the only way a lone surrogate gets into text decoded from UTF-8. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const LONE_SURROGATE = /\p{Cs}/u;

export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    let text: string;
    try {
      text = UTF8.decode(raw as Buffer);
    } catch {
      done(ApiError.validation([{ loc: ['body'], msg: 'Body should be valid UTF-8' }]), undefined);
      return;
    }
    parseJson(request, text, (err, body) => {
      if (err) return done(err, undefined);
      if (SURROGATE_ESCAPE.test(text)) {
        const items = loneSurrogates(body, []);
        if (items.length > 0) return done(ApiError.validation(items), undefined);
      }
      done(null, body);
    });
  });
}

function loneSurrogates(value: unknown, path: string[]): ValidationItem[] {
  const msg = 'should be valid Unicode: it contains a lone UTF-16 surrogate (such as \\ud800)';
  if (typeof value === 'string')
    return LONE_SURROGATE.test(value) ? [{ loc: locOf(path), msg: `String ${msg}` }] : [];
  if (typeof value !== 'object' || value === null) return [];
  const items: ValidationItem[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (LONE_SURROGATE.test(key)) items.push({ loc: locOf([...path, key]), msg: `Key ${msg}` });
    else items.push(...loneSurrogates(v, [...path, key]));
  }
  return items;
}

/** As schema errors name fields: the path inside the body, or `body` for the body itself. */
function locOf(path: string[]): string[] {
  return path.length > 0 ? path : ['body'];
}
