// Values as people read them, at their meter's resolution (spec-decisions 220): table cases, the
// float noise of the replay summary, signs, steps that are not powers of ten, and values
// beyond what a double holds exactly.

import { describe, expect, it } from 'vitest';
import { atResolution, kwhText, placesOf } from './readable.ts';

describe('atResolution', () => {
  it.each([
    [58.20826666666667, 0.001, '58.208'],
    [0.1 + 0.2, 0.001, '0.300'],
    [1524.8190000000002, 0.001, '1524.819'],
    [230.1, 0.01, '230.10'],
    [942.2420000000001, 0.1, '942.2'],
    [12.5, 1, '13'],
    [0.0004, 0.001, '0.000'],
    [-0.0004, 0.001, '0.000'],
    [-0.5, 0.001, '-0.500'],
    [7.37, 0.25, '7.25'],
    [7.38, 0.25, '7.50'],
    [17, 5, '15'],
    [0, 0.01, '0.00'],
    [123456789012.3456, 0.001, '123456789012.346'],
  ])('%s at %s is %s', (value, step, text) => {
    expect(atResolution(value, step)).toBe(text);
  });

  it('values beyond exact integers, and what is not a number, are written as they are', () => {
    expect(atResolution(1e20, 0.001)).toBe('100000000000000000000.000');
    expect(atResolution(Number.NaN, 0.001)).toBe('NaN');
    expect(atResolution(Number.POSITIVE_INFINITY, 0.001)).toBe('Infinity');
    expect(atResolution(1.5, 0)).toBe('1.5');
  });

  it('places of a step as written', () => {
    expect([0.001, 0.1, 1, 0.25, 5, 1e-7].map(placesOf)).toEqual([3, 1, 0, 2, 0, 7]);
  });

  it('kWh with its unit, to the Wh by default', () => {
    expect(kwhText(58.20826666666667)).toBe('58.208 kWh');
    expect(kwhText(2.5, 0.01)).toBe('2.50 kWh');
  });
});
