// RP-3, RP-4: the recorder keeps values at their meter's resolution and stays bounded whatever comes.

import { describe, expect, it } from 'vitest';
import { MAX_METERS, POINTS, RunRecorder } from './recorder.ts';

const run = {
  file: 'x.yaml',
  href: 'x.yaml',
  name: 'x',
  seed: 1,
  vtStart: 0,
  vtEnd: 1,
  wallMs: 1,
  setupError: null,
  notes: [],
};

describe('RunRecorder', () => {
  it('RP-4: values at the resolution the meter declared, never float noise', () => {
    const r = new RunRecorder();
    r.message('M', 'info', {
      properties: [
        { property_id: 'energy', resolution: 0.01 },
        { property_id: 'active_power', resolution: 1 },
      ],
    });
    r.message('M', 'telemetry', {
      samples: [{ ts: 1000, energy: 58.20826666666667, active_power: 942.26, balance: 12.7 }],
    });
    const m = r.result(run).meters[0]!;
    expect(m.energy).toEqual([58.21]);
    expect(m.power).toEqual([942]);
    expect(m.balance).toEqual([12]);
  });

  it('RP-4: a resolution that is not a power of ten falls back to meterstack steps', () => {
    const r = new RunRecorder();
    r.message('M', 'info', { properties: [{ property_id: 'energy', resolution: 0.3 }, 'junk', null] });
    r.message('M', 'telemetry', { samples: [{ ts: 1, energy: 0.1 + 0.2 }] });
    expect(r.result(run).meters[0]!.energy).toEqual([0.3]);
    expect(r.result(run).meters[0]!.places).toEqual({ power: 1, energy: 3 });
  });

  it('late samples go in their place once; malformed ones are skipped', () => {
    const r = new RunRecorder();
    r.message('M', 'telemetry', {
      samples: [
        { ts: 3, active_power: 3 },
        { ts: 1, active_power: 1 },
      ],
    });
    r.message('M', 'telemetry', { samples: [{ ts: 1, active_power: 9 }, { ts: 'x' }, null, 7] });
    r.message('M', 'telemetry', 'not an object');
    r.message('M', 'telemetry', { samples: 'nope' });
    expect(r.result(run).meters[0]!.t).toEqual([1, 3]);
  });

  it('keeps only relay changes, from state messages', () => {
    const r = new RunRecorder();
    for (const [ts, on] of [
      [1, true],
      [2, true],
      [3, false],
      [4, false],
      [5, true],
    ] as const)
      r.message('M', 'state', { ts, relay_state: on });
    r.message('M', 'state', { ts: 6, relay_state: 'yes' });
    expect(r.result(run).meters[0]!.relay).toEqual([
      [1, true],
      [3, false],
      [5, true],
    ]);
  });

  it('RP-3: a year of one-minute samples stays within 2×POINTS, evenly, keeping the peak', () => {
    const r = new RunRecorder();
    const n = 525_600;
    for (let i = 0; i < n; i++)
      r.sample('M', {
        ts: i * 60_000,
        active_power: i === 300_000 ? 99_999 : 100,
        energy: i / 1000,
        balance: 0,
      });
    const out = r.result(run);
    const m = out.meters[0]!;
    expect(out.thinned).toBe(true);
    expect(m.t.length).toBeLessThan(2 * POINTS);
    expect(m.t.length).toBeGreaterThan(POINTS / 2);
    expect(m.power).toContain(99_999);
    // Even: no stretch of the year holds many more points than another.
    const half = m.t.filter((t) => t < (n / 2) * 60_000).length;
    expect(Math.abs(half / m.t.length - 0.5)).toBeLessThan(0.1);
  });

  it('RP-3: meters, marks and texts are bounded', () => {
    const r = new RunRecorder();
    for (let i = 0; i < MAX_METERS + 10; i++) r.sample(`M${i}`, { ts: 1, active_power: 1 });
    for (let i = 0; i < 5000; i++) r.mark({ t: i, kind: 'fault', meter: null, text: 'x'.repeat(10_000) });
    const out = r.result(run);
    expect(out.meters).toHaveLength(MAX_METERS);
    expect(out.marks.length).toBeLessThanOrEqual(2000);
    expect(out.marks[0]!.text.length).toBeLessThanOrEqual(2001);
    expect(out.thinned).toBe(true);
    const named = new RunRecorder().result({ ...run, name: 'n'.repeat(1e6), setupError: 'e'.repeat(1e6) });
    expect(named.name.length + named.setupError!.length).toBeLessThanOrEqual(4002);
  });
});
