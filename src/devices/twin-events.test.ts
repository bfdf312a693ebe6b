import { describe, expect, it } from 'vitest';
import type { StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { RefusalLog, type RefusalReport } from './refusals.ts';
import { infoChanges, offlineReason, stateEmissions } from './twin-events.ts';

const state = (over: Partial<StatePayload> = {}): StatePayload => ({
  v: 1,
  ts: 1,
  mode: 'prepaid',
  relay_commanded: true,
  relay_state: true,
  eb_tariff: 800,
  dg_tariff: 2000,
  active_tariff: 1,
  balance: 100,
  pg_enabled: false,
  wifi_type: 'Primary',
  ...over,
});

describe('offlineReason [MC-6.2]', () => {
  it.each([
    [undefined, undefined, 'will'],
    [5, undefined, 'bye'],
    [undefined, 'link_timeout', 'link_timeout'],
    [5, 'unplugged', 'unplugged'],
  ] as const)('ts %s, hint %s → %s', (ts, hint, reason) => {
    expect(offlineReason(ts, hint)).toBe(reason);
  });
});

describe('stateEmissions', () => {
  it.each([
    ['the first state', null, state(), []],
    ['the same state, newer', state(), state({ ts: 2, balance: 50 }), []],
    ['relay commanded off', state(), state({ relay_commanded: false, relay_state: false }), ['meter.relay']],
    ['mode', state(), state({ mode: 'postpaid' }), ['meter.mode']],
    ['a tariff price', state(), state({ dg_tariff: 2100 }), ['meter.tariff']],
    ['WiFi configuration mode', state(), state({ wifi_type: 'Secondary' }), ['meter.wifi']],
    ['[MC-5.5] tamper appears', state(), state({ tamper: ['cover_open'] }), ['meter.tamper']],
    [
      '[MC-5.5] a second tamper condition',
      state({ tamper: ['cover_open'] }),
      state({ tamper: ['cover_open', 'magnet'] }),
      ['meter.tamper'],
    ],
    ['[MC-5.5] tamper clears', state({ tamper: ['magnet'] }), state(), ['meter.tamper']],
    ['[MC-5.5] tamper unchanged', state({ tamper: ['magnet'] }), state({ ts: 2, tamper: ['magnet'] }), []],
    [
      'prepaid balance ran out',
      state(),
      state({ relay_state: false, balance: -1 }),
      ['meter.relay', 'meter.cutoff'],
    ],
    [
      'recharged',
      state({ relay_state: false, balance: -1 }),
      state({ balance: 99 }),
      ['meter.relay', 'meter.restored'],
    ],
    [
      'postpaid now: relay closes again',
      state({ relay_state: false, balance: -1 }),
      state({ mode: 'postpaid', balance: -1 }),
      ['meter.relay', 'meter.mode', 'meter.restored'],
    ],
    [
      'commanded off while cut off: no restore',
      state({ relay_state: false, balance: -1 }),
      state({ relay_commanded: false, relay_state: false, balance: -1 }),
      ['meter.relay'],
    ],
    [
      '[MC-5.6] first warning threshold crossed',
      state({ low_balance: null }),
      state({ balance: 49, low_balance: 50 }),
      ['meter.low_balance'],
    ],
    [
      '[MC-5.6] a lower threshold crossed',
      state({ low_balance: 50 }),
      state({ balance: -1, low_balance: 0 }),
      ['meter.low_balance'],
    ],
    ['[MC-5.6] field absent before', state(), state({ balance: 49, low_balance: 50 }), ['meter.low_balance']],
    [
      '[MC-5.6] re-armed by a recharge: no warning',
      state({ low_balance: 0 }),
      state({ balance: 900, low_balance: null }),
      [],
    ],
    [
      '[MC-5.6] lifted to a higher threshold: no warning',
      state({ low_balance: 0 }),
      state({ balance: 20, low_balance: 50 }),
      [],
    ],
    [
      '[MC-5.6] the same threshold again (a newer report)',
      state({ low_balance: 50 }),
      state({ ts: 2, low_balance: 50 }),
      [],
    ],
    [
      'postpaid below zero is no cut-off',
      state({ mode: 'postpaid' }),
      state({ mode: 'postpaid', balance: -5 }),
      [],
    ],
  ] as const)('%s', (_name, was, now, types) => {
    expect(stateEmissions(was, now).map((e) => e.type)).toEqual(types);
  });

  it('a cut-off carries the balance at that instant; the relay what it was', () => {
    const out = stateEmissions(state(), state({ relay_state: false, balance: -3 }));
    expect(out).toEqual([
      {
        type: 'meter.relay',
        data: { commanded: true, effective: false, was: { commanded: true, effective: true } },
      },
      { type: 'meter.cutoff', data: { balance: -3 } },
    ]);
  });
});

it('[MC-5.6] a low-balance warning carries the threshold and the balance', () => {
  expect(stateEmissions(state({ low_balance: null }), state({ balance: 4999, low_balance: 5000 }))).toEqual([
    { type: 'meter.low_balance', data: { threshold: 5000, balance: 4999 } },
  ]);
});

describe('infoChanges', () => {
  const info = {
    v: 1 as const,
    device_id: 'M',
    model: 'basic' as const,
    firmware: '1.0',
    has_relay: true,
    telemetry_period_s: 60,
    properties: [],
  };
  it('names every field first, then only what changed', () => {
    expect(infoChanges(null, info)).toHaveLength(5);
    expect(infoChanges(info, { ...info })).toEqual([]);
    expect(infoChanges(info, { ...info, firmware: '1.1', telemetry_period_s: 10 })).toEqual([
      'firmware',
      'telemetry_period_s',
    ]);
  });
});

describe('RefusalLog reports [MC-9.5]', () => {
  it('each refusal told, then one report per reason with its count', () => {
    const reports: RefusalReport[] = [];
    const log = new RefusalLog({ log: () => {}, perInterval: 2, report: (r) => reports.push(r) });
    for (let i = 0; i < 5; i++) log.refuse('unmatchedReply', 'M1', () => `reply ${i}`);
    log.refuse('staleState', 'M2', () => 'stale', 1);
    expect(reports.map((r) => [r.reason, r.count, r.deviceId])).toEqual([
      ['unmatchedReply', 1, 'M1'],
      ['unmatchedReply', 1, 'M1'],
    ]);
    log.stop();
    expect(reports.slice(2).map((r) => [r.reason, r.count, r.deviceId])).toEqual([
      ['unmatchedReply', 3, 'M1'],
      ['staleState', 1, 'M2'],
    ]);
    expect(reports[2]!.detail).toContain('MC-8.9');
  });
});
