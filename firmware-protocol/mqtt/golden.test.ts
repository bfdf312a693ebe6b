// Runs the codec over every golden vector in ./golden — the same files firmware authors test against.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decode, decodeReplyData, encode } from './codec.ts';
import type { ReplyDataOp } from './schemas.ts';
import { CHANNELS, type Channel } from './topics.ts';

interface ValidVector {
  name: string;
  channel: Channel;
  payload: string;
  decoded: unknown;
  /** True when `payload` is exactly what `encode` produces for `decoded`. */
  canonical: boolean;
  /** For replies: the op whose `data` the reply carries [MC-8.6]. */
  op?: ReplyDataOp | string;
}
interface InvalidVector {
  name: string;
  channel: Channel;
  payload: string;
  rule: string;
  error_contains: string;
  op?: ReplyDataOp;
}

const load = <T>(file: string): T[] =>
  JSON.parse(readFileSync(new URL(`golden/${file}`, import.meta.url), 'utf8'));
const valid = load<ValidVector>('valid.json');
const invalid = load<InvalidVector>('invalid.json');
const hasData = (op: string | undefined): op is ReplyDataOp =>
  op === 'read' || op === 'get_wifi' || op === 'recharge';

describe('golden/valid.json', () => {
  it.each(valid.map((v) => [v.name, v] as const))('%s', (_name, vector) => {
    const result = decode(vector.channel, vector.payload);
    expect(result).toEqual({ ok: true, value: vector.decoded });
    if (!result.ok) return;
    const reply = vector.channel === 'reply' ? decode('reply', vector.payload) : null;
    if (reply?.ok && reply.value.ok && hasData(vector.op)) {
      expect(decodeReplyData(vector.op, reply.value.data)).toEqual({ ok: true, value: reply.value.data });
    }
    const text = encode(vector.channel, result.value);
    if (vector.canonical) expect(text).toBe(vector.payload);
    expect(decode(vector.channel, text)).toEqual(result);
  });

  it('has at least one vector per channel and per command op', () => {
    for (const channel of CHANNELS) expect(valid.some((v) => v.channel === channel)).toBe(true);
    const ops = new Set(
      valid.flatMap((v) => (v.channel === 'cmd' ? [(v.decoded as { op: string }).op] : [])),
    );
    expect([...ops].sort()).toEqual([
      'get_wifi',
      'read',
      'recharge',
      'set_active_tariff',
      'set_gateway',
      'set_mode',
      'set_relay',
      'set_tariff',
      'set_wifi',
    ]);
  });
});

describe('golden/invalid.json', () => {
  it.each(invalid.map((v) => [v.name, v] as const))('%s', (_name, vector) => {
    if (vector.op) {
      // The envelope is fine; the op-specific data is not [MC-8.6].
      const reply = decode('reply', vector.payload);
      expect(reply).toMatchObject({ ok: true, value: { ok: true } });
      if (!reply.ok || !reply.value.ok) return;
      const data = decodeReplyData(vector.op, reply.value.data);
      expect(data).toMatchObject({ ok: false, error: { rule: vector.rule } });
      if (!data.ok) expect(data.error.message).toContain(vector.error_contains);
      return;
    }
    const result = decode(vector.channel, vector.payload);
    expect(result).toMatchObject({ ok: false, error: { rule: vector.rule } });
    if (!result.ok) expect(result.error.message).toContain(vector.error_contains);
  });

  it('has at least 12 vectors', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(12);
  });
});
