// Data blocks, data sets and OBIS addresses [IEC-3], against the address forms the issue names and the
// ones smartmeter-obis reads.
import { describe, expect, it } from 'vitest';
import {
  checkDataSet,
  formatDataBlock,
  formatFixed,
  formatObis,
  parseDataBlock,
  parseDataLine,
  parseObis,
} from './data-set.ts';

describe('[IEC-3.2] data lines', () => {
  it('reads several data sets on one line', () => {
    expect(parseDataLine('1.8.1(001846.0*kWh)2.8.1(004329.6*kWh)')).toEqual({
      ok: true,
      value: [
        { address: '1.8.1', values: [{ value: '001846.0', unit: 'kWh' }] },
        { address: '2.8.1', values: [{ value: '004329.6', unit: 'kWh' }] },
      ],
    });
  });

  it('an address-less group is the next value of the set before (a time stamp)', () => {
    expect(parseDataLine('1.6.1(2.310*kW)(2611261415)')).toEqual({
      ok: true,
      value: [{ address: '1.6.1', values: [{ value: '2.310', unit: 'kW' }, { value: '2611261415' }] }],
    });
  });

  it('keeps a value as text, spaces and zeros included, and an empty value', () => {
    expect(parseDataLine('0.0.0( 20000)6.8.1()')).toEqual({
      ok: true,
      value: [
        { address: '0.0.0', values: [{ value: ' 20000' }] },
        { address: '6.8.1', values: [{ value: '' }] },
      ],
    });
  });

  it.each([
    ['no (', '1.8.0', 'syntax', 'IEC-3.2'],
    ['no )', '1.8.0(1', 'syntax', 'IEC-3.2'],
    ['text after the last set', '1.8.0(1)x', 'syntax', 'IEC-3.2'],
    ['a / in the address', '1/8(1)', 'bad_char', 'IEC-3.3'],
    ['a 33-character address', `${'1'.repeat(33)}(1)`, 'too_long', 'IEC-3.3'],
    ['a 17-character unit', `1.8.0(1*${'k'.repeat(17)})`, 'too_long', 'IEC-3.3'],
  ])('[IEC-3.2][IEC-3.3] refuses %s', (_name, line, code, rule) => {
    const r = parseDataLine(line);
    expect(r.ok).toBe(false);
    if (!r.ok) expect({ code: r.error.code, rule: r.error.rule }).toEqual({ code, rule });
  });
});

describe('[IEC-3.1] data blocks', () => {
  it('accepts CR LF and lone LF line ends, skips empty lines, and a last line without CR LF', () => {
    const r = parseDataBlock('F.F(00)\n\n1.8.0(1*kWh)\r\n2.8.0(2*kWh)');
    expect(r.ok && r.value.map((l) => l.map((s) => s.address))).toEqual([['F.F'], ['1.8.0'], ['2.8.0']]);
  });

  it('writes each line with CR LF and round-trips', () => {
    const lines = [
      [{ address: '1-0:1.8.0', values: [{ value: '000285.40', unit: 'kWh' }] }],
      [
        { address: 'F.F', values: [{ value: '00' }] },
        { address: 'C.1.0', values: [{ value: '12345678' }] },
      ],
    ];
    const text = formatDataBlock(lines);
    expect(text).toBe('1-0:1.8.0(000285.40*kWh)\r\nF.F(00)C.1.0(12345678)\r\n');
    expect(parseDataBlock(text)).toEqual({ ok: true, value: lines });
  });

  it('[IEC-3.3] writers hold the standard lengths that readers relax', () => {
    expect(checkDataSet({ address: '1.8.0', values: [{ value: '1'.repeat(32) }] })).toBeNull();
    expect(checkDataSet({ address: '1.8.0', values: [{ value: '1'.repeat(33) }] })).toMatch(/over 32/);
    expect(parseDataLine(`1.8.0(${'1'.repeat(128)})`).ok).toBe(true);
    expect(checkDataSet({ address: 'x'.repeat(17), values: [{ value: '1' }] })).toMatch(/over 16/);
    expect(checkDataSet({ address: '1.8.0', values: [{ value: '1*2' }] })).toMatch(/forbidden/);
    expect(checkDataSet({ address: '', values: [{ value: '1' }] })).toMatch(/address/);
  });
});

describe('[IEC-3.4] OBIS addresses', () => {
  it.each([
    ['1.8.0', { c: 1, d: 8, e: 0 }],
    ['1-0:1.8.0*255', { a: 1, b: 0, c: 1, d: 8, e: 0, f: 255 }],
    ['1-0:1.8.0', { a: 1, b: 0, c: 1, d: 8, e: 0 }],
    ['C.1.0', { c: 96, d: 1, e: 0 }],
    ['0.9.1', { c: 0, d: 9, e: 1 }],
    ['F.F', { c: 97, d: 97 }],
    ['32.7', { c: 32, d: 7 }],
    ['3:171.0', { b: 3, c: 171, d: 0 }],
    ['1.8.0&01', { c: 1, d: 8, e: 0, f: 1 }],
    ['1-1:C.1.0', { a: 1, b: 1, c: 96, d: 1, e: 0 }],
  ])('reads %s', (address, obis) => {
    expect(parseObis(address)).toEqual({ ok: true, value: obis });
  });

  it.each(['', 'x.y', '1.8.256', '1-0:1.8.0*', '1..8'])('refuses %j', (address) => {
    expect(parseObis(address).ok).toBe(false);
  });

  it('[IEC-3.5] writes the forms smartmeter-obis reads', () => {
    expect(formatObis({ a: 1, b: 0, c: 1, d: 8, e: 0, f: 255 })).toBe('1-0:1.8.0');
    expect(formatObis({ a: 1, b: 0, c: 1, d: 8, e: 0, f: 1 })).toBe('1-0:1.8.0*1');
    expect(formatObis({ c: 96, d: 1, e: 0 }, true)).toBe('C.1.0');
    expect(formatObis({ c: 97, d: 97 }, true)).toBe('F.F');
    expect(formatObis({ c: 96, d: 1, e: 0 })).toBe('96.1.0');
    // The regular expressions of smartmeter-obis' ObisMeasurement (lib/ObisMeasurement.js), read there.
    const full =
      /^([0-9]{1,3})-([0-9]{1,3}):([0-9CFLP]{1,3})\.([0-9CFLP]{1,3})\.?([0-9]{0,3})[*&]?([0-9]{0,3})$/;
    const short = /^([0-9CFLP]{1,3})\.?([0-9CFLP]{0,3})\.?([0-9]{0,3})[*&]?([0-9]{0,3})$/;
    for (const a of ['1-0:1.8.0', '1-0:1.8.0*1', 'C.1.0', 'F.F', '0.9.1', '1-0:32.7.0']) {
      expect(full.test(a) || short.test(a)).toBe(true);
    }
  });
});

describe('[IEC-3.6] fixed-point values', () => {
  it.each([
    [285.4, 2, 9, '000285.40'],
    [285.4, 1, 0, '285.4'],
    [0, 3, 6, '00.000'],
    [-1.5, 1, 5, '-01.5'],
    [-0, 1, 0, '0.0'],
    [-0.01, 1, 0, '0.0'],
  ])('%d at %d digits, width %d: %s', (n, digits, width, text) => {
    expect(formatFixed(n, digits, width)).toBe(text);
  });

  it('gives null rather than a wrong value', () => {
    expect(formatFixed(1234567, 2, 8)).toBeNull();
    expect(formatFixed(Number.NaN, 1)).toBeNull();
    expect(formatFixed(1e40, 0)).toBeNull();
  });
});
