// SET and ACTION to contract commands and back [CO-8.1, CO-9.3, CO-9.4, CO-10.5].
import { describe, expect, it } from 'vitest';
import type { MeterCommand } from '../../mqtt/vocabulary.ts';
import { commandForAction, commandForSet, requestForCommand } from './commands.ts';
import { OBIS } from './obis.ts';

describe('SET of our Data objects [CO-9.4]', () => {
  it.each([
    ['mode 1 is postpaid', OBIS.mode, 1, { op: 'set_mode', mode: 'postpaid' }],
    ['EB tariff', OBIS.ebTariff, 800, { op: 'set_tariff', slot: 'eb', paise: 800 }],
    ['DG tariff', OBIS.dgTariff, 0, { op: 'set_tariff', slot: 'dg', paise: 0 }],
    ['active tariff 2', OBIS.activeTariff, 2, { op: 'set_active_tariff', tariff: 2 }],
    ['mode 9 refused', OBIS.mode, 9, { refused: 'other-reason', rule: 'CO-9.4' }],
    ['tariff above 100,000 refused', OBIS.ebTariff, 100_001, { refused: 'other-reason', rule: 'CO-9.4' }],
    ['active tariff 3 refused', OBIS.activeTariff, 3, { refused: 'other-reason', rule: 'CO-9.4' }],
    ['a fraction refused', OBIS.ebTariff, 1.5, { refused: 'type-unmatched', rule: 'CO-9.4' }],
    ['a register is not writable', OBIS.voltage, 1, { refused: 'object-undefined', rule: 'CO-2.4' }],
  ] as const)('[CO-9.4] %s', (_n, obis, value, expected) => {
    expect(commandForSet(obis, value)).toEqual(expected);
  });
});

describe('ACTION [CO-8.1, CO-9.3]', () => {
  it('[CO-8.1] remote disconnect and reconnect', () => {
    expect(commandForAction(OBIS.disconnectControl, 1, 0, 't')).toEqual({ op: 'set_relay', on: false });
    expect(commandForAction(OBIS.disconnectControl, 2, 0, 't')).toEqual({ op: 'set_relay', on: true });
    expect(commandForAction(OBIS.disconnectControl, 3, 0, 't')).toMatchObject({
      refused: 'object-undefined',
    });
  });
  it("[CO-9.3] update_amount is a recharge of positive paise, with the caller's transaction id", () => {
    expect(commandForAction(OBIS.credit, 1, 5000, 'dlms-1')).toEqual({
      op: 'recharge',
      amount: 5000,
      transactionId: 'dlms-1',
    });
    expect(commandForAction(OBIS.credit, 1, 0, 'x')).toEqual({ refused: 'other-reason', rule: 'CO-9.3' });
    expect(commandForAction(OBIS.credit, 2, 5, 'x')).toMatchObject({ refused: 'object-undefined' });
  });
});

describe("the bridge's requests [CO-10.5]", () => {
  const commands: MeterCommand[] = [
    { op: 'set_relay', on: false },
    { op: 'set_relay', on: true },
    { op: 'recharge', amount: 700, transactionId: 'tx-1' },
    { op: 'set_mode', mode: 'measurement' },
    { op: 'set_tariff', slot: 'dg', paise: 1800 },
    { op: 'set_active_tariff', tariff: 2 },
  ];
  it.each(commands.map((c) => [JSON.stringify(c), c] as const))('[CO-10.5] %s round-trips', (_n, c) => {
    const r = requestForCommand(c)!;
    const back =
      r.kind === 'action'
        ? commandForAction(r.obis, r.methodId, r.param, c.op === 'recharge' ? c.transactionId : '')
        : commandForSet(r.obis, r.value);
    expect(back).toEqual(c);
  });
  it('[CO-10.5] WiFi, the gateway and a live read have no DLMS request', () => {
    expect(requestForCommand({ op: 'get_wifi' })).toBeNull();
    expect(requestForCommand({ op: 'set_gateway', enabled: true })).toBeNull();
    expect(requestForCommand({ op: 'read' })).toBeNull();
  });
});
