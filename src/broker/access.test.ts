import { describe, expect, it } from 'vitest';
import { isValidPrincipal, mayPublish, maySubscribe, mayWill, type Principal } from './access.ts';
import { admit } from './guard.ts';

const SERVICE: Principal = { kind: 'service' };
const ADMIN: Principal = { kind: 'admin' };
const A: Principal = { kind: 'meter', deviceId: 'A' };

describe('[MC-2.1] mayPublish', () => {
  it.each([
    [A, 'meterstack/v1/service', false], // [MC-12.1] only the service announces
    [A, 'meterstack/v1/A/info', true],
    [A, 'meterstack/v1/A/state', true],
    [A, 'meterstack/v1/A/availability', true],
    [A, 'meterstack/v1/A/telemetry', true],
    [A, 'meterstack/v1/A/reply', true],
    [A, 'meterstack/v1/A/cmd', false],
    [A, 'meterstack/v1/B/state', false],
    [A, 'meterstack/v1/A/state/extra', false],
    [A, 'meterstack/v2/A/state', false],
    [A, 'other/topic', false],
    [SERVICE, 'meterstack/v1/A/cmd', true],
    [SERVICE, 'anything/at/all', true],
    [SERVICE, 'meterstack/v1/service', true], // [MC-12.1]
    [SERVICE, '$SYS/broker/new/clients', false],
    [ADMIN, 'meterstack/v1/A/cmd', false],
    [ADMIN, 'meterstack/v1/A/state', false],
    [ADMIN, 'anything/at/all', false],
  ] as const)('%o on %s -> %s', (principal, topic, allowed) => {
    expect(mayPublish(principal, topic)).toBe(allowed);
  });
});

describe('[MC-2.7] mayPublish with the retain flag', () => {
  it.each([
    [A, 'meterstack/v1/A/info', true],
    [A, 'meterstack/v1/A/state', true],
    [A, 'meterstack/v1/A/availability', true],
    [A, 'meterstack/v1/A/telemetry', false],
    [A, 'meterstack/v1/A/reply', false],
    [SERVICE, 'meterstack/v1/A/cmd', false],
    [SERVICE, 'meterstack/v1/A/state', true], // clearing a removed device's retained topics [MC-2.4]
    [SERVICE, 'meterstack/service/availability', true],
  ] as const)('%o retained on %s -> %s', (principal, topic, allowed) => {
    expect(mayPublish(principal, topic, true)).toBe(allowed);
  });
});

describe('[MC-2.2] maySubscribe', () => {
  it.each([
    [A, 'meterstack/v1/A/cmd', true],
    [A, 'meterstack/v1/B/cmd', false],
    [A, 'meterstack/v1/A/state', false],
    [A, 'meterstack/v1/A/+', false],
    [A, 'meterstack/v1/+/cmd', false],
    [A, 'meterstack/v1/#', false],
    [A, 'meterstack/v1/service', true], // [MC-12.2]
    [A, 'meterstack/v1/service/#', false],
    [A, 'meterstack/v1/+', false],
    [A, '#', false],
    [SERVICE, 'meterstack/v1/+/cmd', true],
    [SERVICE, '#', true],
    [ADMIN, 'meterstack/v1/#', true],
    [ADMIN, '#', true],
  ] as const)('%o to %s -> %s', (principal, filter, allowed) => {
    expect(maySubscribe(principal, filter)).toBe(allowed);
  });
});

describe('[MC-2.1] mayWill', () => {
  it.each([
    [A, 'meterstack/v1/A/availability', true],
    [A, 'meterstack/v1/A/state', false],
    [A, 'meterstack/v1/B/availability', false],
    [SERVICE, 'meterstack/service/availability', true],
    [ADMIN, 'meterstack/admin/availability', false],
  ] as const)('%o will on %s -> %s', (principal, topic, allowed) => {
    expect(mayWill(principal, topic)).toBe(allowed);
  });
});

describe('[MC-1.2] isValidPrincipal', () => {
  it.each(['A', 'meter-01.x_y'])('accepts device id %s', (deviceId) => {
    expect(isValidPrincipal({ kind: 'meter', deviceId })).toBe(true);
  });
  it.each(['', '+', '#', 'a/b', 'x'.repeat(65)])('rejects device id %j', (deviceId) => {
    expect(isValidPrincipal({ kind: 'meter', deviceId })).toBe(false);
  });
});

describe('admit (CONNECT decision)', () => {
  it.each([
    ['unknown credentials', null, 'A', undefined, 4],
    ['invalid device id', { kind: 'meter', deviceId: '+' }, '+', undefined, 5],
    ['client id is not the device id', A, 'B', undefined, 2],
    ['will on a foreign topic', A, 'A', 'meterstack/v1/B/availability', 5],
    ['will on own state', A, 'A', 'meterstack/v1/A/state', 5],
  ] as const)('refuses %s with %i', (_case, principal, clientId, will, returnCode) => {
    expect(admit(principal, clientId, will)).toMatchObject({ ok: false, returnCode });
  });

  it.each([
    ['a meter with its own will', A, 'A', 'meterstack/v1/A/availability'],
    ['a meter without a will', A, 'A', undefined],
    ['the service under any client id', SERVICE, 'whatever', undefined],
    ['the admin watcher without a will', ADMIN, 'mosq-1234', undefined],
  ] as const)('admits %s', (_case, principal, clientId, will) => {
    expect(admit(principal, clientId, will)).toEqual({ ok: true, principal });
  });
});

describe('scoped logins (a Home Assistant login): filters only, never retained', () => {
  const S: Principal = { kind: 'scoped', name: 'x', publish: ['a/+/set'], subscribe: ['b/#', 'c/+/state'] };
  it.each([
    ['a/1/set', false, true],
    ['a/1/set', true, false],
    ['a/1/2/set', false, false],
    ['b/1', false, false],
    ['meterstack/v1/A/cmd', false, false],
  ] as const)('publish %s retain=%s -> %s', (topic, retain, allowed) => {
    expect(mayPublish(S, topic, retain)).toBe(allowed);
  });
  it.each([
    ['b', true],
    ['b/#', true],
    ['b/+/x', true],
    ['c/1/state', true],
    ['c/+/state', true],
    ['c/#', false],
    ['+/1/state', false],
    ['#', false],
    ['b/#/x', false],
  ] as const)('subscribe %s -> %s', (filter, allowed) => {
    expect(maySubscribe(S, filter)).toBe(allowed);
  });
});
