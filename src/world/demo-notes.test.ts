// What the serve banner says of each demo meter (issue 9 §4): from its definition and its state now.

import { describe, expect, it } from 'vitest';
import { createMeter } from '../../simulator/meter/create.ts';
import { UNITS_PER_PAISE } from '../../simulator/meter/types.ts';
import { DEMO_METERS } from './demo.ts';
import { demoNote } from './demo-notes.ts';

const def = (id: string) => DEMO_METERS.find((m) => m.deviceId === id)!;

describe('demoNote', () => {
  it('from the definitions alone (no meter running): mode, tariff, offline, no space, load', () => {
    const notes = Object.fromEntries(
      DEMO_METERS.map((d) => [d.deviceId, demoNote({ def: d, online: d.online !== false })]),
    );
    expect(notes).toMatchObject({
      'MTR-A101': 'full  prepaid ₹10,000.00, home load to 3 kW',
      'MTR-A103': 'full  measurement only (never cut off), 800 W steady',
      'MTR-A104': 'basic relay held off, no load',
      'MTR-B202': 'basic prepaid ₹15,000.00, on the DG tariff, home load to 1.8 kW',
      'MTR-B203': 'full  offline (lost power), postpaid, home load to 2.5 kW',
      'MTR-X001': 'full  in no space (a spare), postpaid, 200 W steady',
    });
  });

  it('a prepaid meter on a steady load close to running out: how long, and the clock advance that shows it', () => {
    const d = def('MTR-B201');
    // ₹60 at 1.5 kW × ₹8/kWh: 5 h
    const state = createMeter(
      { deviceId: 'MTR-B201', model: 'full', ebTariff: 800, balance: 6_000, load: d.load },
      0,
    );
    expect(demoNote({ def: d, state, online: true })).toBe(
      'full  prepaid ₹60.00 at 1.5 kW: cut off in ~5 h (advance 6 h)',
    );
    const cut = { ...state, balance: -42n * UNITS_PER_PAISE - 1n };
    expect(demoNote({ def: d, state: cut, online: true })).toBe(
      'full  prepaid, cut off at -₹0.43: recharge it, 1.5 kW steady',
    );
  });
});
