// [M-8] [M-9] [M-10] [M-12] Command handling: replies, validation, idempotency, duplicate delivery.

import { describe, expect, it } from 'vitest';
import { RECENT_RECHARGES_LIMIT } from './commands.ts';
import { reportedState } from './create.ts';
import { readingsAt } from './readings.ts';
import { RECENT_COMMANDS_LIMIT, step } from './step.ts';
import { advance, HOUR, MINUTE, meter, paise, send, states, T0 } from './test-helpers.ts';
import type { MeterCommand, MeterState, StepResult } from './types.ts';

const bad = (x: unknown) => x as never; // network input that breaks the static types

describe('[M-12] every command gets one reply', () => {
  const rows: [string, MeterCommand, 'ok' | 'invalid_argument' | 'unsupported'][] = [
    ['set_relay', { op: 'set_relay', on: false }, 'ok'],
    ['set_relay non-boolean', { op: 'set_relay', on: bad(1) }, 'invalid_argument'],
    ['set_mode', { op: 'set_mode', mode: 'measurement' }, 'ok'],
    ['set_tariff eb 0', { op: 'set_tariff', slot: 'eb', paise: 0 }, 'ok'],
    ['set_tariff dg 100000', { op: 'set_tariff', slot: 'dg', paise: 100_000 }, 'ok'],
    ['set_tariff 100001', { op: 'set_tariff', slot: 'eb', paise: 100_001 }, 'invalid_argument'],
    ['set_tariff -1', { op: 'set_tariff', slot: 'eb', paise: -1 }, 'invalid_argument'],
    ['set_tariff 1.5', { op: 'set_tariff', slot: 'eb', paise: 1.5 }, 'invalid_argument'],
    ['set_tariff NaN', { op: 'set_tariff', slot: 'eb', paise: Number.NaN }, 'invalid_argument'],
    ['set_tariff "800"', { op: 'set_tariff', slot: 'eb', paise: bad('800') }, 'invalid_argument'],
    ['set_tariff slot', { op: 'set_tariff', slot: bad('xx'), paise: 800 }, 'invalid_argument'],
    ['set_active_tariff', { op: 'set_active_tariff', tariff: 2 }, 'ok'],
    ['set_gateway', { op: 'set_gateway', enabled: true }, 'ok'],
    ['set_wifi', { op: 'set_wifi', ssid: 'net', password: 'secret-pass' }, 'ok'],
    ['get_wifi', { op: 'get_wifi' }, 'ok'],
    ['recharge', { op: 'recharge', amount: 100, transactionId: 't' }, 'ok'],
    ['recharge 0', { op: 'recharge', amount: 0, transactionId: 't' }, 'invalid_argument'],
    ['recharge -5', { op: 'recharge', amount: -5, transactionId: 't' }, 'invalid_argument'],
    ['recharge 1.5', { op: 'recharge', amount: 1.5, transactionId: 't' }, 'invalid_argument'],
    ['recharge "10"', { op: 'recharge', amount: bad('10'), transactionId: 't' }, 'invalid_argument'],
    ['recharge no transaction', { op: 'recharge', amount: 10, transactionId: '' }, 'invalid_argument'],
    ['read', { op: 'read' }, 'ok'],
    ['unknown op', bad({ op: 'reboot' }), 'unsupported'],
  ];
  it.each(rows)('%s -> %s', (_name, command, expected) => {
    const m = meter({ mode: 'postpaid', balance: 50 });
    const r = send(m, command, T0 + MINUTE);
    if (expected === 'ok') {
      expect(r.reply.ok).toBe(true);
    } else {
      expect(r.reply).toMatchObject({ ok: false, error: { code: expected, message: expect.any(String) } });
      // a failed command changes nothing but the memory of its id
      const { recentCommands: _a, ...after } = r.state;
      const { recentCommands: _b, ...before } = advance(m, T0 + MINUTE).state;
      expect(after).toStrictEqual(before);
    }
    expect(r.effects.at(-1)).toMatchObject({ type: 'reply', duplicate: false }); // [M-10] reply comes last
  });
});

describe('[M-10] state reports', () => {
  it.each<[string, MeterCommand]>([
    ['set_relay to the same value', { op: 'set_relay', on: true }],
    ['set_tariff to the same value', { op: 'set_tariff', slot: 'eb', paise: 800 }],
    ['get_wifi', { op: 'get_wifi' }],
    ['read', { op: 'read' }],
    ['set_wifi outside configuration mode', { op: 'set_wifi', ssid: 'x', password: '' }],
  ])('none for %s', (_name, command) => {
    expect(states(send(meter(), command, T0).effects)).toEqual([]);
  });

  it.each<[string, MeterCommand, object]>([
    ['set_tariff', { op: 'set_tariff', slot: 'dg', paise: 2100 }, { dg_tariff: 2100 }],
    ['set_active_tariff', { op: 'set_active_tariff', tariff: 2 }, { active_tariff: 2 }],
    ['recharge', { op: 'recharge', amount: 5, transactionId: 'a' }, { balance: 5 }],
  ])('one for %s, then the reply', (_name, command, change) => {
    const r = send(meter(), command, T0);
    expect(r.effects.map((e) => e.type)).toEqual(['state', 'reply']);
    expect(states(r.effects)).toEqual([{ ...reportedState(r.state, T0), ...change }]);
  });
});

describe('[M-8] recharge idempotency by transaction id', () => {
  it('a repeated transaction credits nothing and says so', () => {
    const first = send(meter({ balance: 10 }), { op: 'recharge', amount: 250, transactionId: 'tx-9' }, T0);
    expect(first.reply).toEqual({ ok: true, data: { applied: true, balance: 260 } });
    const again = send(first.state, { op: 'recharge', amount: 250, transactionId: 'tx-9' }, T0 + 1);
    expect(again.reply).toEqual({ ok: true, data: { applied: false, balance: 260 } });
    expect(again.state.balance).toBe(paise(260));
    expect(states(again.effects)).toEqual([]);
  });

  it(`remembers the last ${RECENT_RECHARGES_LIMIT} transactions`, () => {
    let m: MeterState = meter();
    for (let i = 0; i <= RECENT_RECHARGES_LIMIT; i++) {
      m = send(m, { op: 'recharge', amount: 1, transactionId: `tx-${i}` }, T0).state;
    }
    expect(m.recentRecharges).toHaveLength(RECENT_RECHARGES_LIMIT);
    const oldest = send(m, { op: 'recharge', amount: 1, transactionId: 'tx-0' }, T0);
    expect(oldest.reply).toMatchObject({ data: { applied: true } }); // forgotten: the store's ledger guards it
    const recent = send(m, { op: 'recharge', amount: 1, transactionId: 'tx-1' }, T0);
    expect(recent.reply).toMatchObject({ data: { applied: false } });
  });
});

describe('[M-9] duplicate delivery of a command id', () => {
  it('is applied once; the duplicate gets the cached reply', () => {
    const first = send(meter(), { op: 'recharge', amount: 100, transactionId: 'a' }, T0, 'cmd-x');
    const dup = send(first.state, { op: 'recharge', amount: 100, transactionId: 'b' }, T0 + HOUR, 'cmd-x');
    expect(dup.effects).toEqual([
      ...dup.effects.filter((e) => e.type === 'telemetry'),
      { type: 'reply', id: 'cmd-x', reply: first.reply, duplicate: true },
    ]);
    expect(dup.state.balance).toBe(paise(100));
  });

  it('a duplicate of a failed command fails the same way, even if it would now succeed', () => {
    const first = send(meter(), { op: 'set_tariff', slot: 'eb', paise: -1 }, T0, 'cmd-y');
    const dup = send(first.state, { op: 'set_tariff', slot: 'eb', paise: 900 }, T0, 'cmd-y');
    expect(dup.reply).toEqual(first.reply);
    expect(dup.state.ebTariff).toBe(800);
  });

  it('a duplicate still integrates up to now first', () => {
    const m = meter({ mode: 'postpaid', load: { kind: 'constant', watts: 1000 } });
    const first = send(m, { op: 'read' }, T0, 'cmd-z');
    const dup = step(first.state, { type: 'command', id: 'cmd-z', command: { op: 'read' } }, T0 + HOUR);
    expect(dup.state.lastTs).toBe(T0 + HOUR);
    expect(dup.effects.filter((e) => e.type === 'telemetry')).toHaveLength(60);
  });

  it(`remembers the last ${RECENT_COMMANDS_LIMIT} ids`, () => {
    let m: MeterState = meter();
    for (let i = 0; i < RECENT_COMMANDS_LIMIT + 44; i++) m = send(m, { op: 'get_wifi' }, T0, `id-${i}`).state;
    expect(m.recentCommands).toHaveLength(RECENT_COMMANDS_LIMIT);
    const forgotten = step(m, { type: 'command', id: 'id-43', command: { op: 'get_wifi' } }, T0);
    expect(forgotten.effects).toMatchObject([{ type: 'reply', duplicate: false }]);
    const remembered = step(m, { type: 'command', id: 'id-44', command: { op: 'get_wifi' } }, T0);
    expect(remembered.effects).toMatchObject([{ type: 'reply', duplicate: true }]);
  });
});

describe('read', () => {
  it('replies with the readings and reported state at now', () => {
    const m = meter({ model: 'full', mode: 'postpaid', load: { kind: 'constant', watts: 750 } });
    const r = send(m, { op: 'read' }, T0 + 10 * MINUTE + 5);
    const readings = readingsAt(r.state, T0 + 10 * MINUTE + 5);
    // 750 W for 600.005 s is 0.12500104 kWh, reported to the Wh [M-16].
    expect(readings.energy).toBe(0.125);
    expect(r.reply).toEqual({
      ok: true,
      data: { readings, state: reportedState(r.state, T0 + 10 * MINUTE + 5) },
    });
  });
});

describe('[M-32] a flow edge is sampled at its instant, before the state report', () => {
  const lamp = { kind: 'constant', watts: 800 } as const;
  const kinds = (r: StepResult) => r.effects.map((e) => e.type);
  const power = (r: StepResult) =>
    r.effects.flatMap((e) => (e.type === 'telemetry' ? [e.sample.active_power] : []));

  it('relay off then on: 0 W, then the load, each before its state and reply', () => {
    const m = meter({ mode: 'postpaid', balance: 50, load: lamp, telemetryPeriodMs: HOUR });
    const off = send(m, { op: 'set_relay', on: false }, T0 + MINUTE);
    expect(kinds(off)).toEqual(['telemetry', 'state', 'reply']);
    expect(power(off)).toEqual([0]);
    const on = send(off.state, { op: 'set_relay', on: true }, T0 + 2 * MINUTE);
    expect(kinds(on)).toEqual(['telemetry', 'state', 'reply']);
    expect(power(on)).toEqual([800]);
    // The schedule of M-2 is untouched: the next sample is still the first boundary.
    expect(on.state.nextTelemetryTs).toBe(m.nextTelemetryTs);
  });

  it('no edge, no sample: a mode change that leaves the relay closed, a tariff, a repeated relay on', () => {
    const m = meter({ mode: 'postpaid', balance: 50, load: lamp, telemetryPeriodMs: HOUR });
    expect(kinds(send(m, { op: 'set_mode', mode: 'measurement' }, T0 + MINUTE))).toEqual(['state', 'reply']);
    expect(kinds(send(m, { op: 'set_tariff', slot: 'eb', paise: 900 }, T0 + MINUTE))).toEqual([
      'state',
      'reply',
    ]);
    expect(kinds(send(m, { op: 'set_relay', on: true }, T0 + MINUTE))).toEqual(['reply']);
  });
});
