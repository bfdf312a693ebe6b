// The pure parts of the Home Assistant extension, from tables: topics and ids [HA-1], commands [HA-6],
// the HA login's filters [HA-7], the state [HA-4] and the discovery configs checked against HA's
// platform schemas [HA-2, HA-3].

import { describe, expect, it } from 'vitest';
import { DISCOVERY_TOPIC, HaStatePayload, PLATFORM_SCHEMAS } from '../../../test/helpers/home-assistant.ts';
import { mayPublish, maySubscribe, type Principal } from '../../broker/access.ts';
import type { Twin } from '../../devices/types.ts';
import { MAX_PAYLOAD_BYTES, parseCommand, showPayload } from './commands.ts';
import { discoveryConfigs } from './discovery.ts';
import { haLogin } from './login.ts';
import { haState } from './state.ts';
import { nodeIdOf, parseCommandTopic, prefixProblem } from './topics.ts';

describe('[HA-1] prefixes and node ids', () => {
  it.each([
    ['homeassistant', null],
    ['ha/site-1', null],
    ['', 'levels'],
    ['home/#', 'levels'],
    ['home/+/x', 'levels'],
    ['$SYS', 'levels'],
    ['a//b', 'levels'],
    ['/a', 'levels'],
    ['meterstack', 'meterstack/'],
    ['meterstack/v1', 'meterstack/'],
    ['x'.repeat(65), 'levels'],
  ])('%j -> %s', (prefix, problem) => {
    const got = prefixProblem(prefix);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });

  it('node ids are HA-safe and no two device ids share one', () => {
    const ids = ['A.B', 'A_B', 'A_dB', 'A__B', 'A-B', 'a.b.c', 'a_d.b'];
    const nodes = ids.map(nodeIdOf);
    for (const n of nodes) expect(n).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(new Set(nodes).size).toBe(ids.length);
  });
});

describe('[HA-6] commands from HA', () => {
  const relay = 'meterstack/ha/MTR-1/relay/set';
  const mode = 'meterstack/ha/MTR-1/mode/set';
  it.each([
    [relay, 'ON', false, { ok: true, command: { op: 'set_relay', on: true } }],
    [relay, 'OFF', false, { ok: true, command: { op: 'set_relay', on: false } }],
    [mode, 'relay_off', false, { ok: true, command: { op: 'set_mode', mode: 'relay_off' } }],
    [relay, 'on', false, { ok: false, reason: 'payload' }],
    [relay, 'ON ', false, { ok: false, reason: 'payload' }],
    [relay, '', false, { ok: false, reason: 'payload' }],
    [mode, 'PREPAID', false, { ok: false, reason: 'payload' }],
    [mode, '{"mode":"prepaid"}', false, { ok: false, reason: 'payload' }],
    [relay, 'ON', true, { ok: false, reason: 'retained' }],
    [relay, 'x'.repeat(MAX_PAYLOAD_BYTES + 1), false, { ok: false, reason: 'too_long' }],
    ['meterstack/ha/MTR-1/tariff/set', '1', false, { ok: false, reason: 'topic' }],
    ['meterstack/ha/+/relay/set', 'ON', false, { ok: false, reason: 'topic' }],
    ['meterstack/ha/a b/relay/set', 'ON', false, { ok: false, reason: 'topic' }],
    ['meterstack/ha/MTR-1/relay/set/x', 'ON', false, { ok: false, reason: 'topic' }],
  ] as const)('%s %j retain=%s', (topic, payload, retain, want) => {
    expect(parseCommand(topic, Buffer.from(payload), retain)).toMatchObject(want);
  });

  it('a payload shown in a log line is short printable ASCII', () => {
    expect(showPayload(Buffer.from([0, 0x1b, 0x41, 0xff]))).toBe('??A?');
    expect(showPayload(Buffer.alloc(1000, 0x41))).toMatch(/^A{40}… \(1000 bytes\)$/);
    expect(parseCommandTopic('meterstack/ha/A.b_c/mode/set')).toEqual({ deviceId: 'A.b_c', what: 'mode' });
  });
});

describe('[HA-7] the HA login on the embedded broker', () => {
  const login = haLogin('homeassistant', 'an-admin-token');
  const HA: Principal = {
    kind: 'scoped',
    name: login.username,
    publish: login.publish,
    subscribe: login.subscribe,
  };
  it.each([
    ['meterstack/ha/MTR-1/relay/set', false, true],
    ['meterstack/ha/MTR-1/mode/set', false, true],
    ['meterstack/ha/MTR-1/relay/set', true, false], // retained: never
    ['homeassistant/status', false, true],
    ['homeassistant/switch/x/relay/config', true, false],
    ['meterstack/ha/MTR-1/state', true, false],
    ['meterstack/v1/MTR-1/cmd', false, false],
    ['meterstack/v1/MTR-1/state', true, false],
    ['meterstack/v1/MTR-1/availability', true, false],
    ['meterstack/v1/service', true, false],
    ['$SYS/x', false, false],
  ] as const)('publish %s retain=%s -> %s', (topic, retain, allowed) => {
    expect(mayPublish(HA, topic, retain)).toBe(allowed);
  });
  it.each([
    ['homeassistant/#', true],
    ['homeassistant/+/+/config', true],
    ['homeassistant/+/+/+/config', true],
    ['meterstack/ha/MTR-1/state', true],
    ['meterstack/ha/+/state', true],
    ['meterstack/v1/MTR-1/availability', true],
    ['meterstack/v1/+/availability', true],
    ['meterstack/ha/#', false],
    ['meterstack/ha/+/relay/set', false],
    ['meterstack/v1/+/state', false],
    ['meterstack/v1/MTR-1/telemetry', false],
    ['meterstack/v1/#', false],
    ['#', false],
    ['+/+/+/config', false],
    ['homeassistant/#/x', false],
  ] as const)('subscribe %s -> %s', (filter, allowed) => {
    expect(maySubscribe(HA, filter)).toBe(allowed);
  });
  it('its password is derived from the admin token unless given, and differs from it', () => {
    expect(haLogin('homeassistant', 'an-admin-token').password).toBe(login.password);
    expect(haLogin('homeassistant', 'another-token').password).not.toBe(login.password);
    expect(login.password).not.toContain('an-admin-token');
    expect(haLogin('homeassistant', 'an-admin-token', 'chosen-one').password).toBe('chosen-one');
  });
});

describe('[HA-2] [HA-3] [HA-4] configs and state, without a service', () => {
  const configs = discoveryConfigs(
    { deviceId: 'MTR.9_x', name: '', model: 'basic', hasRelay: false, hasCurrent: false },
    { prefix: 'ha/site', version: '1.2.3' },
  );
  it('a meter without relay or current has no switch or current sensor; each config fits its platform', () => {
    const objects = [...configs.keys()].map((t) => DISCOVERY_TOPIC.exec(t)![4]);
    expect(objects.sort()).toEqual([
      'balance',
      'energy',
      'mode',
      'mode_select',
      'online',
      'power',
      'tariff',
      'voltage',
    ]);
    for (const [topic, payload] of configs) {
      const m = DISCOVERY_TOPIC.exec(topic)!;
      expect(m[1]).toBe('ha/site');
      const c = PLATFORM_SCHEMAS[m[2] as keyof typeof PLATFORM_SCHEMAS].parse(JSON.parse(payload));
      expect(c).toMatchObject({
        device: { name: 'MTR.9_x' },
        origin: { name: 'meterstack', sw_version: '1.2.3' },
      });
    }
  });
  it('the state of a meter never heard of is all unknown and offline; of one heard, in HA units', () => {
    expect(HaStatePayload.parse(haState(undefined))).toMatchObject({
      power: null,
      online: false,
      relay: null,
    });
    const twin = {
      online: true,
      latest: { ts: 2, energy: 1.5, active_power: 230, voltage: 231, balance: 12345 },
      state: { ts: 1, mode: 'prepaid', relay_state: false, active_tariff: 2, balance: 99 },
    } as unknown as Twin;
    expect(HaStatePayload.parse(haState(twin))).toEqual({
      power: 230,
      energy: 1.5,
      voltage: 231,
      current: null,
      balance: 123.45,
      mode: 'prepaid',
      tariff: 'DG',
      relay: 'OFF',
      online: true,
    });
  });
});
