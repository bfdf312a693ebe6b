// Property-based fuzzing of the DLMS application-layer codecs (issue 21 item 6): whatever bytes arrive,
// decodeData, decodeDateTime and decodeApdu answer a value or a typed error naming a rule and never
// throw [AX-1.4]; generated values round-trip through encode/decode [AX-3, AP-1]; a GET response split
// into blocks, and a SET value likewise, fits the PDU size and reassembles to the same Data [AP-5.5, AP-5.6,
// AP-6.2].
// Budget: fuzz-config.ts (CI runs a few hundred cases; `npm run fuzz` runs for minutes).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { associationRequest } from '../../firmware-protocol/dlms/apdu/aarq.ts';
import { type Apdu, decodeApdu, encodeApdu } from '../../firmware-protocol/dlms/apdu/apdu.ts';
import { fromHex } from '../../firmware-protocol/dlms/apdu/axdr.ts';
import {
  acceptBlock,
  getResponses,
  setRequests,
  startAssembly,
} from '../../firmware-protocol/dlms/apdu/blocks.ts';
import type { AttributeDescriptor, GetDataResult, Invoke } from '../../firmware-protocol/dlms/apdu/cosem.ts';
import { type Data, decodeData, encodeData } from '../../firmware-protocol/dlms/apdu/data.ts';
import { type DateTime, decodeDateTime } from '../../firmware-protocol/dlms/apdu/datetime.ts';
import type { Result } from '../../firmware-protocol/dlms/apdu/errors.ts';
import { loadVectors } from '../../firmware-protocol/dlms/apdu/golden/vectors.ts';
import { CONFORMANCE_BITS } from '../../firmware-protocol/dlms/apdu/initiate.ts';
import { fuzzParams, fuzzTimeout } from './fuzz-config.ts';

const CODES = ['truncated', 'bad_length', 'bad_tag', 'bad_value', 'too_deep', 'trailing', 'unsupported'];

function expectTyped<T>(result: Result<T>, input: Uint8Array): void {
  if (result.ok) return;
  expect(CODES).toContain(result.error.code);
  expect(result.error.rule).toMatch(/^A[XP]-\d+\.\d+$/);
  expect(result.error.message).not.toMatch(/^internal/);
  expect(result.error.offset).toBeGreaterThanOrEqual(0);
  expect(result.error.offset).toBeLessThanOrEqual(input.length);
}

const { data: dataVectors, apdu: apduVectors } = loadVectors();
const GOLDEN = [...dataVectors, ...apduVectors].map((v) => fromHex(v.hex));

/** Random bytes, and golden vectors cut, spliced and with bytes changed: the inputs that reach deep. */
const hostile = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc
    .tuple(fc.constantFrom(...GOLDEN), fc.nat(), fc.nat(), fc.uint8Array({ maxLength: 8 }))
    .map(([g, at, cut, insert]) => {
      const i = g.length === 0 ? 0 : at % g.length;
      const out = new Uint8Array([...g.slice(0, i), ...insert, ...g.slice(i + (cut % 4))]);
      return out;
    }),
);

// ---- value arbitraries ----

const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const dateTimeArb: fc.Arbitrary<DateTime> = fc.record({
  year: nullable(fc.integer({ min: 0, max: 0xfffe })),
  month: nullable(fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(0xfd, 0xfe))),
  day: nullable(fc.oneof(fc.integer({ min: 1, max: 31 }), fc.constantFrom(0xfd, 0xfe))),
  dayOfWeek: nullable(fc.integer({ min: 1, max: 7 })),
  hour: nullable(fc.integer({ min: 0, max: 23 })),
  minute: nullable(fc.integer({ min: 0, max: 59 })),
  second: nullable(fc.integer({ min: 0, max: 59 })),
  hundredths: nullable(fc.integer({ min: 0, max: 99 })),
  deviation: nullable(fc.integer({ min: -720, max: 720 })),
  status: nullable(fc.integer({ min: 0, max: 0xfe })),
});

const int = (type: string, min: number, max: number) =>
  fc.integer({ min, max }).map((value) => ({ type, value }) as Data);

const leaf: fc.Arbitrary<Data> = fc.oneof(
  fc.constant<Data>({ type: 'null-data' }),
  fc.boolean().map((value): Data => ({ type: 'boolean', value })),
  fc.stringMatching(/^[01]{0,40}$/).map((value): Data => ({ type: 'bit-string', value })),
  int('integer', -128, 127),
  int('long', -32768, 32767),
  int('double-long', -2147483648, 2147483647),
  int('unsigned', 0, 255),
  int('enum', 0, 255),
  int('bcd', 0, 255),
  int('long-unsigned', 0, 65535),
  int('double-long-unsigned', 0, 4294967295),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((value): Data => ({ type: 'long64', value })),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value): Data => ({ type: 'long64-unsigned', value })),
  fc.float().map((value): Data => ({ type: 'float32', value })),
  fc.double().map((value): Data => ({ type: 'float64', value })),
  fc.uint8Array({ maxLength: 300 }).map((value): Data => ({ type: 'octet-string', value })),
  fc
    .string({ unit: 'binary-ascii', maxLength: 40 })
    .map((value): Data => ({ type: 'visible-string', value })),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((value): Data => ({ type: 'utf8-string', value })),
  dateTimeArb.map((value): Data => ({ type: 'date-time', value })),
  fc.uint8Array({ minLength: 5, maxLength: 5 }).map((value): Data => ({ type: 'date', value })),
  fc.uint8Array({ minLength: 4, maxLength: 4 }).map((value): Data => ({ type: 'time', value })),
);

const { data: dataArb } = fc.letrec<{ data: Data }>((tie) => ({
  data: fc.oneof(
    { maxDepth: 5, depthSize: 'small' },
    leaf,
    fc.array(tie('data'), { maxLength: 5 }).map((items): Data => ({ type: 'array', items })),
    fc.array(tie('data'), { maxLength: 5 }).map((items): Data => ({ type: 'structure', items })),
  ),
}));

const invokeArb: fc.Arbitrary<Invoke> = fc.record({
  id: fc.integer({ min: 0, max: 15 }),
  confirmed: fc.boolean(),
  highPriority: fc.boolean(),
});
const obisArb = fc
  .array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 })
  .map((p) => p.join('.'));
const attrArb: fc.Arbitrary<AttributeDescriptor> = fc.record({
  classId: fc.integer({ min: 0, max: 0xffff }),
  instance: obisArb,
  attributeId: fc.integer({ min: -128, max: 127 }),
});
const accessArb = fc.option(fc.record({ selector: fc.integer({ min: 0, max: 255 }), parameters: dataArb }), {
  nil: undefined,
});
const resultArb: fc.Arbitrary<GetDataResult> = fc.oneof(
  dataArb.map((data): GetDataResult => ({ kind: 'data', data })),
  fc.integer({ min: 0, max: 255 }).map((result): GetDataResult => ({ kind: 'error', result })),
);
const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const withAccess = <T extends object>(o: T, access: unknown) => (access ? { ...o, access } : o);

const apduArb: fc.Arbitrary<Apdu> = fc.oneof(
  fc
    .tuple(invokeArb, attrArb, accessArb)
    .map(
      ([invoke, attribute, access]) =>
        withAccess({ type: 'get-request-normal', invoke, attribute }, access) as Apdu,
    ),
  fc
    .tuple(invokeArb, u32)
    .map(([invoke, blockNumber]): Apdu => ({ type: 'get-request-next', invoke, blockNumber })),
  fc.tuple(invokeArb, fc.array(fc.tuple(attrArb, accessArb), { maxLength: 4 })).map(
    ([invoke, items]): Apdu => ({
      type: 'get-request-with-list',
      invoke,
      items: items.map(
        ([attribute, access]) => withAccess({ attribute }, access) as { attribute: AttributeDescriptor },
      ),
    }),
  ),
  fc
    .tuple(invokeArb, resultArb)
    .map(([invoke, result]): Apdu => ({ type: 'get-response-normal', invoke, result })),
  fc
    .tuple(invokeArb, fc.array(resultArb, { maxLength: 4 }))
    .map(([invoke, results]): Apdu => ({ type: 'get-response-with-list', invoke, results })),
  fc
    .tuple(
      invokeArb,
      fc.boolean(),
      u32,
      fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 255 })),
    )
    .map(
      ([invoke, last, blockNumber, r]): Apdu => ({
        type: 'get-response-with-datablock',
        invoke,
        block: {
          last,
          blockNumber,
          result: typeof r === 'number' ? { kind: 'error', result: r } : { kind: 'raw', raw: r },
        },
      }),
    ),
  fc
    .tuple(invokeArb, attrArb, accessArb, dataArb)
    .map(
      ([invoke, attribute, access, value]) =>
        withAccess({ type: 'set-request-normal', invoke, attribute, value }, access) as Apdu,
    ),
  fc
    .tuple(invokeArb, fc.integer({ min: 0, max: 255 }))
    .map(([invoke, result]): Apdu => ({ type: 'set-response-normal', invoke, result })),
  fc.tuple(invokeArb, attrArb, fc.option(dataArb, { nil: undefined })).map(
    ([invoke, a, parameters]): Apdu => ({
      type: 'action-request-normal',
      invoke,
      method: { classId: a.classId, instance: a.instance, methodId: a.attributeId },
      ...(parameters ? { parameters } : {}),
    }),
  ),
  fc.tuple(invokeArb, fc.integer({ min: 0, max: 255 }), fc.option(resultArb, { nil: undefined })).map(
    ([invoke, result, returnParameters]): Apdu => ({
      type: 'action-response-normal',
      invoke,
      result,
      ...(returnParameters ? { returnParameters } : {}),
    }),
  ),
  fc.tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 6 }), u32).map(
    ([stateError, serviceError, c]): Apdu => ({
      type: 'exception-response',
      stateError,
      serviceError,
      ...(serviceError === 6 ? { invocationCounter: c } : {}),
    }),
  ),
  fc
    .tuple(
      fc.option(fc.string({ unit: 'binary-ascii', maxLength: 30 }), { nil: undefined }),
      fc.integer({ min: 12, max: 0xffff }),
    )
    .map(([password, maxReceivePduSize]) =>
      associationRequest({ ...(password === undefined ? {} : { password }), maxReceivePduSize }),
    ),
  fc
    .tuple(
      fc.integer({ min: 0, max: 2 }),
      fc.integer({ min: 0, max: 14 }),
      fc.subarray([...CONFORMANCE_BITS]),
      fc.integer({ min: 0, max: 0xffff }),
    )
    .map(
      ([result, value, conformance, maxReceivePduSize]): Apdu => ({
        type: 'aare',
        applicationContextName: '2.16.756.5.8.1.1',
        result,
        diagnostic: { source: 'user', value },
        authentication: false,
        userInformation: {
          kind: 'initiate-response',
          dlmsVersion: 6,
          conformance,
          maxReceivePduSize,
          vaaName: 7,
        },
      }),
    ),
);

describe('[AX-1.4] hostile bytes never throw', () => {
  it(
    'decodeData, decodeDateTime and decodeApdu answer a value or a typed error',
    () => {
      fc.assert(
        fc.property(hostile, (bytes) => {
          expectTyped(decodeData(bytes), bytes);
          expectTyped(decodeDateTime(bytes), bytes);
          expectTyped(decodeApdu(bytes), bytes);
        }),
        fuzzParams(400),
      );
    },
    fuzzTimeout(20_000),
  );

  it('[AX-4.1] nesting past the bound is refused, not followed', () => {
    const deep = new Uint8Array(100_000).fill(0x01); // array of 1, array of 1, …
    const r = decodeData(deep);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('too_deep');
  });
});

describe('[AX-3][AP-1] generated values round-trip', () => {
  it(
    'Data: encode then decode gives the value back',
    () => {
      fc.assert(
        fc.property(dataArb, (d) => {
          expect(decodeData(encodeData(d))).toEqual({ ok: true, value: d });
        }),
        fuzzParams(300),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    'APDUs: encode then decode gives the value back',
    () => {
      fc.assert(
        fc.property(apduArb, (a) => {
          expect(decodeApdu(encodeApdu(a))).toEqual({ ok: true, value: a });
        }),
        fuzzParams(300),
      );
    },
    fuzzTimeout(20_000),
  );
});

describe('[AP-5.5][AP-5.6] GET block transfer', () => {
  it(
    'every response fits the PDU size and the blocks reassemble to the Data',
    () => {
      fc.assert(
        fc.property(invokeArb, dataArb, fc.integer({ min: 16, max: 600 }), (invoke, data, maxPdu) => {
          const responses = getResponses(invoke, data, maxPdu);
          let state = startAssembly();
          for (const [i, res] of responses.entries()) {
            expect(encodeApdu(res).length).toBeLessThanOrEqual(maxPdu);
            if (res.type === 'get-response-normal') {
              expect(responses).toHaveLength(1);
              expect(res.result).toEqual({ kind: 'data', data });
              return;
            }
            if (res.type !== 'get-response-with-datablock') throw new Error(res.type);
            const step = acceptBlock(state, res.block);
            if (step.kind === 'more') {
              expect(step.ack).toBe(i + 1);
              state = step.state;
              continue;
            }
            expect(step.kind).toBe('done');
            expect(i).toBe(responses.length - 1);
            if (step.kind === 'done') expect(decodeData(step.raw)).toEqual({ ok: true, value: data });
          }
        }),
        fuzzParams(200),
      );
    },
    fuzzTimeout(20_000),
  );
});

describe('[AP-6.2] SET block transfer', () => {
  it(
    'every request fits the PDU size and the blocks reassemble to the value',
    () => {
      fc.assert(
        fc.property(
          invokeArb,
          attrArb,
          accessArb,
          dataArb,
          fc.integer({ min: 40, max: 600 }),
          (invoke, attribute, access, value, maxPdu) => {
            let requests: ReturnType<typeof setRequests>;
            try {
              requests = setRequests(invoke, attribute, value, maxPdu, access);
            } catch (e) {
              // Only when not even the descriptor and access selection fit beside one byte of value.
              expect(e).toBeInstanceOf(RangeError);
              const block = { last: false, blockNumber: 1, raw: new Uint8Array(1) };
              const first = { type: 'set-request-with-first-datablock' as const, invoke, attribute, block };
              expect(encodeApdu(access ? { ...first, access } : first).length).toBeGreaterThan(maxPdu);
              return;
            }
            for (const req of requests) expect(encodeApdu(req).length).toBeLessThanOrEqual(maxPdu);
            const [first, ...rest] = requests;
            if (first?.type === 'set-request-normal') {
              expect(rest).toHaveLength(0);
              expect(first.value).toEqual(value);
              return;
            }
            let state = startAssembly();
            for (const [i, req] of requests.entries()) {
              if (req.type === 'set-request-normal') throw new Error('normal after blocks');
              expect(req.type).toBe(
                i === 0 ? 'set-request-with-first-datablock' : 'set-request-with-datablock',
              );
              const step = acceptBlock(state, req.block);
              if (step.kind === 'more') {
                state = step.state;
                continue;
              }
              expect(step.kind).toBe('done');
              expect(i).toBe(requests.length - 1);
              if (step.kind === 'done') expect(decodeData(step.raw)).toEqual({ ok: true, value });
            }
          },
        ),
        fuzzParams(200),
      );
    },
    fuzzTimeout(20_000),
  );
});
