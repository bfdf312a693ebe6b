import { describe, expect, it } from 'vitest';
import {
  AVAILABILITY_WILL,
  commandFromWire,
  commandToWire,
  decode,
  encode,
  replyToWire,
  stateToWire,
  telemetryToWire,
} from './codec.ts';
import type { MeterCommand, ReportedState, Sample } from './vocabulary.ts';

const commands: MeterCommand[] = [
  { op: 'set_relay', on: true },
  { op: 'set_mode', mode: 'measurement' },
  { op: 'set_tariff', slot: 'eb', paise: 750 },
  { op: 'set_active_tariff', tariff: 1 },
  { op: 'set_gateway', enabled: false },
  { op: 'set_wifi', ssid: 'home', password: '' },
  { op: 'get_wifi' },
  { op: 'recharge', amount: 10_000, transactionId: 'txn-1' },
  { op: 'read' },
];

describe('commands on the wire', () => {
  it.each(commands.map((c) => [c.op, c] as const))(
    '[MC-8.4] %s survives domain -> wire -> domain',
    (_op, command) => {
      const text = encode('cmd', commandToWire('c-7', command));
      expect(commandFromWire(text)).toEqual({ ok: true, id: 'c-7', command });
    },
  );

  it('[MC-8.4] spells transactionId as transaction_id on the wire', () => {
    const wire = commandToWire('c-1', { op: 'recharge', amount: 5, transactionId: 't-9' });
    expect(encode('cmd', wire)).toBe('{"v":1,"id":"c-1","op":"recharge","amount":5,"transaction_id":"t-9"}');
  });

  it('[MC-9.1] answers a malformed command with a readable id with bad_request', () => {
    const result = commandFromWire('{"v":1,"id":"c-3","op":"set_tariff","slot":"eb","paise":"7"}');
    expect(result).toMatchObject({ ok: false, id: 'c-3', error: { rule: 'MC-8.4' } });
    if (result.ok || !result.reply) throw new Error('expected a reply');
    expect(result.reply).toMatchObject({ v: 1, id: 'c-3', ok: false, error: { code: 'bad_request' } });
    expect(decode('reply', encode('reply', result.reply)).ok).toBe(true);
  });

  it('[MC-9.1] answers a command of another contract version with bad_request', () => {
    const result = commandFromWire('{"v":2,"id":"c-4","op":"read"}');
    expect(result).toMatchObject({
      ok: false,
      reply: {
        id: 'c-4',
        ok: false,
        error: { code: 'bad_request', message: expect.stringContaining('[MC-3.3]') },
      },
    });
  });

  it('[MC-8.3] answers an unknown op with unsupported', () => {
    expect(commandFromWire('{"v":1,"id":"c-5","op":"reboot"}')).toMatchObject({
      ok: false,
      reply: {
        id: 'c-5',
        ok: false,
        error: { code: 'unsupported', message: '[MC-8.3] op: unknown op "reboot"' },
      },
    });
  });

  it.each([
    ['not JSON', '{"id":"c-6",'],
    ['an array', '[{"v":1,"id":"c-6","op":"read"}]'],
    ['no id', '{"v":1,"op":"read"}'],
    ['an id that breaks MC-8.2', '{"v":1,"id":"c 6","op":"read"}'],
    ['a numeric id', '{"v":1,"id":6,"op":"read"}'],
  ])('[MC-9.2] publishes nothing for %s', (_what, payload) => {
    expect(commandFromWire(payload)).toMatchObject({ ok: false, id: null, reply: null });
  });
});

describe('replies and meter payloads', () => {
  it('[MC-8.5] omits data when a successful reply has none', () => {
    expect(encode('reply', replyToWire('c-1', { ok: true }))).toBe('{"v":1,"id":"c-1","ok":true}');
  });

  it('[MC-8.6] carries data of a successful reply', () => {
    const data = { applied: true, balance: 10 };
    expect(replyToWire('c-1', { ok: true, data })).toEqual({ v: 1, id: 'c-1', ok: true, data });
  });

  it('[MC-8.7] carries code and message of a failed reply', () => {
    const reply = replyToWire('c-2', { ok: false, error: { code: 'busy', message: 'configuration mode' } });
    expect(encode('reply', reply)).toBe(
      '{"v":1,"id":"c-2","ok":false,"error":{"code":"busy","message":"configuration mode"}}',
    );
  });

  it('[MC-5.2] stateToWire mirrors ReportedState', () => {
    const state: ReportedState = {
      ts: 1,
      mode: 'postpaid',
      relay_commanded: false,
      relay_state: false,
      eb_tariff: 1,
      dg_tariff: 2,
      active_tariff: 2,
      balance: -3,
      pg_enabled: true,
      wifi_type: 'Primary',
    };
    expect(decode('state', encode('state', stateToWire(state)))).toEqual({
      ok: true,
      value: { v: 1, ...state },
    });
  });

  it('[MC-7.2] telemetryToWire wraps samples', () => {
    const samples: Sample[] = [
      { ts: 1, energy: 0.5, active_power: 10, voltage: 229.9, current: 0.04, balance: 7 },
    ];
    expect(decode('telemetry', encode('telemetry', telemetryToWire(samples)))).toEqual({
      ok: true,
      value: { v: 1, samples },
    });
  });

  it('[MC-6.2] the will is offline without ts', () => {
    expect(encode('availability', AVAILABILITY_WILL)).toBe('{"v":1,"online":false}');
  });
});
