// [M-11] WiFi (spec §4 further rules, §8 limits): configuration mode and primary credentials.

import { describe, expect, it } from 'vitest';
import { step } from './step.ts';
import { meter, send, states, T0 } from './test-helpers.ts';
import type { MeterState } from './types.ts';
import { CONFIG_PASSWORD, CONFIG_SSID } from './wifi.ts';

function press(m: MeterState, holdSeconds: number) {
  return step(m, { type: 'button', holdSeconds }, T0);
}

function getWifi(m: MeterState): unknown {
  const r = send(m, { op: 'get_wifi' }, T0).reply;
  return r.ok ? r.data : r;
}

describe('[M-11] configuration mode', () => {
  it('reports the primary network by default', () => {
    const wifi = getWifi(meter()) as { rssi: number };
    expect(wifi).toMatchObject({ ssid: 'home-wifi', password: 'home-wifi-pass', type: 'Primary' });
    expect(wifi.rssi).toBeGreaterThanOrEqual(-70);
    expect(wifi.rssi).toBeLessThanOrEqual(-45);
  });

  it.each([0, 2, 4.9, Number.NaN])('a %s s press does nothing', (hold) => {
    const r = press(meter(), hold);
    expect(r.effects).toEqual([]);
    expect(r.state.wifi.configMode).toBe(false);
  });

  it.each([5, 12])('a %s s hold joins the Secondary configuration network', (hold) => {
    const r = press(meter(), hold);
    expect(states(r.effects)).toMatchObject([{ wifi_type: 'Secondary' }]);
    expect(getWifi(r.state)).toMatchObject({
      ssid: CONFIG_SSID,
      password: CONFIG_PASSWORD,
      type: 'Secondary',
    });
  });

  it('a second hold while in configuration mode reports nothing new', () => {
    expect(press(press(meter(), 6).state, 6).effects).toEqual([]);
  });

  it('set_wifi sets the primary network and leaves configuration mode', () => {
    const inConfig = press(meter(), 5).state;
    const r = send(inConfig, { op: 'set_wifi', ssid: 'flat-12', password: 'correct horse' }, T0);
    expect(r.reply).toEqual({ ok: true });
    expect(states(r.effects)).toMatchObject([{ wifi_type: 'Primary' }]);
    const wifi = getWifi(r.state) as { rssi: number };
    expect(wifi).toMatchObject({ ssid: 'flat-12', password: 'correct horse', type: 'Primary' });
    expect(Number.isInteger(wifi.rssi) && wifi.rssi <= -45 && wifi.rssi >= -70).toBe(true);
    // the signal strength is a property of (meter, network): stable across joins
    const again = send(meter(), { op: 'set_wifi', ssid: 'flat-12', password: 'x' }, T0).state;
    expect(again.wifi.rssi).toBe(wifi.rssi);
  });
});

describe('[M-11] [MC-3.9] credentials validation (spec §8: ssid max 32, password max 64 characters; in UTF-8 bytes too)', () => {
  const rows: [string, unknown, unknown, boolean][] = [
    ['empty ssid', '', 'password', false],
    ['1-char ssid', 'a', 'password', true],
    ['32-char ssid', 's'.repeat(32), 'password', true],
    ['33-char ssid', 's'.repeat(33), 'password', false],
    ['8 emoji ssid (32 bytes)', '📶'.repeat(8), 'password', true],
    ['9 emoji ssid (36 bytes)', '📶'.repeat(9), 'password', false],
    ['32 × "é" ssid (32 characters, 64 bytes; issue 8 item 18)', 'é'.repeat(32), 'password', false],
    ['16 × "é" ssid (32 bytes)', 'é'.repeat(16), 'password', true],
    ['32 × "ü" password (64 bytes)', 'net', 'ü'.repeat(32), true],
    ['33 × "ü" password (66 bytes)', 'net', 'ü'.repeat(33), false],
    ['open network', 'cafe', '', true],
    ['64-char password', 'net', 'p'.repeat(64), true],
    ['65-char password', 'net', 'p'.repeat(65), false],
    ['non-string ssid', 42, 'password', false],
    ['missing password', 'net', undefined, false],
  ];
  it.each(rows)('%s -> accepted %s', (_name, ssid, password, ok) => {
    const inConfig = press(meter(), 5).state;
    const r = send(inConfig, { op: 'set_wifi', ssid: ssid as string, password: password as string }, T0);
    expect(r.reply.ok).toBe(ok);
    if (!ok) {
      expect(r.reply).toMatchObject({ error: { code: 'invalid_argument' } });
      expect(r.state.wifi).toStrictEqual(inConfig.wifi); // still in configuration mode
    }
  });
});
