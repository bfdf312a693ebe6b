// Property-based fuzzing of the DLMS link layers (issue 21 item 6): whatever arrives on a serial line or
// a socket, the HDLC and wrapper decoders answer a value or a typed error naming a rule and never throw;
// valid frames, parameters and WPDUs round-trip; the splitters give the same result however the bytes
// are chunked and hold at most one frame; the server's link state machine takes any frame in any state.
// Budget: fuzz-config.ts (CI runs a few hundred cases; `npm run fuzz` runs for minutes).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ClientEvent,
  type ClientState,
  clientStep,
  INITIAL_CLIENT,
} from '../../firmware-protocol/dlms/hdlc/client.ts';
import {
  type Control,
  decodeFrame,
  encodeFrame,
  type FrameResult,
  type HdlcAddress,
  type HdlcFrame,
} from '../../firmware-protocol/dlms/hdlc/frame.ts';
import { fromHex, loadFrameVectors } from '../../firmware-protocol/dlms/hdlc/golden/vectors.ts';
import {
  DEFAULT_LINK_CONFIG,
  INITIAL_LINK,
  type LinkState,
  step,
} from '../../firmware-protocol/dlms/hdlc/link.ts';
import { decodeParams, encodeParams, type LinkParams } from '../../firmware-protocol/dlms/hdlc/params.ts';
import { FrameSplitter } from '../../firmware-protocol/dlms/hdlc/splitter.ts';
import { decodeDatagram, encodeWpdu } from '../../firmware-protocol/dlms/wrapper/codec.ts';
import { WpduSplitter } from '../../firmware-protocol/dlms/wrapper/splitter.ts';
import { fuzzParams, fuzzTimeout } from './fuzz-config.ts';

const GOLDEN = loadFrameVectors().frames.map((v) => fromHex(v.hex));

const bytes = (maxLength: number) => fc.uint8Array({ maxLength });
/** A golden frame with a few bytes changed: gets past the cheap checks and into the deep ones. */
const mutated = fc
  .tuple(
    fc.constantFrom(...GOLDEN),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
  )
  .map(([frame, edits]) => {
    const out = frame.slice();
    for (const [at, value] of edits) out[at % out.length] = value;
    return out;
  });

const address: fc.Arbitrary<HdlcAddress> = fc.oneof(
  fc.integer({ min: 0, max: 0x7f }).map((value) => ({ bytes: 1 as const, value })),
  fc.record({
    bytes: fc.constant(2 as const),
    upper: fc.integer({ min: 0, max: 0x7f }),
    lower: fc.integer({ min: 0, max: 0x7f }),
  }),
  fc.record({
    bytes: fc.constant(4 as const),
    upper: fc.integer({ min: 0, max: 0x3fff }),
    lower: fc.integer({ min: 0, max: 0x3fff }),
  }),
);
const seq = fc.integer({ min: 0, max: 7 });
const control: fc.Arbitrary<Control> = fc.oneof(
  fc.record({ type: fc.constant('I' as const), ns: seq, nr: seq, pf: fc.boolean() }),
  fc.record({ type: fc.constantFrom('RR' as const, 'RNR' as const), nr: seq, pf: fc.boolean() }),
  fc.record({
    type: fc.constantFrom(
      'SNRM' as const,
      'DISC' as const,
      'UA' as const,
      'DM' as const,
      'FRMR' as const,
      'UI' as const,
    ),
    pf: fc.boolean(),
  }),
);
const frameArb: fc.Arbitrary<HdlcFrame> = fc.record({
  segmented: fc.boolean(),
  dest: address,
  src: address,
  control,
  info: bytes(300),
});

const FRAME_CODES = ['too_short', 'no_flag', 'bad_format', 'bad_length', 'bad_address', 'bad_hcs', 'bad_fcs'];

function expectTyped(result: FrameResult): void {
  if (result.ok) return;
  expect(FRAME_CODES).toContain(result.error.code);
  expect(result.error.rule).toMatch(/^HD-\d+\.\d+$/);
  expect(result.error.message.length).toBeLessThan(200);
}

function chunked(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, data.length]) {
    out.push(data.subarray(at, p));
    at = p;
  }
  return out;
}

describe('HDLC [HD-2, HD-10]', () => {
  it(
    'decodeFrame never throws: any bytes give a frame or a typed error',
    () => {
      fc.assert(
        fc.property(fc.oneof(bytes(64), mutated), (input) => expectTyped(decodeFrame(input))),
        fuzzParams(2_000),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    'a valid frame round-trips through encodeFrame and decodeFrame',
    () => {
      fc.assert(
        fc.property(frameArb, (frame) => {
          expect(decodeFrame(encodeFrame(frame))).toEqual({ ok: true, frame });
        }),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[HD-6] decodeParams never throws; stated parameters round-trip',
    () => {
      const params: fc.Arbitrary<LinkParams> = fc.record(
        {
          maxInfoTx: fc.integer({ min: 1, max: 2030 }),
          maxInfoRx: fc.integer({ min: 1, max: 2030 }),
          windowTx: fc.integer({ min: 1, max: 7 }),
          windowRx: fc.integer({ min: 1, max: 7 }),
        },
        { requiredKeys: [] },
      );
      fc.assert(
        fc.property(bytes(40), params, (raw, p) => {
          const any = decodeParams(raw);
          if (!any.ok) expect(any.error.rule).toMatch(/^HD-6\.\d$/);
          expect(decodeParams(encodeParams(p))).toEqual({ ok: true, params: p });
        }),
        fuzzParams(1_000),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[HD-8] the splitter finds every frame among noise without flags, however the bytes are chunked',
    () => {
      const noise = bytes(20).map((b) => b.map((x) => (x === 0x7e ? 0x7d : x)));
      fc.assert(
        fc.property(
          fc.array(fc.tuple(noise, fc.constantFrom(...GOLDEN)), { maxLength: 6 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          (parts, cuts) => {
            const stream = Uint8Array.from(parts.flatMap(([n, f]) => [...n, ...f]));
            const splitter = new FrameSplitter();
            // [HD-8.3] A noise byte can make a false header that waits for bytes; the quiet line ends it.
            const found = [...chunked(stream, cuts).flatMap((c) => splitter.push(c)), ...splitter.flush()];
            // Noise that looks like a header with a flag where its length ends is reported as bad; the
            // frames all come, in order.
            const frames = found.filter((p) => p.kind === 'frame');
            expect(frames.map((p) => [...p.bytes])).toEqual(parts.map(([, f]) => [...f]));
          },
        ),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[HD-8.2] on any bytes the splitter never throws and never holds more than one frame',
    () => {
      fc.assert(
        fc.property(
          fc.array(fc.oneof(bytes(200), mutated), { maxLength: 10 }),
          fc.integer({ min: 9, max: 2049 }),
          (chunks, max) => {
            const splitter = new FrameSplitter(max);
            for (const chunk of chunks) {
              for (const piece of splitter.push(chunk)) {
                if (piece.kind === 'bad') expect(FRAME_CODES).toContain(piece.error.code);
              }
              expect(splitter.partial).toBeLessThan(max);
            }
            for (const piece of splitter.flush())
              expect(piece.kind === 'frame' || FRAME_CODES.includes(piece.error.code)).toBe(true);
            expect(splitter.partial).toBe(0);
          },
        ),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[HD-9] the link state machine takes any frame in any state, keeping its invariants',
    () => {
      const config = {
        ...DEFAULT_LINK_CONFIG,
        address: { bytes: 1 as const, value: 1 },
        maxMessageBytes: 1000,
      };
      // Mostly addressed to this server and from a one-byte client, so the frames reach the state machine.
      const toServer = fc
        .tuple(frameArb, fc.boolean(), fc.integer({ min: 0, max: 0x7f }))
        .map(([f, ours, client]) =>
          ours ? { ...f, dest: config.address, src: { bytes: 1 as const, value: client % 3 } } : f,
        );
      const event = fc.oneof(
        toServer.map((frame) => ({ kind: 'frame' as const, frame })),
        bytes(400).map((apdu) => ({ kind: 'respond' as const, apdu })),
        fc.constant({ kind: 'tick' as const }),
      );
      fc.assert(
        fc.property(
          fc.array(fc.tuple(event, fc.integer({ min: 0, max: 200_000 })), { maxLength: 30 }),
          (events) => {
            let state: LinkState = INITIAL_LINK;
            let now = 0;
            for (const [e, dt] of events) {
              now += dt;
              const result = step(config, state, { ...e, atMs: now });
              state = result.state;
              expect(state.vs).toBeGreaterThanOrEqual(0);
              expect(state.vr).toBeLessThanOrEqual(7);
              expect(state.rx.bytes).toBeLessThanOrEqual(config.maxMessageBytes);
              for (const effect of result.effects) {
                // Everything the server sends encodes, and fits the negotiated length.
                if (effect.kind === 'send') {
                  expect(() => encodeFrame(effect.frame)).not.toThrow();
                  if (effect.frame.control.type === 'I')
                    expect(effect.frame.info.length).toBeLessThanOrEqual(state.params.maxInfoTx);
                }
              }
            }
          },
        ),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );
});

describe('HDLC client [HD-11]', () => {
  it(
    'the client state machine takes any event in any state; what it sends encodes and fits its length',
    () => {
      const config = {
        client: 16,
        server: { bytes: 1 as const, value: 1 },
        propose: {},
        maxMessageBytes: 1000,
      };
      const fromServer = fc
        .tuple(frameArb, fc.boolean())
        .map(([f, ours]) =>
          ours ? { ...f, dest: { bytes: 1 as const, value: 16 }, src: config.server } : f,
        );
      const event: fc.Arbitrary<ClientEvent> = fc.oneof(
        fromServer.map((frame) => ({ kind: 'frame' as const, frame })),
        bytes(300).map((apdu) => ({ kind: 'request' as const, apdu })),
        fc.constantFrom<ClientEvent>({ kind: 'connect' }, { kind: 'disconnect' }, { kind: 'retry' }),
      );
      fc.assert(
        fc.property(fc.array(event, { maxLength: 30 }), (events) => {
          let state: ClientState = INITIAL_CLIENT;
          for (const e of events) {
            const result = clientStep(config, state, e);
            state = result.state;
            expect(state.rx.bytes).toBeLessThanOrEqual(config.maxMessageBytes);
            for (const effect of result.effects) {
              if (effect.kind !== 'send') continue;
              expect(() => encodeFrame(effect.frame)).not.toThrow();
              if (effect.frame.control.type === 'I')
                expect(effect.frame.info.length).toBeLessThanOrEqual(state.params.maxInfoTx);
            }
          }
        }),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );
});

describe('wrapper [WR-2, WR-3, WR-4]', () => {
  const wpdu = fc.record({
    source: fc.integer({ min: 0, max: 0xffff }),
    dest: fc.integer({ min: 0, max: 0xffff }),
    apdu: fc.uint8Array({ minLength: 1, maxLength: 300 }),
  });

  it(
    'decodeDatagram never throws; a valid WPDU round-trips',
    () => {
      fc.assert(
        fc.property(bytes(40), wpdu, (raw, pdu) => {
          const any = decodeDatagram(raw);
          if (!any.ok) expect(any.error.rule).toMatch(/^WR-\d\.\d$/);
          expect(decodeDatagram(encodeWpdu(pdu))).toEqual({ ok: true, pdu });
        }),
        fuzzParams(1_000),
      );
    },
    fuzzTimeout(20_000),
  );

  it(
    '[WR-3] the TCP splitter gives the same WPDUs however the stream is chunked; on any bytes it never throws',
    () => {
      fc.assert(
        fc.property(
          fc.array(wpdu, { maxLength: 5 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          bytes(100),
          (pdus, cuts, junk) => {
            const stream = Uint8Array.from(pdus.flatMap((p) => [...encodeWpdu(p)]));
            const splitter = new WpduSplitter();
            const pieces = chunked(stream, cuts).flatMap((c) => splitter.push(c));
            expect(pieces).toEqual(pdus.map((pdu) => ({ kind: 'pdu', pdu })));
            const hostile = new WpduSplitter(64);
            for (const c of chunked(junk, cuts)) hostile.push(c);
            expect(hostile.partial).toBeLessThanOrEqual(8 + 64 + junk.length);
          },
        ),
        fuzzParams(500),
      );
    },
    fuzzTimeout(20_000),
  );
});
