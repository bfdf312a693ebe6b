// [M-11] WiFi: the primary network, and the configuration (Secondary) network of spec §4 "Further rules".

import { hash32, hashString } from './rng.ts';
import type { MeterState, WifiState } from './types.ts';

/** The fixed configuration network a client hotspots before holding the button (spec <CONFIG_SSID>). */
export const CONFIG_SSID = 'meterstack-setup';
export const CONFIG_PASSWORD = 'meterstack-config';
/** Holding the button this long (spec: "about 5 seconds") enters configuration mode. */
export const CONFIG_HOLD_SECONDS = 5;
/** spec §8: SSID max 32 characters (an empty SSID names no network). */
export const SSID_MAX_CHARS = 32;
/**
 * spec §8: password max 64 characters. 0 (an open network) is accepted; 1..7 would not be a valid
 * WPA2 passphrase, but the spec sets no minimum, so the meter takes what the API takes.
 */
export const PASSWORD_MAX_CHARS = 64;
/**
 * [MC-3.9] What a meter stores is bytes: an SSID is at most 32 octets on air (IEEE 802.11), and the
 * password buffer of WiFi firmware holds 64 (ESP-IDF `wifi_sta_config_t`). So each limit is checked
 * in UTF-8 bytes as well as characters: 32 × "é" is 32 characters but 64 bytes, and too long.
 */
export const SSID_MAX_BYTES = 32;
export const PASSWORD_MAX_BYTES = 64;

/** Length in UTF-8 bytes; a lone surrogate counts as the 3 bytes of U+FFFD, as an encoder writes it. */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * Why `s` breaks a "`max` characters, stored in `max` bytes" limit, or null. Over `max` characters:
 * the spec's own message, `at most N characters`; within them but over `max` bytes: that message,
 * then the byte count, so a client matching the spec's text still matches.
 */
export function byteLimitProblem(s: string, max: number): string | null {
  if (chars(s) > max) return `at most ${max} characters`;
  const bytes = utf8Length(s);
  if (bytes > max) return `at most ${max} characters (${max} bytes in UTF-8; this one is ${bytes} bytes)`;
  return null;
}

export interface WifiStatus {
  ssid: string;
  password: string;
  rssi: number;
  type: 'Primary' | 'Secondary';
}

/** Characters are Unicode code points, so an emoji counts once. */
function chars(s: string): number {
  return [...s].length;
}

/** A reason the credentials are unacceptable, or null. */
export function wifiCredentialsProblem(ssid: unknown, password: unknown): string | null {
  if (typeof ssid !== 'string' || chars(ssid) < 1 || utf8Length(ssid) > SSID_MAX_BYTES) {
    return `ssid must be 1..${SSID_MAX_CHARS} characters and at most ${SSID_MAX_BYTES} bytes in UTF-8`;
  }
  if (typeof password !== 'string' || utf8Length(password) > PASSWORD_MAX_BYTES) {
    return `password must be at most ${PASSWORD_MAX_CHARS} characters and ${PASSWORD_MAX_BYTES} bytes in UTF-8`;
  }
  return null;
}

/** A plausible, stable signal strength for this meter on `ssid`: -45..-70 dBm ("good"). */
export function rssiFor(seed: number, ssid: string): number {
  return -45 - (hash32(seed, hashString(ssid), 21) % 26);
}

export function wifiJoin(seed: number, ssid: string, password: string): WifiState {
  return { ssid, password, rssi: rssiFor(seed, ssid), configMode: false };
}

export function wifiStatus(s: Pick<MeterState, 'wifi' | 'seed'>): WifiStatus {
  if (s.wifi.configMode) {
    return {
      ssid: CONFIG_SSID,
      password: CONFIG_PASSWORD,
      rssi: rssiFor(s.seed, CONFIG_SSID),
      type: 'Secondary',
    };
  }
  return { ssid: s.wifi.ssid, password: s.wifi.password, rssi: s.wifi.rssi, type: 'Primary' };
}
