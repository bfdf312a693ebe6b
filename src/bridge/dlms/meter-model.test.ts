// What a DLMS meter is, from its object list, and one poll's answers into the contract [CL-9.1, CL-9.2].
import { describe, expect, it } from 'vitest';
import type { GetDataResult } from '../../../firmware-protocol/dlms/apdu/cosem.ts';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import { objectList } from '../../../firmware-protocol/dlms/cosem/object-list.ts';
import { planCommand } from './commands.ts';
import {
  infoOf,
  type MeterModel,
  modelFromList,
  pollAttributes,
  readPoll,
  type Scalers,
} from './meter-model.ts';

const reg = (obis: string) => ({ classId: 3, obis });
const BASIC = [
  reg(OBIS.voltage),
  reg(OBIS.activePower),
  reg(OBIS.energyKwh),
  { classId: 8, obis: OBIS.clock },
];
const model = (extra: { classId: number; obis: string }[] = []) =>
  modelFromList([...BASIC, ...extra]) as MeterModel;
const SCALERS: Scalers = new Map([
  [OBIS.voltage, { scaler: -2, unit: 'V' }],
  [OBIS.activePower, { scaler: -1, unit: 'W' }],
  [OBIS.energyKwh, { scaler: 0, unit: 'Wh' }],
]);
const n = (
  type: 'long-unsigned' | 'double-long' | 'double-long-unsigned' | 'enum',
  value: number,
): GetDataResult => ({
  kind: 'data',
  data: { type, value },
});

describe('[CL-9.1] the meter from its object list', () => {
  it('[CL-9.1] a meter without cumulative kWh is not bridged', () => {
    expect(modelFromList(BASIC.filter((o) => o.obis !== OBIS.energyKwh))).toEqual({
      error: `the meter lists no ${OBIS.energyKwh} [CL-9.1]`,
    });
  });

  it('[CL-9.1] info declares what it has: basic without current, no relay without disconnect control', () => {
    const info = infoOf('MTR-1', model(), { serial: 'ABC 1', firmware: 'v2' }, 60);
    expect(info).toMatchObject({
      model: 'basic',
      has_relay: false,
      firmware: 'dlms:v2',
      telemetry_period_s: 60,
    });
    expect(info.properties.map((p) => p.property_id).sort()).toEqual(['active_power', 'energy', 'voltage']);
    expect(info).not.toHaveProperty('serial'); // [MC-4.5] a space is not printable ASCII there
    const full = infoOf(
      'MTR-1',
      model([reg(OBIS.phaseCurrent), { classId: 70, obis: OBIS.disconnectControl }]),
      {},
      60,
    );
    expect(full).toMatchObject({ model: 'full', has_relay: true });
  });
});

describe("[CL-9.1, CO-6.4] our own virtual meters' object lists", () => {
  it.each(['basic', 'full'] as const)('a %s virtual meter is bridged as the model it is', (kind) => {
    const listed = objectList('reader', { hasRelay: true, model: kind }).map((o) => ({
      classId: o.classId,
      obis: o.obis,
    }));
    const info = infoOf('MTR-1', modelFromList(listed) as MeterModel, {}, 60);
    expect(info.model).toBe(kind);
    expect(info.properties.map((p) => p.property_id).sort()).toEqual(
      kind === 'basic'
        ? ['active_power', 'energy', 'voltage']
        : [
            'active_power',
            'apparent_power',
            'current',
            'energy',
            'power_factor',
            'reactive_power',
            'voltage',
          ],
    );
  });
});

describe('[CL-9.2] one poll', () => {
  it('[CL-9.2] registers at their scalers into a sample at the bridge clock; no credit: measurement, balance 0', () => {
    const m = model();
    const items = pollAttributes(m);
    const r = readPoll(
      items,
      [
        n('double-long-unsigned', 1234567),
        n('double-long', 11533),
        n('long-unsigned', 23012),
        { kind: 'error', result: 4 },
      ],
      SCALERS,
      1000,
      330,
    );
    expect(r).toEqual({
      ok: true,
      meterClockMs: null,
      values: {}, // [CL-9.6] no credit, mode or tariff given: no figures for a recharge decision
      sample: { ts: 1000, balance: 0, voltage: 230.12, active_power: 1153.3, energy: 1234.567 },
      state: expect.objectContaining({
        mode: 'measurement',
        relay_state: true,
        relay_commanded: true,
        balance: 0,
      }),
    });
  });

  it('[CL-9.2] a required register refused fails the poll naming it', () => {
    const items = pollAttributes(model());
    const r = readPoll(
      items,
      [
        n('double-long-unsigned', 1),
        n('double-long', 1),
        { kind: 'error', result: 3 },
        { kind: 'error', result: 4 },
      ],
      SCALERS,
      1000,
      330,
    );
    expect(r).toEqual({ ok: false, message: `${OBIS.voltage} refused (data-access-result 3)` });
  });

  it('[CO-10.3] disconnect control: ready_for_reconnection is a prepaid cut-off, an unknown control_state fails', () => {
    const m = model([
      { classId: 70, obis: OBIS.disconnectControl },
      { classId: 112, obis: OBIS.credit },
    ]);
    const items = pollAttributes(m);
    const base = [
      n('double-long-unsigned', 5),
      n('double-long', 0),
      n('long-unsigned', 23012),
      { kind: 'error' as const, result: 4 },
      n('double-long', -20),
    ];
    const cut = readPoll(
      items,
      [...base, { kind: 'data', data: { type: 'boolean', value: false } }, n('enum', 2)],
      SCALERS,
      1,
      330,
    );
    expect(cut).toMatchObject({
      ok: true,
      state: { relay_state: false, relay_commanded: true, mode: 'prepaid', balance: -20 },
    });
    const odd = readPoll(
      items,
      [...base, { kind: 'data', data: { type: 'boolean', value: false } }, n('enum', 7)],
      SCALERS,
      1,
      330,
    );
    expect(odd).toEqual({ ok: false, message: 'control_state 7 unknown [CO-10.3]' });
  });
});

describe('[CL-9.5] commands', () => {
  it('[CL-9.5] what the meter does not list is unsupported, naming the object', () => {
    expect(planCommand({ op: 'set_relay', on: false }, model())).toEqual({
      kind: 'reply',
      reply: {
        ok: false,
        error: {
          code: 'unsupported',
          message: `the meter lists no Disconnect control (${OBIS.disconnectControl}): it cannot set_relay over DLMS`,
        },
      },
    });
    expect(planCommand({ op: 'recharge', amount: 5, transactionId: 't' }, model())).toMatchObject({
      reply: { error: { code: 'unsupported' } },
    });
    expect(planCommand({ op: 'get_wifi' }, model())).toMatchObject({
      reply: { error: { code: 'unsupported' } },
    });
  });

  it('[CL-9.5] a recharge is update_amount with a double-long of paise; the relay a method with integer 0', () => {
    const m = model([
      { classId: 70, obis: OBIS.disconnectControl },
      { classId: 112, obis: OBIS.credit },
    ]);
    expect(planCommand({ op: 'recharge', amount: 500, transactionId: 'p1' }, m)).toEqual({
      kind: 'recharge',
      transactionId: 'p1',
      call: {
        kind: 'action',
        method: { classId: 112, instance: OBIS.credit, methodId: 1 },
        parameters: { type: 'double-long', value: 500 },
      },
    });
    expect(planCommand({ op: 'set_relay', on: true }, m)).toMatchObject({
      call: { method: { classId: 70, methodId: 2 }, parameters: { type: 'integer', value: 0 } },
    });
  });
});
