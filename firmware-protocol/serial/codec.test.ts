// The serial codec over every golden vector (the same files the C reference and firmware authors use),
// the splitter fed at every byte boundary, and the worked checksum example of PROTOCOL.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatFrame, parseLine, tryFormatFrame } from './codec.ts';
import { crc16, crcHex } from './crc16.ts';
import type { Frame, HelloFrame } from './frames.ts';
import { loadVectors } from './golden/vectors.ts';
import { LineSplitter, type Piece } from './splitter.ts';

const { valid, invalid } = loadVectors();

describe('golden/valid.json', () => {
  it.each(valid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(parseLine(v.line)).toEqual({ ok: true, frame: v.frame });
    if (v.canonical) expect(formatFrame(v.frame)).toBe(v.line);
    else expect(parseLine(formatFrame(v.frame))).toEqual({ ok: true, frame: v.frame });
  });
});

describe('golden/invalid.json', () => {
  it.each(invalid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const result = parseLine(v.line);
    expect(result.ok).toBe(false);
    if (result.ok !== false) return;
    expect({ code: result.error.code, rule: result.error.rule }).toEqual({ code: v.code, rule: v.rule });
  });
});

describe('[SP-2.5] checksum', () => {
  it('CRC-16/CCITT-FALSE has its catalogue check value 0x29B1 for "123456789"', () => {
    expect(crc16('123456789')).toBe(0x29b1);
  });

  it("PROTOCOL.md's worked example: the register after each byte of PING, and the line", () => {
    const doc = readFileSync(new URL('PROTOCOL.md', import.meta.url), 'utf8');
    const steps = [...doc.matchAll(/^\| after `(.)` +\| 0x([0-9A-F]{2}) +\| 0x([0-9A-F]{4}) +\|$/gm)];
    expect(steps.map((m) => m[1]).join('')).toBe('PING');
    let prefix = '';
    for (const [, ch, byte, reg] of steps) {
      prefix += ch;
      expect(ch!.charCodeAt(0).toString(16).toUpperCase()).toBe(byte);
      expect(crcHex(prefix)).toBe(reg);
    }
    expect(doc).toContain('`PING*6427`');
    expect(parseLine('PING*6427')).toEqual({ ok: true, frame: { type: 'PING' } });
  });
});

describe('[SP-2.3] empty lines', () => {
  it('are not errors', () => {
    expect(parseLine('')).toEqual({ ok: 'empty' });
    expect(parseLine('\r')).toEqual({ ok: 'empty' });
  });
});

describe('formatFrame refuses what a receiver would refuse', () => {
  it('a missing field names the field', () => {
    const frame = { type: 'TEL', ts: 1, energy: 0, voltage: 230, balance: 0 } as unknown as Frame;
    expect(() => formatFrame(frame)).toThrow(/active_power/);
  });
  it('[SP-2.2] a line that would be too long', () => {
    expect(() => formatFrame({ type: 'LOG', level: 'info', msg: 'x'.repeat(1100) })).toThrow(TypeError);
  });
  it('[SP-3.4] a string or unit with a lone surrogate, instead of sending U+FFFD (issue 8 item 19)', () => {
    const cmd = { type: 'CMD', seq: 1, id: 'c1', op: 'set_wifi', ssid: 'a\ud800', password: 'p' } as Frame;
    expect(() => formatFrame(cmd)).toThrow(/ssid holds a lone UTF-16 surrogate.*\[SP-3\.4\]/);
    expect(tryFormatFrame({ ...cmd, ssid: '\udc00b' } as Frame)).toMatchObject({ ok: false });
    const log = { type: 'LOG', level: 'info', msg: 'x\udfff' } as Frame;
    expect(tryFormatFrame(log)).toMatchObject({ ok: false, message: expect.stringMatching(/^msg holds/) });
    const hello = valid.find((v) => v.frame.type === 'HELLO')!.frame as HelloFrame;
    const unit = {
      ...hello,
      properties: [{ property_id: 'energy', context_type: 'cumulative', unit: '\ud83d' }],
    };
    expect(tryFormatFrame(unit as Frame)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^properties holds/),
    });
    // A well-formed pair is text: it goes out as its four UTF-8 bytes and reads back the same.
    const emoji = { ...cmd, ssid: '\ud83d\ude00' } as Frame;
    expect(formatFrame(emoji)).toContain('ssid=%F0%9F%98%80');
    expect(parseLine(formatFrame(emoji))).toEqual({ ok: true, frame: emoji });
  });
  it('[SP-3.2] a non-finite number', () => {
    const frame = {
      type: 'TEL',
      ts: 1,
      energy: Number.NaN,
      active_power: 0,
      voltage: 0,
      balance: 0,
    } as Frame;
    expect(() => formatFrame(frame)).toThrow(/energy/);
  });
});

describe('[SP-2.1][SP-2.2] LineSplitter', () => {
  const stream = `${valid.map((v) => v.line).join('\n')}\r\n\n${'x'.repeat(3000)}\nPING*6427\n`;
  const whole = new LineSplitter().push(stream);

  it('cuts at LF, keeps CR for the parser, and reports an oversize line once, by length', () => {
    expect(whole.filter((p) => p.kind === 'oversize')).toEqual([{ kind: 'oversize', bytes: 3000 }]);
    expect(whole.at(-1)).toEqual({ kind: 'line', line: 'PING*6427' });
    expect(whole.filter((p) => p.kind === 'line')).toHaveLength(valid.length + 2);
  });

  it('gives the same pieces when the stream is split at every byte boundary', () => {
    for (let at = 1; at < stream.length; at++) {
      const s = new LineSplitter();
      const pieces: Piece[] = [...s.push(stream.slice(0, at)), ...s.push(stream.slice(at))];
      if (JSON.stringify(pieces) !== JSON.stringify(whole)) expect({ at, pieces }).toEqual({ at, whole });
    }
  });

  it('gives the same pieces when fed one byte at a time, and every line parses as its vector', () => {
    const s = new LineSplitter();
    const pieces = [...Buffer.from(stream, 'latin1')].flatMap((b) => s.push(Buffer.from([b])));
    expect(pieces).toEqual(whole);
    const frames = pieces.flatMap((p) => (p.kind === 'line' ? [parseLine(p.line)] : []));
    expect(frames.slice(0, valid.length)).toEqual(valid.map((v) => ({ ok: true, frame: v.frame })));
  });

  it('every invalid vector still gives its error after a trip through the splitter, split anywhere', () => {
    for (const v of invalid) {
      const text = `${v.line}\n`;
      for (let at = 0; at <= text.length; at += 7) {
        const s = new LineSplitter();
        const [piece] = [...s.push(text.slice(0, at)), ...s.push(text.slice(at))];
        const code =
          piece?.kind === 'oversize'
            ? 'too_long'
            : (parseLine(piece!.line) as { error?: { code: string } }).error?.code;
        expect(code, `${v.name} split at ${at}`).toBe(v.code);
      }
    }
  });

  it('validates its option', () => {
    expect(() => new LineSplitter(0)).toThrow(TypeError);
  });
});
