// Property-based fuzzing of the MQTT payload codec (issue 8, "Evidence expected"): on every channel,
// arbitrary bytes, arbitrary JSON and hostile mutations of valid payloads never make decode throw; each
// refusal is a typed DecodeError naming its rule [MC-9.3, MC-9.4]; generated valid payloads encode and
// decode back to themselves; unknown fields change nothing [MC-3.6]; the meter's command decoder always
// answers a valid reply or nothing [MC-9.1, MC-9.2]. Budget: fuzz-config.ts.

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  commandFromWire,
  type DecodeResult,
  decode,
  decodeMessage,
  encode,
  MAX_PAYLOAD_BYTES,
} from '../../firmware-protocol/mqtt/codec.ts';
import {
  COMMAND_OPS,
  KNOWN_PROPERTIES,
  MAX_SAMPLES,
  type PayloadOf,
} from '../../firmware-protocol/mqtt/schemas.ts';
import { CHANNELS, type Channel, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { fuzzParams, fuzzTimeout } from './fuzz-config.ts';

interface Golden {
  channel: Channel;
  payload: string;
}
const GOLDEN = JSON.parse(
  readFileSync(new URL('../../firmware-protocol/mqtt/golden/valid.json', import.meta.url), 'utf8'),
) as Golden[];

/** Every answer of a decoder: a value, or `{rule, message}` with an MC rule and a bounded message. */
function expectTyped(result: DecodeResult<unknown>): void {
  if (result.ok) {
    expect(typeof result.value).toBe('object');
    return;
  }
  expect(result.error.rule).toMatch(/^MC-\d+\.\d+$/);
  expect(typeof result.error.message).toBe('string');
  // Untrusted input is clipped in messages, so an error stays small whatever the payload [MC-9.4].
  expect(result.error.message.length).toBeLessThan(1_000);
}

/**
 * A decoded value encodes and decodes to itself: what a receiver accepts, a sender can repeat. Compared as
 * JSON, where a received `-0` and the `0` it is written as are the same number.
 */
function expectStable<C extends Channel>(channel: C, value: PayloadOf<C>): void {
  const again = decode(channel, encode(channel, value));
  expect(again).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
}

// ---- hostile values ----

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e400',
    '0x1',
    ' 1',
    '1',
    'true',
    'null',
    '\u0000',
    '💥'.repeat(40),
  ),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.tuple(fc.string({ maxLength: 5 }), loneSurrogate).map(([a, b]) => a + b),
  fc.string({ minLength: 600, maxLength: 2_000 }),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, 1.5, -0.000001, 2 ** 53, -(2 ** 53), 1e308, -1e308, 5e-324, 32_503_680_000_000),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
/** JSON nested `depth` levels deep. */
const deep = fc.integer({ min: 1, max: 300 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
});
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false, [], {}),
  fc.jsonValue({ maxDepth: 3 }),
  deep,
);

/** A JSON path into `value` (objects and arrays), chosen by `picks`. */
function pathInto(value: unknown, picks: readonly number[]): (string | number)[] {
  const path: (string | number)[] = [];
  let node = value;
  for (const pick of picks) {
    if (typeof node !== 'object' || node === null) break;
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[pick % keys.length]!;
    path.push(key);
    node = (node as Record<string | number, unknown>)[key];
  }
  return path;
}

type Mutation = 'set' | 'delete' | 'extra';
/** A valid golden payload with one field replaced, removed, or an extra field added, somewhere inside. */
const mutatedGolden = fc
  .tuple(
    fc.constantFrom(...GOLDEN),
    fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
    fc.constantFrom<Mutation>('set', 'delete', 'extra'),
    hostileValue,
    fc.string({ maxLength: 12 }),
  )
  .map(([golden, picks, how, value, extraKey]) => {
    const root = JSON.parse(golden.payload) as Record<string, unknown>;
    const path = pathInto(root, picks);
    const parentPath = how === 'extra' ? path : path.slice(0, -1);
    let parent: unknown = root;
    for (const key of parentPath) {
      const next = (parent as Record<string | number, unknown>)[key];
      if (typeof next !== 'object' || next === null) break;
      parent = next;
    }
    const target = parent as Record<string | number, unknown>;
    const last = path[path.length - 1];
    if (how === 'extra' && !Array.isArray(target)) target[`x_${extraKey}`] = value;
    else if (how === 'delete' && last !== undefined) delete target[last];
    else if (last !== undefined) target[last] = value;
    return { channel: golden.channel, payload: JSON.stringify(root) ?? '' };
  });

const anyChannel = fc.constantFrom(...CHANNELS);
const bytes = fc.uint8Array({ maxLength: 2_000 }).map((b) => Buffer.from(b));
const jsonText = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
);

// ---- valid payloads, generated from the contract ----

const deviceId = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/);
const commandId = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/);
const ts = fc.nat({ max: Number.MAX_SAFE_INTEGER });
const paise = fc.maxSafeInteger();
const tariff = fc.nat({ max: Number.MAX_SAFE_INTEGER });
const text = (min: number, max: number) =>
  fc.string({ unit: 'grapheme', minLength: min, maxLength: max }).filter((s) => s.length <= max);
const nonNeg = fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x));
const real = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x));
const mode = fc.constantFrom('prepaid', 'postpaid', 'measurement', 'relay_off' as const);

const KNOWN = [...KNOWN_PROPERTIES].map(([property_id, p]) => ({ property_id, ...p }));
const info = fc.record({
  v: fc.constant(1 as const),
  device_id: deviceId,
  model: fc.constantFrom('basic', 'full' as const),
  firmware: text(1, 64),
  has_relay: fc.boolean(),
  telemetry_period_s: fc.double({ min: 0.001, max: 86_400, noNaN: true }),
  properties: fc
    .tuple(
      fc.subarray(KNOWN.slice(3)),
      fc.uniqueArray(
        fc.record({
          property_id: fc.stringMatching(/^x_[a-z0-9_]{0,20}$/),
          context_type: fc.constantFrom('cumulative', 'instantaneous' as const),
          unit: text(0, 16),
        }),
        { selector: (p) => p.property_id, maxLength: 5 },
      ),
    )
    .chain(([known, extra]) =>
      fc.shuffledSubarray([...KNOWN.slice(0, 3), ...known, ...extra], {
        minLength: 3 + known.length + extra.length,
      }),
    ),
});
const stateFields = {
  ts,
  mode,
  relay_commanded: fc.boolean(),
  relay_state: fc.boolean(),
  eb_tariff: tariff,
  dg_tariff: tariff,
  active_tariff: fc.constantFrom(1, 2 as const),
  balance: paise,
  pg_enabled: fc.boolean(),
  wifi_type: fc.constantFrom('Primary', 'Secondary' as const),
};
const state = fc.record({ v: fc.constant(1 as const), ...stateFields });
const availability = fc.record(
  { v: fc.constant(1 as const), online: fc.boolean(), ts },
  { requiredKeys: ['v', 'online'] },
);
const sample = fc.record(
  {
    ts,
    energy: nonNeg,
    active_power: real,
    voltage: nonNeg,
    current: nonNeg,
    power_factor: fc.double({ min: -1, max: 1, noNaN: true }).map((x) => (x === 0 ? 0 : x)),
    apparent_power: nonNeg,
    reactive_power: real,
    balance: paise,
  },
  { requiredKeys: ['ts', 'energy', 'active_power', 'voltage', 'balance'] },
);
/** [MC-7.3] ts strictly ascends; [MC-7.5] energy never decreases: sorted draws, made distinct. */
const telemetry = fc.array(sample, { minLength: 1, maxLength: 30 }).map((samples) => {
  const tss = [...new Set(samples.map((s) => s.ts))].sort((a, b) => a - b);
  const energies = samples.map((s) => s.energy).sort((a, b) => a - b);
  return {
    v: 1 as const,
    samples: tss.map((t, i) => ({ ...samples[i]!, ts: t, energy: energies[i]! })),
  };
});
const cmdArgs: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  set_relay: fc.record({ on: fc.boolean() }),
  set_mode: fc.record({ mode }),
  set_tariff: fc.record({ slot: fc.constantFrom('eb', 'dg'), paise: tariff }),
  set_active_tariff: fc.record({ tariff: fc.constantFrom(1, 2) }),
  set_gateway: fc.record({ enabled: fc.boolean() }),
  set_wifi: fc.record({ ssid: text(1, 32), password: text(0, 64) }),
  get_wifi: fc.constant({}),
  recharge: fc.record({ amount: fc.integer({ min: 1 }), transaction_id: commandId }),
  read: fc.constant({}),
};
const cmd = fc
  .tuple(commandId, fc.constantFrom(...COMMAND_OPS))
  .chain(([id, op]) => cmdArgs[op]!.map((args) => ({ v: 1, id, op, ...args })));
const reply = fc.oneof(
  fc.record(
    {
      v: fc.constant(1 as const),
      id: commandId,
      ok: fc.constant(true as const),
      data: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: ['v', 'id', 'ok'] },
  ),
  fc.record({
    v: fc.constant(1 as const),
    id: commandId,
    ok: fc.constant(false as const),
    error: fc.record({
      code: fc.constantFrom('invalid_argument', 'unsupported', 'busy', 'bad_request'),
      message: text(0, 512),
    }),
  }),
);
const VALID: { [C in Channel]: fc.Arbitrary<unknown> } = { info, state, availability, telemetry, cmd, reply };
const validMessage = anyChannel.chain((channel) =>
  VALID[channel].map((value) => ({ channel, value: value as PayloadOf<typeof channel> })),
);

describe('fuzz: MQTT payload codec (issue 8, evidence: fuzzing the MQTT payload decoders)', () => {
  it(
    '[MC-9.3][MC-9.4] decode never throws on any bytes, any JSON or a mutated valid payload: a value or a typed error',
    () => {
      const input = fc.oneof(
        fc.tuple(anyChannel, fc.oneof(bytes, jsonText)).map(([channel, payload]) => ({ channel, payload })),
        mutatedGolden,
      );
      fc.assert(
        fc.property(input, ({ channel, payload }) => {
          const result = decode(channel, payload);
          expectTyped(result);
          if (result.ok) expectStable(channel, result.value);
        }),
        fuzzParams(2_000),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[MC-3.1] deep nesting, huge and non-UTF-8 payloads are refused as MC-3.1 or by schema, without a throw',
    () => {
      const hostile = fc.oneof(
        fc.integer({ min: 1, max: 200_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
        fc
          .integer({ min: 1, max: 200_000 })
          .map((n) => `{"v":1,"data":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
        fc
          .integer({ min: MAX_PAYLOAD_BYTES - 10, max: MAX_PAYLOAD_BYTES + 10 })
          .map((n) => `{"v":1,"x":"${'é'.repeat(n / 2)}"}`),
        fc.constant(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
        fc.constant(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"v":1}')])),
      );
      fc.assert(
        fc.property(anyChannel, hostile, (channel, payload) => {
          const result = decode(channel, payload);
          expectTyped(result);
          const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
          if (size > MAX_PAYLOAD_BYTES)
            expect(result).toMatchObject({ ok: false, error: { rule: 'MC-3.1' } });
        }),
        fuzzParams(60),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[MC-4]..[MC-8] a valid payload generated from the contract encodes and decodes to itself',
    () => {
      fc.assert(
        fc.property(validMessage, ({ channel, value }) => {
          const wire = encode(channel, value);
          expect(Buffer.byteLength(wire)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
          expect(decode(channel, wire)).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
          expect(decode(channel, Buffer.from(wire))).toEqual({ ok: true, value: JSON.parse(wire) });
        }),
        fuzzParams(1_500),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[MC-3.6] unknown fields, anywhere at the top level, change nothing in what is decoded',
    () => {
      fc.assert(
        fc.property(
          validMessage,
          fc.dictionary(
            fc.string({ maxLength: 10 }).map((k) => `x-${k}`),
            fc.jsonValue({ maxDepth: 2 }),
          ),
          ({ channel, value }, extra) => {
            const plain = decode(channel, encode(channel, value));
            const wire = JSON.stringify({ ...extra, ...JSON.parse(encode(channel, value)) });
            expect(decode(channel, wire)).toEqual(plain);
          },
        ),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[MC-1.3][MC-1.4] decodeMessage never throws on any topic and payload, and info must name its own topic',
    () => {
      const topic = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 120 }),
        fc
          .tuple(fc.oneof(deviceId, fc.string({ maxLength: 70 })), anyChannel)
          .map(([d, c]) => topicFor(d, c)),
        fc.constantFrom(
          'meterstack/v1/+/state',
          'meterstack/v1/#',
          'meterstack/v2/a/state',
          '/meterstack/v1/a/info',
        ),
      );
      fc.assert(
        fc.property(
          topic,
          fc.oneof(
            jsonText,
            mutatedGolden.map((m) => m.payload),
            info.map((i) => JSON.stringify(i)),
          ),
          (t, payload) => {
            const result = decodeMessage(t, payload);
            expectTyped(result);
            if (result.ok && result.value.channel === 'info') {
              expect(result.value.payload.device_id).toBe(result.value.deviceId);
            }
          },
        ),
        fuzzParams(1_000),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[MC-9.1][MC-9.2] the meter-side command decoder never throws, and any reply it asks for is a valid reply',
    () => {
      const input = fc.oneof(
        bytes,
        jsonText,
        mutatedGolden.filter((m) => m.channel === 'cmd').map((m) => m.payload),
        cmd.map((c) => JSON.stringify(c)),
      );
      fc.assert(
        fc.property(input, (payload) => {
          const result = commandFromWire(payload);
          if (result.ok) {
            expect(COMMAND_OPS).toContain(result.command.op);
            return;
          }
          expectTyped({ ok: false, error: result.error });
          if (result.reply === null) expect(result.id).toBeNull();
          else {
            expect(result.reply.id).toBe(result.id);
            expect(decode('reply', encode('reply', result.reply)).ok).toBe(true);
          }
        }),
        fuzzParams(1_500),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[MC-7.2] a telemetry batch of up to 1000 samples fits in one payload [MC-3.1]',
    () => {
      fc.assert(
        fc.property(fc.array(sample, { minLength: MAX_SAMPLES, maxLength: MAX_SAMPLES }), (samples) => {
          const batch = { v: 1 as const, samples: samples.map((s, i) => ({ ...s, ts: i, energy: i })) };
          expect(Buffer.byteLength(encode('telemetry', batch))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
        }),
        fuzzParams(10),
      );
    },
    fuzzTimeout(20_000),
  );
});
