// issue 8 items 6 and 7: the HTTP and MQTT limits are flags and METERSTACK_* variables of `serve`.

import { describe, expect, it } from 'vitest';
import { ConfigError, parseServeConfig, SERVE_HELP } from '../../src/cli/config.ts';

function config(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseServeConfig(argv, env);
  if (parsed.help) throw new Error('help');
  return parsed.config;
}

describe('serve limit flags (issue 8 items 6, 7)', () => {
  it('[issue 8 item 6] defaults: head 10 s, request 30 s, keep-alive 5 s, 1024 HTTP connections', () => {
    expect(config([]).httpLimits).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1024,
    });
  });

  it('[MC-10] defaults: 263,168-byte packets, 2,000 connections/s, 20,000 MQTT connections', () => {
    expect(config([]).mqttLimits).toEqual({
      maxPacketBytes: 263_168,
      connectRate: 2_000,
      maxConnections: 20_000,
    });
  });

  it('takes flags, and variables where no flag is given', () => {
    const c = config(['--http-headers-timeout-ms', '2000', '--mqtt-max-packet-bytes=4096'], {
      METERSTACK_HTTP_HEADERS_TIMEOUT_MS: '9000',
      METERSTACK_HTTP_MAX_CONNECTIONS: '64',
      METERSTACK_MQTT_CONNECT_RATE: '50',
    });
    expect(c.httpLimits).toMatchObject({ headersTimeoutMs: 2000, maxConnections: 64 });
    expect(c.mqttLimits).toMatchObject({ maxPacketBytes: 4096, connectRate: 50 });
  });

  it('refuses a head timeout longer than the request timeout, and nonsense', () => {
    expect(() => config(['--http-headers-timeout-ms', '40000'])).toThrow(
      new ConfigError('--http-headers-timeout-ms (40000) must not exceed --http-request-timeout-ms (30000)'),
    );
    expect(() => config(['--mqtt-max-packet-bytes', '10'])).toThrow(/--mqtt-max-packet-bytes/);
    expect(() => config(['--http-max-connections', '0'])).toThrow(/METERSTACK_HTTP_MAX_CONNECTIONS/);
  });

  it('--help lists every limit flag', () => {
    for (const flag of [
      'http-headers-timeout-ms',
      'http-request-timeout-ms',
      'http-keep-alive-timeout-ms',
      'http-max-connections',
      'mqtt-max-connections',
      'mqtt-connect-rate',
      'mqtt-max-packet-bytes',
    ])
      expect(SERVE_HELP).toContain(`--${flag} N`);
  });
});
