// The table of lines: every event type has a level and a message a person can read, and the levels
// keep the default (info) about what happened (spec-decisions 59).

import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  type EventData,
  EventSchema,
  type EventType,
  type MeterEvent,
} from '../../events/schemas.ts';
import { dataOf, duration, LINES, levelOf, messageOf, redactUrl, rupees } from './event-lines.ts';

function ev<T extends EventType>(type: T, data: EventData<T>, device_id?: string): MeterEvent {
  return { seq: 1, type, vt: 0, wt: 0, data, ...(device_id ? { device_id } : {}) } as MeterEvent;
}

describe('event lines (issue 9 §2)', () => {
  it('has a line for every event type', () => {
    expect(Object.keys(LINES).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('writes rupees with paise and Indian grouping, negatives too', () => {
    expect(rupees(50_000)).toBe('₹500.00');
    expect(rupees(-42)).toBe('-₹0.42');
    expect(rupees(12_345_678)).toBe('₹1,23,456.78');
    expect(rupees(0)).toBe('₹0.00');
  });

  it('writes durations in the unit that reads best', () => {
    expect(duration(90_000)).toBe('90 s');
    expect(duration(3_600_000)).toBe('60 min');
    expect(duration(3 * 3_600_000)).toBe('3 h');
    expect(duration(30 * 86_400_000)).toBe('30 d');
  });

  const cases: [string, MeterEvent, string, string][] = [
    [
      'a cut-off, with the balance at that instant',
      ev('meter.cutoff', { balance: -42 }, 'MTR-B201'),
      'info',
      'MTR-B201 cut off: prepaid balance -₹0.42',
    ],
    [
      'a recharge applied, with its ledger entry',
      ev(
        'money.recharge',
        { outcome: 'applied', transaction_id: 't1', amount: 50_000, ledger_seq: 12, balance: 49_958 },
        'MTR-B201',
      ),
      'info',
      'recharge ₹500.00 applied to MTR-B201 (ledger #12), balance ₹499.58',
    ],
    [
      'a duplicate recharge, a refusal: warn',
      ev(
        'money.recharge',
        { outcome: 'duplicate', transaction_id: 't1', amount: 50_000, ledger_seq: 12, balance: 49_958 },
        'MTR-B201',
      ),
      'warn',
      'recharge t1 of ₹500.00 to MTR-B201 is a duplicate: not applied again (ledger #12)',
    ],
    [
      "[LEDGER-4] an external meter's credit pending: warn, with why",
      ev(
        'money.recharge',
        {
          outcome: 'pending',
          transaction_id: 't2',
          amount: 500,
          ledger_seq: 13,
          balance: 1000,
          reason: 'the meter is offline',
        },
        'MTR-SERIAL-1',
      ),
      'warn',
      'recharge t2 of ₹5.00 to MTR-SERIAL-1 pending (ledger #13): the meter is offline',
    ],
    [
      'a 2xx request: debug',
      ev('http.request', {
        method: 'PUT',
        route: '/api/v2/devices/:id/relay',
        url: '/api/v2/devices/MTR-A101/relay',
        status: 200,
        latency_ms: 1.234,
        account_id: 1,
      }),
      'debug',
      'PUT /api/v2/devices/MTR-A101/relay 200 1.2 ms (account 1)',
    ],
    [
      'a 4xx request: info, with its error code',
      ev('http.request', {
        method: 'GET',
        route: '/api/v2/spaces/',
        url: '/api/v2/spaces/',
        status: 401,
        latency_ms: 0.4,
        account_id: null,
        code: 'unauthorized',
      }),
      'info',
      'GET /api/v2/spaces/ 401 0.4 ms unauthorized',
    ],
    [
      'a 5xx request: error',
      ev('http.request', {
        method: 'GET',
        route: '/x',
        url: '/x',
        status: 503,
        latency_ms: 2,
        account_id: null,
      }),
      'error',
      'GET /x 503 2.0 ms',
    ],
    [
      'a relay switched: the effective state, the commanded one where it differs, and what it was',
      ev(
        'meter.relay',
        { commanded: true, effective: false, was: { commanded: false, effective: false } },
        'MTR-A101',
      ),
      'info',
      'MTR-A101 relay off, commanded on (was off)',
    ],
    [
      'a command acked: debug, with latency',
      ev('command.acked', { id: 'c7', op: 'set_relay', latency_ms: 12.345 }, 'MTR-A101'),
      'debug',
      'command set_relay c7 acked by MTR-A101 in 12.3 ms',
    ],
    [
      'a command timed out: warn',
      ev('command.timeout', { id: 'c8', op: 'set_mode', after_ms: 5000 }, 'MTR-A101'),
      'warn',
      'command set_mode c8 to MTR-A101: no reply within 5000 ms',
    ],
    [
      'a meter offline, with the reason in words',
      ev('meter.offline', { reason: 'link_timeout' }, 'MTR-A101'),
      'info',
      'MTR-A101 offline: keep-alive timed out',
    ],
    [
      '[MC-6.8] a meter offline that said why: its words, not "it said goodbye"',
      ev('meter.offline', { reason: 'bye', said: 'serial port closed (disconnected)' }, 'MTR-S1'),
      'info',
      'MTR-S1 offline: it said: serial port closed (disconnected)',
    ],
    [
      '[MC-6.8] its words beside a reason the service knew first',
      ev('meter.offline', { reason: 'link_timeout', said: 'modbus: no answer' }, 'MTR-S1'),
      'info',
      'MTR-S1 offline: keep-alive timed out (it said: modbus: no answer)',
    ],
    [
      'a refused login: warn',
      ev('broker.refused', { client_id: 'x', username: 'MTR-Z', reason: 'bad username or password' }),
      'warn',
      'MQTT login refused (client x, user MTR-Z): bad username or password',
    ],
    [
      'refused connections summed up by the broker: the count',
      ev('broker.refused', {
        client_id: '',
        username: null,
        reason: 'over the connection rate',
        count: 1532,
      }),
      'warn',
      '1,532 MQTT connections refused: over the connection rate',
    ],
    [
      'a refused connection, by its peer',
      ev('broker.refused', { client_id: '', username: null, reason: 'at the cap', peer: '10.0.0.9:5000' }),
      'warn',
      'MQTT connection refused (from 10.0.0.9:5000): at the cap',
    ],
    [
      'a clock jump, to IST',
      ev('clock.advanced', { from: 0, to: 3_600_000 }),
      'info',
      'clock advanced 60 min to 1970-01-01T06:30:00+05:30',
    ],
    [
      'the service’s own message keeps its level',
      ev('log', { level: 'warn', msg: 'MQTT port 1883 is in use, using 1884 instead' }),
      'warn',
      'MQTT port 1883 is in use, using 1884 instead',
    ],
  ];
  it.each(cases)('%s', (_, e, level, msg) => {
    expect(levelOf(e)).toBe(level);
    expect(messageOf(e)).toBe(msg);
  });

  it("a meter's first info (every field named) is debug; a change of some fields is info, naming them", () => {
    const info = { model: 'full', firmware: '1.0', has_relay: true, telemetry_period_s: 60 };
    const first = ev(
      'meter.info',
      { ...info, changed: ['model', 'firmware', 'has_relay', 'telemetry_period_s', 'properties'] },
      'M',
    );
    expect(levelOf(first)).toBe('debug');
    expect(messageOf(first)).toBe('M info: model full, firmware 1.0, with relay, telemetry every 60 s');
    const update = ev('meter.info', { ...info, firmware: '1.1', changed: ['firmware'] }, 'M');
    expect(levelOf(update)).toBe('info');
    expect(messageOf(update)).toBe(
      'M info: model full, firmware 1.1, with relay, telemetry every 60 s (changed: firmware)',
    );
  });

  it('a telemetry summary is debug and its JSON data gives the meter count, not every meter', () => {
    const meters = Array.from({ length: 3 }, (_, i) => ({
      device_id: `M${i}`,
      ts: 1,
      active_power: 1,
      energy: 1,
      voltage: 230,
      balance: 0,
    }));
    const e = ev('telemetry.summary', { interval_ms: 1000, messages: 5, samples: 6, meters });
    expect(levelOf(e)).toBe('debug');
    expect(messageOf(e)).toBe('telemetry: 3 meters, 5 messages, 6 samples in 1.0 s');
    expect(dataOf(e)).toEqual({ interval_ms: 1000, messages: 5, samples: 6, meter_count: 3 });
  });

  it('masks secret-looking query values of a request URL, in the message and the data', () => {
    expect(redactUrl('/api/v2/spaces/?api_key=msk_x&page=2&token=t')).toBe(
      '/api/v2/spaces/?api_key=***&page=2&token=***',
    );
    expect(redactUrl('/api/v2/spaces/')).toBe('/api/v2/spaces/');
    const e = ev('http.request', {
      method: 'GET',
      route: '/api/v2/spaces/',
      url: '/api/v2/spaces/?X-Service-API-Key=msk_secret',
      status: 401,
      latency_ms: 1,
      account_id: null,
    });
    expect(messageOf(e)).not.toContain('msk_secret');
    expect(JSON.stringify(dataOf(e))).not.toContain('msk_secret');
  });

  it('every event type, with valid data, gives a level and a message naming the meter', () => {
    const relay = { commanded: true, effective: true };
    const samples: { [T in EventType]: EventData<T> } = {
      'meter.connected': { client_id: 'MTR-1' },
      'meter.online': { since: 5 },
      'meter.offline': { reason: 'bye' },
      'meter.info': {
        model: 'full',
        firmware: '1.2',
        has_relay: true,
        telemetry_period_s: 60,
        changed: ['firmware'],
      },
      'meter.relay': { ...relay, was: { commanded: false, effective: false } },
      'meter.mode': { mode: 'prepaid', was: 'postpaid' },
      'meter.tariff': { active_tariff: 2, was: 1, eb_tariff: 800, dg_tariff: 2000 },
      'meter.wifi': { wifi_type: 'Secondary', config_mode: true },
      'meter.cutoff': { balance: -1 },
      'meter.restored': { balance: 100 },
      'meter.tamper': { tamper: ['magnet'], was: [] },
      'fault.added': { fault_id: 'F1', kind: 'power_outage', from: 0, until: null },
      'fault.cleared': { fault_ids: ['F1'] },
      'meter.register_reset': { epoch: 1, offset_kwh: 12.5, last_kwh: 12.5 },
      'meter.register_rollover': { epoch: 0, offset_kwh: 100, max_kwh: 100, last_kwh: 99.99 },
      'meter.replaced': { old_serial: 'SN-1', new_serial: 'SN-2' },
      'meter.low_balance': { threshold: 5000, balance: 4999 },
      'money.recharge': {
        outcome: 'refused',
        transaction_id: 't',
        amount: 1,
        ledger_seq: null,
        balance: null,
        reason: 'offline',
      },
      'command.sent': { id: 'c', op: 'set_mode' },
      'command.acked': { id: 'c', op: 'set_mode', latency_ms: 1 },
      'command.refused': { id: 'c', op: 'set_mode', code: 'bad', message: 'no', latency_ms: 1 },
      'command.timeout': { id: 'c', op: 'set_mode', after_ms: 5000 },
      'http.request': { method: 'GET', route: '/', url: '/', status: 200, latency_ms: 1, account_id: null },
      'broker.refused': { client_id: 'c', username: null, reason: 'rate' },
      'contract.refused': { reason: 'bad payload', count: 3, detail: 'telemetry' },
      'clock.advanced': { from: 0, to: 1 },
      'clock.speed': { speed: 10, was: 1 },
      'world.snapshot': { name: 'base', clock: 5, devices: 2, readings: 9 },
      'world.restored': { name: 'base', from: 9, to: 5, devices: 2 },
      'world.reset': { devices: 2 },
      'telemetry.summary': { interval_ms: 1000, messages: 0, samples: 0, meters: [] },
      log: { level: 'error', msg: 'boom' },
    };
    for (const type of EVENT_TYPES) {
      const e = ev(type, samples[type] as EventData<typeof type>, 'MTR-1');
      expect(EventSchema.safeParse(e).success, type).toBe(true);
      expect(['debug', 'info', 'warn', 'error'], type).toContain(levelOf(e));
      const msg = messageOf(e);
      expect(msg.length, type).toBeGreaterThan(0);
      if (
        type.startsWith('meter.') ||
        type.startsWith('fault.') ||
        type.startsWith('command.') ||
        type === 'money.recharge'
      )
        expect(msg, type).toContain('MTR-1');
    }
  });
});
