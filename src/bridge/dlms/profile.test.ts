// The block load profile back into samples: once each, by cursor; the clock check [CL-9.3, CL-9.4].
import { describe, expect, it } from 'vitest';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import { BLOCK_LOAD_COLUMNS } from '../../../firmware-protocol/dlms/cosem/objects-profiles.ts';
import { ourScalers } from '../../../firmware-protocol/dlms/cosem/rows.ts';
import { clockCheck, type ProfilePlan, profilePlan, rangeToRead, samplesFromRows } from './profile.ts';

const plan = profilePlan(BLOCK_LOAD_COLUMNS, 900) as ProfilePlan;
const T = Date.UTC(2026, 10, 26, 6, 0, 0);
const B = 900_000;
const rows = [
  [T - B, 23001, 250, 260, 1234000, 50_000],
  [T, 23002, 260, 270, 1234260, 49_990],
];

describe('[CL-9.3] block load rows', () => {
  it('[CL-9.3] each row becomes a sample one second before its block end; the cursor moves to the newest', () => {
    const r = samplesFromRows(rows, plan, ourScalers(), {
      cursorMs: null,
      shiftMs: 0,
      nowMs: T + 1,
      balance: 0,
    });
    expect(r.samples).toEqual([
      { ts: T - B - 1000, energy: 1234, active_power: 1000, voltage: 230.01, balance: 50_000 },
      { ts: T - 1000, energy: 1234.26, active_power: 1040, voltage: 230.02, balance: 49_990 },
    ]);
    expect(r.cursorMs).toBe(T);
  });

  it('[CL-9.3] rows at or before the cursor, and rows in the future, are not pushed', () => {
    const r = samplesFromRows(rows, plan, ourScalers(), {
      cursorMs: T - B,
      shiftMs: 0,
      nowMs: T - 1,
      balance: 0,
    });
    expect(r).toEqual({ samples: [], cursorMs: T - B, skipped: 2 });
  });

  it('[CL-9.3] columns in another order are found by OBIS; without a credit column the live balance is used', () => {
    const cols = [
      BLOCK_LOAD_COLUMNS[4]!,
      BLOCK_LOAD_COLUMNS[0]!,
      BLOCK_LOAD_COLUMNS[2]!,
      BLOCK_LOAD_COLUMNS[1]!,
    ];
    const p = profilePlan(cols, 900) as ProfilePlan;
    const r = samplesFromRows([[1234260, T, 260, 23002]], p, ourScalers(), {
      cursorMs: null,
      shiftMs: 0,
      nowMs: T,
      balance: 777,
    });
    expect(r.samples).toEqual([
      { ts: T - 1000, energy: 1234.26, active_power: 1040, voltage: 230.02, balance: 777 },
    ]);
  });

  it('[CL-9.3] a profile without cumulative kWh is refused by name', () => {
    expect(
      profilePlan(
        BLOCK_LOAD_COLUMNS.filter((c) => c.obis !== OBIS.energyKwh),
        900,
      ),
    ).toEqual({
      error: `block load profile without ${OBIS.energyKwh} [CL-9.3]`,
    });
  });

  it('[CL-9.3] the range read: just after the cursor to now, on the meter clock', () => {
    expect(rangeToRead(T, T + B, 5000)).toEqual({ from: T + 1000 + 5000, to: T + B + 5000 });
    expect(rangeToRead(null, T, 0).from).toBe(T - 24 * 3_600_000 + 1000);
  });
});

describe('[CL-9.4] the meter clock', () => {
  it.each([
    [T, T, { offsetMs: 0, off: false }],
    [T + 300_000, T, { offsetMs: 300_000, off: false }],
    [T + 300_001, T, { offsetMs: 300_001, off: true }],
    [T - 3_600_000, T, { offsetMs: -3_600_000, off: true }],
    [null, T, { offsetMs: 0, off: true }],
  ])('meter %s, bridge %s: %j', (meter, bridge, want) => {
    expect(clockCheck(meter, bridge)).toEqual(want);
  });

  it('[CL-9.4] rows of a meter an hour fast are moved onto the bridge clock', () => {
    const fast = rows.map((r) => [r[0]! + 3_600_000, ...r.slice(1)]);
    const r = samplesFromRows(fast, plan, ourScalers(), {
      cursorMs: null,
      shiftMs: 3_600_000,
      nowMs: T + 1,
      balance: 0,
    });
    expect(r.samples.map((s) => s.ts)).toEqual([T - B - 1000, T - 1000]);
  });
});
