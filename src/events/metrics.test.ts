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

describe('Metrics as a prom-client registry [PM-1]', () => {
  it('writes plain and labelled metrics in the text format, each registry its own', async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.counter('meterstack_x_total', 'x').inc(3);
    a.labelledCounter('meterstack_y_total', 'y', ['kind']).labels('k').inc();
    a.histogram('meterstack_z_seconds', 'z', [], [0.1, 1]).observe(0.5);
    a.labelledGauge('meterstack_w', 'w', ['mode'], (set) => set({ mode: 'prepaid' }, 4));
    const text = await a.text();
    expect(text).toContain('# TYPE meterstack_x_total counter\nmeterstack_x_total 3');
    expect(text).toContain('meterstack_y_total{kind="k"} 1');
    expect(text).toContain('meterstack_z_seconds_bucket{le="1"} 1');
    expect(text).toContain('meterstack_w{mode="prepaid"} 4');
    expect((await b.text()).trim()).toBe('');
    expect(a.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(() => a.gauge('meterstack_y_total', 'y')).toThrow(/labels/);
    expect(() => a.histogram('meterstack_y_total', 'y', [], [1])).toThrow(/counter/);
  });
});
