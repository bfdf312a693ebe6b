// One style for validation messages (issue 10 item 6, spec-decisions 67): the error map's messages
// for each kind of zod issue, and every message the v2 and /sim/v1 request schemas give for a set of
// bad inputs in that style (sentence case, no final period).

import { describe, expect, it } from 'vitest';
import type { $ZodType } from 'zod/v4/core';
import * as v2 from '../api/v2/schemas.ts';
import * as sim from '../sim-api/schemas.ts';
import { nulPaths, validatorCompiler } from './validation.ts';

function messages(schema: unknown, input: unknown): { path: string; msg: string }[] {
  const validate = validatorCompiler({
    schema: schema as $ZodType,
    method: 'POST',
    url: '/',
    httpPart: 'body',
  });
  const result = validate(input) as { error?: { instancePath: string; message: string }[] };
  return (result.error ?? []).map((e) => ({ path: e.instancePath, msg: e.message }));
}

describe('the error map: what each kind of issue says', () => {
  it.each([
    ['missing field', v2.relayBody, {}, 'Field required'],
    ['wrong type', v2.relayBody, { state: 'on' }, 'Input should be a valid boolean'],
    ['not an integer', v2.tariffBody, { tariff: 8.5 }, 'Input should be a valid integer'],
    ['below the minimum', v2.tariffBody, { tariff: -1 }, 'Input should be greater than or equal to 0'],
    ['above the maximum', v2.tariffBody, { tariff: 100_001 }, 'Input should be less than or equal to 100000'],
    [
      'not in the enum',
      v2.modeBody,
      { mode: 'free' },
      "Input should be 'prepaid', 'postpaid', 'measurement' or 'relay_off'",
    ],
    [
      'too long',
      v2.wifiBody,
      { ssid: 's'.repeat(33), password: '' },
      'String should have at most 32 characters',
    ],
    ['too short', v2.wifiBody, { ssid: '', password: '' }, 'String should have at least 1 character'],
    ['a body that is not an object', v2.relayBody, [true], 'Input should be a JSON object'],
    [
      'an unknown field (strict)',
      sim.onlineBody,
      { online: true, x: 1 },
      "Extra fields are not permitted: 'x'",
    ],
    ['not positive', sim.rechargeBody, { amount: 0, transaction_id: 't' }, 'Input should be greater than 0'],
    ['a union of literals', v2.activeTariffBody, { active_tariff: 3 }, 'Input should be 1 (EB) or 2 (DG)'],
  ])('%s', (_why, schema, input, msg) => {
    expect(messages(schema, input)[0]?.msg).toBe(msg);
  });

  it("keeps the spec's own words: Invalid property ID, and a message about the date format", () => {
    const q = { property_id: 'frequency', from_date: '2026-1-5', to_date: '2026-01-05' };
    expect(messages(v2.historyQuery, q)).toEqual([
      { path: '/property_id', msg: 'Invalid property ID' },
      { path: '/from_date', msg: 'Input should be a date in the format YYYY-MM-DD' },
    ]);
  });
});

describe('every message of the request schemas is in the one style', () => {
  const bad: [unknown, unknown][] = [
    [v2.metadataBody, {}],
    [v2.metadataBody, { name: '', description: 5, udf1: 'u'.repeat(256) }],
    [v2.wifiBody, { ssid: 'é'.repeat(17), password: 'p'.repeat(65) }],
    [v2.historyQuery, {}],
    [
      v2.historyQuery,
      { property_id: 'energy', from_date: '2026-02-30', to_date: '2026-01-01', interval: '5m' },
    ],
    [v2.historyQuery, { property_id: 'energy', from_date: '2026-01-02', to_date: '2026-01-01' }],
    [v2.historyQuery, { property_id: 'energy', from_date: '2020-01-01', to_date: '2026-01-01' }],
    [v2.spaceParams, { space_id: '0x1' }],
    [sim.deviceBody, { account_id: -1, device_id: 'a b', model: 'x', balance: 1.5, seed: -1, extra: 1 }],
    [sim.keyBody, { expires_at: 'tomorrow' }],
    [sim.advanceBody, { seconds: 'soon' }],
  ];
  it.each(bad.map(([schema, input], i) => [i, schema, input]))('case %i', (_i, schema, input) => {
    const found = messages(schema, input);
    expect(found.length).toBeGreaterThan(0);
    for (const { path, msg } of found) expect(msg, path).toMatch(/^[A-Z][\s\S]*[^.]$/);
    expect(found.map((f) => f.msg).join('\n')).not.toMatch(
      /Invalid input|expected .* received|Too (big|small)/,
    );
  });
});

describe('nulPaths [spec-decisions 149]', () => {
  it.each([
    ['a clean body', { a: 'x', b: [1, 'y', { c: 'z' }] }, []],
    ['a string', 'a\u0000', [[]]],
    ['a nested value', { a: [{ b: 'ok' }, { b: '\u0000' }] }, [['a', 1, 'b']]],
    ['a key', { 'k\u0000': 'v' }, [['k\u0000']]],
    ['two fields, in order', { x: '\u0000', y: { z: 'q\u0000' } }, [['x'], ['y', 'z']]],
    ['the two characters \\ and 0 are no NUL', { a: '\\0', b: '\\u0000' }, []],
  ])('%s', (_name, data, paths) => {
    expect(nulPaths(data)).toEqual(paths);
  });

  it('walks 100,000 levels of nesting without overflowing the stack, and names at most 20 fields', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const found = nulPaths(deep);
    expect(found).toHaveLength(1);
    expect(found[0]).toHaveLength(100_000);
    expect(nulPaths(Array.from({ length: 500 }, () => '\u0000'))).toHaveLength(20);
  });
});

describe('path parameters: a valid set is parsed once (issue 19 step 7)', () => {
  const params = validatorCompiler({
    schema: v2.spaceParams as unknown as $ZodType,
    method: 'GET',
    url: '/spaces/:space_id/',
    httpPart: 'params',
  });
  type Result = { value?: { space_id: number }; error?: { message: string }[] };
  const validate = (data: unknown) => params(data) as Result;

  it('answers a repeated set with the parsed value, a new object each time', () => {
    const first = validate({ space_id: '7' });
    expect(first.value).toEqual({ space_id: 7 });
    first.value!.space_id = 99; // a handler changing its copy changes no one else's
    const second = validate({ space_id: '7' });
    expect(second.value).toEqual({ space_id: 7 });
    expect(second.value).not.toBe(first.value);
  });

  it('still refuses every invalid set, before and after a valid one, with the same message', () => {
    for (const data of [{ space_id: '07' }, { space_id: '7' }, { space_id: '07' }, { space_id: '7\u0000' }]) {
      const result = validate(data);
      if (data.space_id === '7') expect(result.value).toEqual({ space_id: 7 });
      else
        expect(result.error?.[0]?.message).toMatch(/^(Input should be a positive integer|String should not)/);
    }
  });
});
