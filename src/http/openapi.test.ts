// `servers` of the served document: the URL the client reached, and never a Host header that is not
// a plain host[:port] (it is the client's to write).

import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { documentFor } from './openapi.ts';

const request = (host: string, protocol: 'http' | 'https' = 'http') => ({ host, protocol }) as FastifyRequest;
const served = (host: string, protocol?: 'http' | 'https') =>
  documentFor({ openapi: '3.0.3' }, request(host, protocol)).servers[0]!.url;

describe('documentFor', () => {
  it.each([
    ['127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['meters.example.com', 'http://meters.example.com'],
    ['[::1]:8080', 'http://[::1]:8080'],
  ])('host %s → %s', (host, url) => {
    expect(served(host)).toBe(url);
  });

  it('keeps the protocol the request came in on', () => {
    expect(served('meters.example.com', 'https')).toBe('https://meters.example.com');
  });

  it.each(['evil"host', 'a b', 'x/y', 'x@y', `${'a'.repeat(300)}`])(
    'refuses host %s: relative "/"',
    (host) => {
      expect(served(host)).toBe('/');
    },
  );

  it('leaves the cached document as it was', () => {
    const doc = { openapi: '3.0.3' };
    documentFor(doc, request('h:1'));
    expect(doc).toEqual({ openapi: '3.0.3' });
  });
});
