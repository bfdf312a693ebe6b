// issue 8 item 19: what fastify and node answer before any route runs is in the envelope with a code
// from the one error list (spec-decisions 43); integer path parameters are canonical decimal only
// (42); text with a lone surrogate or invalid UTF-8 is refused, never stored as U+FFFD (44).
// All over real HTTP (fetch, or a raw socket where fetch would not send the bytes).

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startTestService, type TestService } from '../helpers/service.ts';
import {
  type Envelope,
  failed,
  invalid,
  type Space,
  type Tenant,
  tenant,
  type V2,
  v2Client,
} from '../helpers/v2.ts';

let t: TestService;
let v2: V2;
let a: Tenant;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  v2 = v2Client(t.svc.httpUrl);
  a = await tenant(t.sim, { model: 'basic' });
});
afterAll(() => t.close());

/** Writes `request` on a fresh socket and returns the whole answer (the server closes it). */
function rawHttp(request: string | Buffer): Promise<{ status: number; body: Envelope }> {
  const url = new URL(t.svc.httpUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n([\s\S]*)$/.exec(text);
      if (!m) return reject(new Error(`not an HTTP answer: ${text.slice(0, 200)}`));
      resolve({ status: Number(m[1]), body: JSON.parse(m[2]!) as Envelope });
    });
    socket.write(request);
  });
}

describe('answers from before routing are in the envelope (issue 8 item 19, spec-decisions 43)', () => {
  it('a path segment over 100 characters is 414 uri_too_long', async () => {
    const res = await v2('GET', `/devices/${'x'.repeat(101)}/`, undefined, a.key);
    expect(failed(res, 414, 'uri_too_long')).toMatch(/path segment exceeds 100 characters/);
  });

  it('a malformed %-encoding is 400 malformed_url, on /api/v2 and /sim/v1 alike', async () => {
    for (const path of [`/devices/%zz/`, `/devices/%E0%A4%A/`, `/devices/%ED%A0%80/`, `/devices/%FF/wifi`]) {
      failed(await v2('GET', path, undefined, a.key), 400, 'malformed_url');
    }
    const sim = await fetch(`${t.svc.httpUrl}/sim/v1/devices/%zz`, { headers: { 'x-admin-token': 'x' } });
    expect(sim.status).toBe(400);
    expect(((await sim.json()) as Envelope).error?.code).toBe('malformed_url');
  });

  it('headers over 16 KiB are 431 headers_too_large', async () => {
    const res = await v2('GET', '/spaces/', undefined, a.key, { headers: { 'x-big': 'a'.repeat(20_000) } });
    failed(res, 431, 'headers_too_large');
  });

  it('a request line that is not HTTP is 400 bad_request', async () => {
    const res = await rawHttp('GARBAGE\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'bad_request' } });
    expect(typeof res.body.timestamp).toBe('string');
  });
});

describe('integer path parameters are canonical decimal (issue 8 item 19, spec-decisions 42)', () => {
  it('space_id 0x1, 1e0, " 1", 01, +1, 1.0 and 2^53 are 422 at [space_id]; the canonical id works', async () => {
    const id = a.spaceId;
    for (const spelled of [
      `0x${id.toString(16)}`,
      `${id}e0`,
      `%20${id}`,
      `0${id}`,
      `+${id}`,
      `${id}.0`,
      '9007199254740992',
    ]) {
      expect(invalid(await v2('GET', `/spaces/${spelled}/`, undefined, a.key)), spelled).toEqual([
        { loc: ['space_id'], msg: 'Input should be a positive integer' },
      ]);
    }
    expect((await v2<Space>('GET', `/spaces/${id}/`, undefined, a.key)).body.data?.space_id).toBe(id);
  });

  it('/sim/v1 account_id likewise: 0x1 is 422, the canonical id creates a key', async () => {
    const bad = await t.sim('POST', `/accounts/0x${a.accountId.toString(16)}/keys`, {});
    expect(bad.status).toBe(422);
    expect(bad.body.error?.detail).toEqual([
      { loc: ['account_id'], msg: 'Input should be a positive integer' },
    ]);
    ok(await t.sim('POST', `/accounts/${a.accountId}/keys`, {}));
  });
});

describe('text is never silently replaced by U+FFFD (issue 8 item 19, spec-decisions 44)', () => {
  it('a lone surrogate in a body string is 422 naming the field, and nothing is stored', async () => {
    const before = (await v2<Space>('GET', `/spaces/${a.spaceId}/`, undefined, a.key)).body.data!;
    const res = await v2('PUT', `/spaces/${a.spaceId}/`, { name: 'Block \ud800 B', udf1: 'ok' }, a.key);
    expect(invalid(res)).toEqual([{ loc: ['name'], msg: expect.stringMatching(/lone UTF-16 surrogate/) }]);
    expect((await v2<Space>('GET', `/spaces/${a.spaceId}/`, undefined, a.key)).body.data).toEqual(before);
  });

  it('a low surrogate alone, one inside an array and one in a key are each named', async () => {
    const sim = await t.sim('POST', '/accounts', { name: 'x\udc00' });
    expect(sim.status).toBe(422);
    expect(sim.body.error?.detail).toEqual([
      { loc: ['name'], msg: expect.stringMatching(/lone UTF-16 surrogate/) },
    ]);
    const nested = await v2(
      'POST',
      `/devices/${a.deviceId}/wifi`,
      { ssid: 'ok', password: 'p', x: ['a', '\ud83d'], ['k\ud800']: 1 },
      a.key,
    );
    expect(invalid(nested).map((i) => i.loc)).toEqual([['x', '1'], ['k\ud800']]);
  });

  it('a well-formed pair written as escapes (\\ud83d\\udcf6 = 📶) is text and accepted', async () => {
    const raw = '{"name":"Signal \\ud83d\\udcf6"}';
    const res = await v2<Space>('PUT', `/spaces/${a.spaceId}/`, undefined, a.key, { raw });
    expect(res.status).toBe(200);
    expect(res.body.data?.name).toBe('Signal 📶');
  });

  it('a body that is not valid UTF-8 is 422 at [body], not decoded to U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await fetch(`${t.svc.httpUrl}/api/v2/spaces/${a.spaceId}/`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-service-api-key': a.key },
      body,
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as Envelope).error).toEqual({
      code: 'validation_error',
      detail: [{ loc: ['body'], msg: 'Body should be valid UTF-8' }],
    });
  });

  it('prototype poisoning is still refused by the JSON parser', async () => {
    const res = await v2('PUT', `/spaces/${a.spaceId}/`, undefined, a.key, {
      raw: '{"__proto__":{"x":1},"name":"n"}',
    });
    expect(res.status).toBe(422);
  });
});
