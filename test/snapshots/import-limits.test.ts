// The snapshot import's body and names (issue 18 item 6): a Content-Length over the cap is a 413 at once,
// before a byte of the body is read; a chunked body over it is a 413 with its temp file gone [SNAP-6];
// snapshot names come from a safe alphabet, never `.`, `..` or a path [SNAP-7].

import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/http/limits.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { failed, invalid, type V2Response } from '../helpers/v2.ts';

const CAP = 256 * 1024;
let t: TestService;

beforeAll(async () => {
  t = await startTestService({
    speed: 0,
    httpLimits: { ...DEFAULT_HTTP_LIMITS, snapshotFileBytes: CAP },
  });
  ok(await t.sim('POST', '/snapshots', { name: 'kept' }), 201);
}, 60_000);
afterAll(async () => t?.close());

const call = (method: string, path: string, init: RequestInit = {}) =>
  fetch(`${t.svc.httpUrl}/sim/v1${path}`, {
    method,
    ...init,
    headers: { 'x-admin-token': ADMIN_TOKEN, ...(init.headers as Record<string, string>) },
  }).then(
    async (res) => ({ status: res.status, headers: res.headers, body: await res.json() }) as V2Response,
  );

/** The status of a request sent with its path exactly as given. */
const status = (method: string, path: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(`${t.svc.httpUrl}/sim/v1${path}`, {
      method,
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });

const spools = () => readdirSync(tmpdir()).filter((f) => f.startsWith('meterstack-snapshot-'));

/** Sends only a request head (and `extra` bytes) on a raw socket; the first answer's text, or '' by `ms`. */
function head(lines: string[], extra = '', ms = 3_000): Promise<string> {
  const { hostname, port } = new URL(t.svc.httpUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, ms);
    socket.on('data', (d) => {
      got += d.toString();
      if (/\r\n\r\n[\s\S]*}$/.test(got)) done();
    });
    socket.on('error', done);
    socket.write(`${lines.join('\r\n')}\r\n\r\n${extra}`);
  });
}

describe('POST /sim/v1/snapshots/import: the body [SNAP-6]', () => {
  it('Content-Length 3 GiB: 413 in the envelope at once, the body never read, no server path named', async () => {
    const before = spools();
    const started = Date.now();
    const answer = await head(
      [
        'POST /sim/v1/snapshots/import?name=huge HTTP/1.1',
        `Host: ${new URL(t.svc.httpUrl).host}`,
        `x-admin-token: ${ADMIN_TOKEN}`,
        'content-type: application/octet-stream',
        `content-length: ${3 * 1024 ** 3}`,
      ],
      'SQLite format 3\0',
    );
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(Date.now() - started).toBeLessThan(2_000);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as V2Response['body'];
    expect(body).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
    expect(JSON.stringify(body)).not.toContain(tmpdir());
    expect(spools()).toEqual(before);
  });

  it('a chunked body over the cap: 413, and its temp file is removed', async () => {
    const before = spools();
    const chunk = new Uint8Array(64 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent > 2 * CAP) return c.close();
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const res = await call('POST', '/snapshots/import?name=chunked', {
      body,
      headers: { 'content-type': 'application/octet-stream' },
      duplex: 'half',
    } as RequestInit);
    failed(res, 413, 'payload_too_large');
    expect(JSON.stringify(res.body)).not.toContain(tmpdir());
    await new Promise((r) => setTimeout(r, 100));
    expect(spools()).toEqual(before);
    expect(ok(await t.sim<{ name: string }[]>('GET', '/snapshots')).map((s) => s.name)).toEqual(['kept']);
  });
});

describe('snapshot names [SNAP-7]', () => {
  // As they reach the service: a query value, a JSON string, a path segment (percent-encoded).
  const BAD = ['.', '..', 'a/b', '%2e%2e', 'été', '☃', '.hidden', '-x', 'a b', 'a'.repeat(65), ''];

  it('`.`, `..`, a path, percent signs, unicode, 65 characters: 422 on import, save, restore, export and delete', async () => {
    for (const name of BAD) {
      const q = encodeURIComponent(name);
      const body = new Uint8Array([1]);
      invalid(
        await call('POST', `/snapshots/import?name=${q}`, {
          body,
          headers: { 'content-type': 'application/octet-stream' },
        }),
      );
      invalid(
        await call('POST', '/snapshots', {
          body: JSON.stringify({ name }),
          headers: { 'content-type': 'application/json' },
        }),
      );
      if (name === '' || name.includes('/')) continue; // not one path segment: no such route
      // node:http sends the path as written (fetch would resolve `.` and `..` away first); a `.` or
      // `..` segment, encoded or not, matches no route (404): it never reaches a file either way.
      const dots = /^\.+$/.test(name);
      for (const [method, path] of [
        ['POST', `/snapshots/${q}/restore`],
        ['DELETE', `/snapshots/${q}`],
        ['GET', `/snapshots/${q}/export`],
      ] as const)
        expect(await status(method, path), `${method} ${path}`).toBe(dots ? 404 : 422);
    }
    expect(ok(await t.sim<{ name: string }[]>('GET', '/snapshots')).map((s) => s.name)).toEqual(['kept']);
  });

  it('64 characters of the alphabet are a name', async () => {
    const name = `A${'b'.repeat(61)}.9`;
    expect(name).toHaveLength(64);
    ok(await t.sim('POST', '/snapshots', { name }), 201);
    ok(await t.sim('DELETE', `/snapshots/${name}`));
  });
});
