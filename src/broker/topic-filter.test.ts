import { describe, expect, it } from 'vitest';
import { covers, isValidFilter } from './topic-filter.ts';

describe('[MQTT-4.7] covers(pattern, filter): every topic the filter matches, the pattern matches', () => {
  it.each([
    ['a/b', 'a/b', true],
    ['a/b', 'a/c', false],
    ['a/+', 'a/b', true],
    ['a/+', 'a/+', true],
    ['a/+', 'a/#', false],
    ['a/+', 'a', false],
    ['a/+', 'a/b/c', false],
    ['a/#', 'a', true], // [MQTT-4.7.1-2] the parent level too
    ['a/#', 'a/b/c', true],
    ['a/#', 'a/+/c', true],
    ['a/#', 'a/#', true],
    ['a/b', 'a/+', false],
    ['a/+/c', 'a/+/c', true],
    ['a/+/c', 'a/b/#', false],
    ['#', '$SYS/x', false], // [MQTT-4.7.2-1]
    ['+/x', '$SYS/x', false],
    ['$SYS/#', '$SYS/x', true],
    ['a', 'a/', false],
  ] as const)('%s covers %s -> %s', (pattern, filter, want) => {
    expect(covers(pattern, filter)).toBe(want);
  });

  it.each([
    ['a/b', true],
    ['a/+/c', true],
    ['a/#', true],
    ['#', true],
    ['', false],
    ['a/#/c', false],
    ['a+/b', false],
    ['a/b#', false],
    ['a\u0000', false],
  ] as const)('isValidFilter(%j) -> %s', (filter, want) => {
    expect(isValidFilter(filter)).toBe(want);
  });
});
