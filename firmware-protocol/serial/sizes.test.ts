// Worst-case line lengths [SP-2.8] and the set_wifi budget [SP-4.13] (issue 8 item 9), plus a bounded
// fuzz of the line parser [SP-6.1]: whatever comes in, parseLine answers and never throws.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFrame, parseLine, tryFormatFrame } from './codec.ts';
import type { AckFrame, CmdFrame } from './frames.ts';
import { loadVectors } from './golden/vectors.ts';
import { commandLineProblem, MAX_WIFI_WIRE_BYTES, worstCaseTable } from './sizes.ts';
import { escapeString } from './values.ts';

const EMOJI = '\u{1F600}';
const ID64 = 'c'.repeat(64);
const cmd = (ssid: string, password: string): CmdFrame => ({
  type: 'CMD',
  seq: 65_535,
  id: ID64,
  op: 'set_wifi',
  ssid,
  password,
});
const ackGetWifi = (ssid: string, password: string): AckFrame => ({
  type: 'ACK',
  seq: 65_535,
  id: ID64,
  op: 'get_wifi',
  data: { ssid, password, rssi: -127, type: 'Secondary' },
});

describe('[SP-2.8] worst-case line lengths', () => {
  it("PROTOCOL.md's table is the one sizes.ts computes", () => {
    const doc = readFileSync(new URL('PROTOCOL.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^ {2}\| `([A-Z]+(?: [a-z_]+)?)` +\| (\d+|unbounded) +\|/gm)].map((m) => ({
      frame: m[1]!,
      bytes: m[2] === 'unbounded' ? Number.POSITIVE_INFINITY : Number(m[2]),
    }));
    expect(rows).toEqual(worstCaseTable());
  });

  it('[SP-4.13] the set_wifi budget is tight: 885 escaped bytes make an ACK get_wifi of exactly 1024', () => {
    expect(MAX_WIFI_WIRE_BYTES).toBe(885);
    const ssid = 'S'.repeat(32);
    const fits = 'p'.repeat(MAX_WIFI_WIRE_BYTES - 32);
    expect(formatFrame(ackGetWifi(ssid, fits))).toHaveLength(1024);
    expect(commandLineProblem(cmd(ssid, fits))).toBeNull();
    expect(commandLineProblem(cmd(ssid, `${fits}p`))).toMatch(/886 bytes.*at most 885/);
  });
});

describe('[SP-4.13] issue 8 item 9: commands that cannot be a line', () => {
  it('32 emoji of SSID and 64 of password (1,152 bytes escaped) are refused with the reason', () => {
    const problem = commandLineProblem(cmd(EMOJI.repeat(32), EMOJI.repeat(64)));
    expect(problem).toMatch(/ssid and password take 1152 bytes .*at most 885/);
    expect(tryFormatFrame(cmd(EMOJI.repeat(32), EMOJI.repeat(64)))).toMatchObject({ ok: false });
  });

  it('[SP-3.4] a lone surrogate in any string of a command is refused with the reason, never sent as U+FFFD', () => {
    expect(commandLineProblem(cmd('\ud800', 'p'))).toMatch(
      /^ssid holds a lone UTF-16 surrogate.*\[SP-3\.4\]/,
    );
    expect(commandLineProblem(cmd('s', 'p\udfff'))).toMatch(/^password holds a lone UTF-16 surrogate/);
    const recharge: CmdFrame = {
      type: 'CMD',
      seq: 1,
      id: 'c1',
      op: 'recharge',
      amount: 5,
      transaction_id: 't\ud800',
    };
    expect(commandLineProblem(recharge)).toMatch(/^transaction_id holds a lone UTF-16 surrogate/);
    expect(commandLineProblem({ ...recharge, transaction_id: 't', id: '\udc00' })).toMatch(/^id holds/);
    expect(commandLineProblem({ ...recharge, transaction_id: `t${EMOJI}` })).toBeNull();
  });

  it('32 bytes of SSID and 64 ASCII characters of password always fit', () => {
    expect(commandLineProblem(cmd('\u00e9'.repeat(16), '%'.repeat(64)))).toBeNull();
  });

  it('any accepted network fits both its CMD and the longest ACK get_wifi (property)', () => {
    const text = (max: number) => fc.string({ unit: 'grapheme', maxLength: max });
    fc.assert(
      fc.property(text(32), text(64), (ssid, password) => {
        const frame = cmd(ssid, password);
        const problem = commandLineProblem(frame);
        const bytes = escapeString(ssid).length + escapeString(password).length;
        expect(problem === null).toBe(bytes <= MAX_WIFI_WIRE_BYTES);
        if (problem === null) {
          expect(tryFormatFrame(frame).ok).toBe(true);
          expect(tryFormatFrame(ackGetWifi(ssid, password)).ok).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('[SP-6.1] parseLine never throws (bounded fuzz)', () => {
  const { valid } = loadVectors();
  it('on arbitrary text, and on golden lines with bytes changed', () => {
    const mutated = fc
      .tuple(fc.constantFrom(...valid.map((v) => v.line)), fc.nat(), fc.string({ maxLength: 4 }))
      .map(
        ([line, at, ins]) =>
          line.slice(0, at % (line.length + 1)) + ins + line.slice((at % (line.length + 1)) + 1),
      );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 1200 }), mutated), (line) => {
        const result = parseLine(line);
        expect(['boolean', 'string']).toContain(typeof result.ok);
      }),
      { numRuns: 500 },
    );
  });
});
