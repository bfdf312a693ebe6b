import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.ts';

describe('Metrics [EXT-4]', () => {
  it('keeps counters and gauges by name, in the order made, as a scrape reads them', () => {
    const m = new Metrics();
    const c = m.counter('meterstack_things_total', 'things');
    c.inc();
    c.inc(2);
    m.gauge('meterstack_level', 'a level').set(7);
    let open = 3;
    m.gauge('meterstack_open', 'open now', () => open);
    open = 4;
    expect(m.collect()).toEqual([
      { name: 'meterstack_things_total', help: 'things', kind: 'counter', value: 3 },
      { name: 'meterstack_level', help: 'a level', kind: 'gauge', value: 7 },
      { name: 'meterstack_open', help: 'open now', kind: 'gauge', value: 4 },
    ]);
    expect(m.value('meterstack_nothing')).toBeUndefined();
  });

  it('gives the same counter for the same name, and refuses a name of another kind or a bad name', () => {
    const m = new Metrics();
    m.counter('meterstack_a_total', 'a').inc();
    m.counter('meterstack_a_total', 'a').inc();
    expect(m.value('meterstack_a_total')).toBe(2);
    expect(() => m.gauge('meterstack_a_total', 'a')).toThrow(/is a counter/);
    expect(() => m.counter('bad name', 'x')).toThrow(TypeError);
    expect(() => m.counter('meterstack_b_total', 'b').inc(-1)).toThrow(TypeError);
    expect(() => m.gauge('meterstack_c', 'c', () => 1).set(2)).toThrow(TypeError);
  });
});
