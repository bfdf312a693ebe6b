// The block and daily load profiles hold closed intervals only, as a real IS 15959 meter's do [AS-4.7]:
// entries_in_use, by range and by entry all count the same closed rows; the registers only a profile
// captures still read the interval running (AS-3.8).
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../mqtt/vocabulary.ts';
import { decodeApdu } from '../apdu/apdu.ts';
import type { Data } from '../apdu/data.ts';
import { rangeAccess } from '../client/calls.ts';
import { instantFrom } from '../client/values.ts';
import { OBIS } from '../cosem/obis.ts';
import { ask, associated, hex, NOW, view } from './test-helpers.ts';

const invoke = { id: 4, confirmed: true, highPriority: true };
const MIN = 60_000;
const BLOCK = 15 * MIN;

/** Samples a minute apart from NOW − 2 h to `until`, 1 kW, energy counting up a Wh a minute. */
function samples(until: number): Sample[] {
  const out: Sample[] = [];
  for (let ts = NOW - 120 * MIN, k = 0; ts <= until; ts += MIN, k++)
    out.push({
      ts,
      energy: Number((100 + k / 1000).toFixed(3)),
      active_power: 1000,
      voltage: 230,
      balance: 50_000,
    });
  return out;
}

function get(now: number, classId: number, obis: string, attributeId: number, access?: object): Data {
  const v = view({ now, history: samples(now) });
  const r = ask(
    associated('reader', 1200, v),
    {
      type: 'get-request-normal',
      invoke,
      attribute: { classId, instance: obis, attributeId },
      ...(access ? { access } : {}),
    } as never,
    v,
  );
  const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
  if (!d?.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
    throw new Error(`no data: ${r.kind === 'reply' ? hex(r.apdu) : r.kind}`);
  return d.value.result.data;
}

const rows = (d: Data): Data[] => (d.type === 'array' ? d.items : []);
const cell = (row: Data | undefined, i: number): Data | undefined =>
  row?.type === 'structure' ? row.items[i] : undefined;
const clockOf = (row: Data | undefined) => instantFrom(cell(row, 0)!, 330);
const value = (d: Data | undefined) => (d && 'value' in d ? d.value : undefined);
const byEntry = (first: number, last: number) => ({
  selector: 2,
  parameters: {
    type: 'structure',
    items: [
      { type: 'double-long-unsigned', value: first },
      { type: 'double-long-unsigned', value: last },
      { type: 'long-unsigned', value: 1 },
      { type: 'long-unsigned', value: 0 },
    ],
  },
});

describe('block load profile: closed blocks only [AS-4.7, CO-7.7]', () => {
  // NOW is 13:30 IST, a block boundary; the history starts at 11:30.
  it('[AS-4.7] a minute before a block ends it is no row; entries_in_use counts the closed ones', () => {
    const now = NOW + 14 * MIN; // 13:44, the block [13:30, 13:45) running
    const all = rows(get(now, 7, OBIS.blockLoadProfile, 2));
    expect(all).toHaveLength(8);
    expect(clockOf(all[7])).toBe(NOW);
    expect(value(get(now, 7, OBIS.blockLoadProfile, 7))).toBe(8);
    // A range reaching into the future still gives no running row.
    expect(rows(get(now, 7, OBIS.blockLoadProfile, 2, rangeAccess(NOW, NOW + 2 * BLOCK, 330)))).toHaveLength(
      1,
    );
  });

  it('[AS-4.7] the instant a block ends it is a row, with the last sample before its end as its cumulative', () => {
    const now = NOW + BLOCK; // 13:45: the sample taken at 13:45 opens the next block
    const all = rows(get(now, 7, OBIS.blockLoadProfile, 2));
    expect(all).toHaveLength(9);
    expect(clockOf(all[8])).toBe(NOW + BLOCK);
    // Samples 13:30..13:44 in the block: cumulative is the 13:44 sample's (134 Wh past the start), 15 Wh in the block.
    expect(value(cell(all[8], 4))).toBe(100_134);
    expect(value(cell(all[8], 2))).toBe(15);
    expect(value(get(now, 7, OBIS.blockLoadProfile, 7))).toBe(9);
  });

  it('[AS-4.5, AS-4.7] by entry: entry 1 is the oldest closed block, the last entry the newest closed one, past it nothing', () => {
    const now = NOW + 14 * MIN;
    const last = rows(get(now, 7, OBIS.blockLoadProfile, 2, byEntry(8, 8)));
    expect(last).toHaveLength(1);
    expect(clockOf(last[0])).toBe(NOW);
    expect(rows(get(now, 7, OBIS.blockLoadProfile, 2, byEntry(9, 0)))).toHaveLength(0);
    expect(rows(get(now, 7, OBIS.blockLoadProfile, 2, byEntry(1, 0)))).toHaveLength(8);
  });

  it('[AS-3.8] the block registers still read the block running', () => {
    const now = NOW + 14 * MIN;
    expect(value(get(now, 3, OBIS.blockKwh, 2))).toBe(15); // the 13:44 cumulative less the 13:29 one
  });
});

describe('daily load profile: closed days only [AS-4.7, CO-7.4]', () => {
  it('[AS-4.7] a day still running is no row: empty buffer, 0 entries in use', () => {
    expect(rows(get(NOW, 7, OBIS.dailyLoadProfile, 2))).toHaveLength(0);
    expect(value(get(NOW, 7, OBIS.dailyLoadProfile, 7))).toBe(0);
  });

  it('[AS-4.7] past local midnight the day before is one row, stamped at that midnight', () => {
    const midnight = Date.UTC(2026, 10, 27) - 330 * MIN; // 00:00 IST on 27 November
    const now = midnight + 5 * MIN;
    const v = view({ now, history: samples(NOW).concat([{ ...samples(NOW).at(-1)!, ts: now }]) });
    const r = ask(
      associated('reader', 1200, v),
      {
        type: 'get-request-normal',
        invoke,
        attribute: { classId: 7, instance: OBIS.dailyLoadProfile, attributeId: 2 },
      },
      v,
    );
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    const buffer =
      d?.ok && d.value.type === 'get-response-normal' && d.value.result.kind === 'data'
        ? d.value.result.data
        : null;
    expect(buffer && rows(buffer)).toHaveLength(1);
    expect(clockOf(rows(buffer!)[0])).toBe(midnight);
  });
});
