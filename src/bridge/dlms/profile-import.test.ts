// The bridge's history import against the meter's closed-only block load profile [CL-9.3, AS-4.7]: the
// bridge's own range, row parsing and cursor (profile.ts) over the meter's own server, polled as the
// bridge polls, across block ends (a poll the very instant a block ends included). Every closed block
// arrives once, the newest closed one too, with the energy the v2 history shows for its interval.
import { describe, expect, it } from 'vitest';
import { decodeApdu } from '../../../firmware-protocol/dlms/apdu/apdu.ts';
import { rangeAccess } from '../../../firmware-protocol/dlms/client/calls.ts';
import { rowsFrom } from '../../../firmware-protocol/dlms/client/values.ts';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import { BLOCK_LOAD_COLUMNS } from '../../../firmware-protocol/dlms/cosem/objects-profiles.ts';
import { ourScalers } from '../../../firmware-protocol/dlms/cosem/rows.ts';
import { ask, associated, NOW, view } from '../../../firmware-protocol/dlms/server/test-helpers.ts';
import type { Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { type ProfilePlan, profilePlan, rangeToRead, samplesFromRows } from './profile.ts';

const MIN = 60_000;
const BLOCK = 15 * MIN;
const START = NOW - 120 * MIN; // 11:30 IST, a block start
const plan = profilePlan(BLOCK_LOAD_COLUMNS, 900) as ProfilePlan;

/** The meter's samples, a minute apart from START, up to and including `now`. */
function meterSamples(now: number): Sample[] {
  const out: Sample[] = [];
  for (let ts = START, k = 0; ts <= now; ts += MIN, k++)
    out.push({
      ts,
      energy: Number((100 + (k * 17) / 1000).toFixed(3)),
      active_power: 1020,
      voltage: 231,
      balance: 9_000 - k,
    });
  return out;
}

/** One read as bridge.ts's #readProfile makes it, against the meter at `now`. */
function readAt(now: number, cursor: number | null): { samples: Sample[]; cursor: number | null } {
  if (cursor !== null && now < cursor + plan.periodS * 1000) return { samples: [], cursor };
  const v = view({ now, history: meterSamples(now) });
  const range = rangeToRead(cursor, now, 0);
  const r = ask(
    associated('reader', 65535, v),
    {
      type: 'get-request-normal',
      invoke: { id: 1, confirmed: true, highPriority: true },
      attribute: { classId: 7, instance: OBIS.blockLoadProfile, attributeId: 2 },
      access: rangeAccess(range.from, range.to, 330),
    },
    v,
  );
  const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
  if (!d?.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
    throw new Error('block load read failed');
  const rows = rowsFrom(d.value.result.data, plan.clockColumn, 330)!;
  const got = samplesFromRows(rows, plan, ourScalers(), {
    cursorMs: cursor,
    shiftMs: 0,
    nowMs: now,
    balance: 0,
  });
  return { samples: got.samples, cursor: got.cursorMs };
}

describe('[CL-9.3, AS-4.7] the bridge imports every closed block once', () => {
  it.each([
    ['polls a minute apart, on the block ends', 0],
    ['polls a minute apart, 7 s after each minute', 7_000],
    ['polls a minute apart, 1 ms before each minute', 59_999],
  ])('%s', (_name, phase) => {
    let cursor: number | null = null;
    const pushed: Sample[] = [];
    const end = START + 3 * 60 * MIN + 5 * MIN; // 14:35 IST: 12 blocks closed, one running
    for (let now = START + phase; now <= end; now += MIN) {
      const r = readAt(now, cursor);
      pushed.push(...r.samples);
      cursor = r.cursor;
    }
    // Every block closed by the last poll, in order, once: 11:45 ... 14:30.
    const ends = pushed.map((s) => s.ts + 1000);
    const lastClosed = Math.floor((end - START) / BLOCK) * BLOCK + START;
    const want = Array.from({ length: (lastClosed - START) / BLOCK }, (_, i) => START + (i + 1) * BLOCK);
    expect(ends).toEqual(want);
    // [CO-7.7] Each block's energy is the last sample's before its end: what the v2 history shows for it.
    const all = meterSamples(end);
    for (const s of pushed) {
      const inBlock = all.filter((x) => x.ts < s.ts + 1000).at(-1)!;
      expect(s.energy).toBe(inBlock.energy);
    }
  });

  it('[AS-4.7] a read the instant a block ends, before the meter took its sample at that instant, still gets the block whole', () => {
    const e = NOW + BLOCK;
    const v = view({ now: e, history: meterSamples(e - 1) }); // the 13:45 sample not taken yet
    const r = ask(
      associated('reader', 65535, v),
      {
        type: 'get-request-normal',
        invoke: { id: 1, confirmed: true, highPriority: true },
        attribute: { classId: 7, instance: OBIS.blockLoadProfile, attributeId: 2 },
        access: rangeAccess(e - 1000, e, 330),
      },
      v,
    );
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    const rows =
      d?.ok && d.value.type === 'get-response-normal' && d.value.result.kind === 'data'
        ? rowsFrom(d.value.result.data, plan.clockColumn, 330)
        : null;
    expect(rows).toHaveLength(1);
    expect(rows![0]![0]).toBe(e);
    expect(rows![0]![4]).toBe(Math.round(meterSamples(e - MIN).at(-1)!.energy * 1000));
  });
});
