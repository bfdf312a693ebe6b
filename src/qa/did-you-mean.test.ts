// The typo helper behind every "did you mean …?" (issue 20 item 9), from a table.

import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from './did-you-mean.ts';

describe('editDistance (Damerau-Levenshtein, optimal string alignment)', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['', 'abc', 3],
    ['port', 'port', 0],
    ['prot', 'port', 1], // two neighbours swapped: one edit
    ['advnce', 'advance', 1], // one left out
    ['balanse', 'balance', 1], // one wrong
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3], // optimal string alignment: no edit of a swapped pair
  ])('%j → %j: %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

const FLAGS = ['--http-port', '--mqtt-port', '--host', '--db', '--speed', '--no-demo'];

describe('closest', () => {
  it.each([
    ['--http-prot', '--http-port'],
    ['--htp-port', '--http-port'],
    ['--mqtt-prot', '--mqtt-port'],
    ['--HOST', '--host'], // case alone
    ['--sped', '--speed'],
    ['--nodemo', '--no-demo'],
    ['--verbose', undefined], // nothing near: no guess
    ['--d', '--db'],
    ['--x', undefined], // too far from any
    ['--http-port', undefined], // the name itself is no typo
  ])('%s → %s', (word, want) => {
    expect(closest(word, FLAGS)).toBe(want);
  });

  it('takes the first of equally near candidates; didYouMean names them all', () => {
    expect(closest('ab', ['ac', 'bb'])).toBe('ac');
    expect(didYouMean('modes', ['model', 'mode', 'name'])).toBe(' (did you mean model or mode?)');
  });

  it('didYouMean says it in parentheses, or nothing', () => {
    expect(didYouMean('meter.cutof', ['meter.cutoff', 'meter.relay'])).toBe(' (did you mean meter.cutoff?)');
    expect(didYouMean('zzz', ['meter.cutoff'])).toBe('');
  });
});
