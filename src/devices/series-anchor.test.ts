// [MC-7.12] [MC-7.13] A wild first sample cannot pin a meter's series: a register value at or above the
// declared maximum is refused (the first sample too), and a run of agreeing samples refused against an
// unchecked anchor takes the series over. Pure, from tables.

import { describe, expect, it } from 'vitest';
import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { judgeSamples } from './plausibility.ts';
import { FIRST_REGISTER, judgeJoined } from './register-continuity.ts';
import { type AnchorState, followAnchor, REANCHOR_RUN, UNCHECKED } from './series-anchor.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 23, 12, 0);
const s = (minute: number, energy: number): SamplePayload => ({
  ts: T0 + minute * MIN,
  energy,
  active_power: 100,
  voltage: 230,
  balance: 0,
});

/** Feeds messages through judgeSamples and followAnchor as the twins do; the series held at the end. */
function play(messages: SamplePayload[][], start: { newest: SamplePayload | null; state: AnchorState }) {
  let { newest, state } = start;
  const stored: number[] = [];
  let reanchored = 0;
  for (const msg of messages) {
    const v = judgeSamples(msg, newest, T0 + 1000 * MIN);
    const next = followAnchor(state, newest, v.accepted.length, v.refused);
    state = next.state;
    let accepted = v.accepted;
    let held = v.newest;
    if (next.reanchor) {
      reanchored++;
      accepted = [...next.reanchor];
      held = next.reanchor.at(-1)!;
    }
    stored.push(...accepted.map((x) => x.energy));
    newest = held;
  }
  return { stored, newest: newest?.energy, checked: state.checked, reanchored };
}

const fresh = { newest: null, state: UNCHECKED };

describe('[MC-7.13] re-anchoring a series pinned by an unchecked sample', () => {
  it.each([
    {
      name: 'a wild first sample (424,242 kWh) is outvoted by three honest ones; they are stored',
      messages: [[s(0, 424_242)], [s(1, 10.02)], [s(2, 10.04)], [s(3, 10.06)], [s(4, 10.08)]],
      stored: [424_242, 10.02, 10.04, 10.06, 10.08],
      newest: 10.08,
      checked: true,
      reanchored: 1,
    },
    {
      name: 'the three may come in one message',
      messages: [[s(0, 424_242)], [s(1, 10.02), s(2, 10.04), s(3, 10.06)]],
      stored: [424_242, 10.02, 10.04, 10.06],
      newest: 10.06,
      checked: true,
      reanchored: 1,
    },
    {
      name: 'a wild low first sample outvoted the same way (energy would otherwise be "implausible")',
      messages: [[s(0, 0)], [s(1, 5000)], [s(2, 5000.01)], [s(3, 5000.02)]],
      stored: [0, 5000, 5000.01, 5000.02],
      newest: 5000.02,
      checked: true,
      reanchored: 1,
    },
    {
      name: 'an honest first sample and one wild one after it: the next honest sample checks it, no take-over',
      messages: [
        [s(0, 10)],
        [s(1, 424_242)],
        [s(2, 10.02)],
        [s(3, 424_242.1)],
        [s(4, 424_242.2)],
        [s(5, 424_242.3)],
      ],
      stored: [10, 10.02],
      newest: 10.02,
      checked: true,
      reanchored: 0,
    },
    {
      name: 'refused samples that disagree with each other never make a run',
      messages: [[s(0, 424_242)], [s(1, 10)], [s(2, 900)], [s(3, 11)], [s(4, 3000)]],
      stored: [424_242],
      newest: 424_242,
      checked: false,
      reanchored: 0,
    },
    {
      name: 'two agreeing samples are not enough',
      messages: [[s(0, 424_242)], [s(1, 10)], [s(2, 10.01)]],
      stored: [424_242],
      newest: 424_242,
      checked: false,
      reanchored: 0,
    },
    {
      name: 'samples older than the anchor (a resent batch) are no run',
      messages: [[s(10, 5)], [s(1, 424_242)], [s(2, 424_242.1)], [s(3, 424_242.2)]],
      stored: [5],
      newest: 5,
      checked: false,
      reanchored: 0,
    },
  ])('$name', ({ name: _name, messages, ...expected }) => {
    expect(play(messages, fresh)).toEqual(expected);
  });

  it('a checked series is never taken over, however many samples disagree (MC-7.5 stands)', () => {
    const msgs = Array.from({ length: 10 }, (_, i) => [s(2 + i, 1 + i * 0.01)]);
    const r = play(msgs, { newest: s(1, 500), state: { checked: true, run: [] } });
    expect(r).toEqual({ stored: [], newest: 500, checked: true, reanchored: 0 });
  });

  it('the newest restored at start (an older build pinned it) is unchecked: its honest successors recover it', () => {
    const msgs = Array.from({ length: REANCHOR_RUN }, (_, i) => [s(2 + i, 12 + i * 0.01)]);
    const r = play(msgs, { newest: s(1, 424_242), state: UNCHECKED });
    expect(r).toMatchObject({ newest: 12.02, checked: true, reanchored: 1 });
  });

  it('only energy refusals count toward a run; a future or too-old ts breaks nothing and adds nothing', () => {
    const next = followAnchor(UNCHECKED, s(0, 424_242), 0, [
      { sample: s(1, 10), reason: 'tsInFuture' },
      { sample: s(2, 10), reason: 'registerEpoch' },
      { sample: null, reason: 'energyBackwards' },
    ]);
    expect(next).toEqual({ state: UNCHECKED, reanchor: null });
  });
});

describe('[MC-7.12] a register value at or above register_max_kwh is refused, the first sample too', () => {
  it.each([
    [[s(0, 424_242)], 99_999.999, [], ['energyImplausible']],
    [[s(0, 99_999.999)], 99_999.999, [], ['energyImplausible']],
    [[s(0, 424_242), s(1, 10.02), s(2, 10.04)], 99_999.999, [10.02, 10.04], ['energyImplausible']],
    [[s(0, 99_999.998)], 99_999.999, [99_999.998], []],
  ])('%o under max %d: taken %o, refused %o', (samples, max, taken, refused) => {
    const v = judgeJoined(samples, null, FIRST_REGISTER, max, T0 + 1000 * MIN);
    expect(v.accepted.map((x) => x.energy)).toEqual(taken);
    expect(v.refused.map((r) => r.reason)).toEqual(refused);
  });
});
