// `serve --ha-discovery [prefix]` and `--ha-password` (issue 22 §3; HA-1, HA-7, HA-10 in
// src/extensions/home-assistant/README.md), and the banner's line for HA's login [SEC-2].

import { describe, expect, it } from 'vitest';
import { banner } from '../../src/cli/banner.ts';
import { ConfigError, parseServeConfig, SERVE_HELP } from '../../src/cli/config.ts';

function config(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseServeConfig(argv, env);
  if (parsed.help) throw new Error('help');
  return parsed.config;
}

describe('[HA-1] serve --ha-discovery [prefix]', () => {
  it.each([
    [[], {}, undefined],
    [['--ha-discovery'], {}, { prefix: 'homeassistant' }],
    [['--ha-discovery', '--no-demo'], {}, { prefix: 'homeassistant' }],
    [['--ha-discovery', 'ha/site-1'], {}, { prefix: 'ha/site-1' }],
    [['--ha-discovery=home'], {}, { prefix: 'home' }],
    [[], { METERSTACK_HA_DISCOVERY: '1' }, { prefix: 'homeassistant' }],
    [[], { METERSTACK_HA_DISCOVERY: 'ha2' }, { prefix: 'ha2' }],
    [[], { METERSTACK_HA_DISCOVERY: 'false' }, undefined],
    [
      ['--ha-discovery', '--ha-password', 'secret-1234'],
      {},
      { prefix: 'homeassistant', password: 'secret-1234' },
    ],
  ] as const)('%j %j -> %j', (argv, env, want) => {
    expect(config([...argv], env).homeAssistant).toEqual(want);
  });

  it.each([
    [['--ha-discovery', 'home/#']],
    [['--ha-discovery', '$SYS']],
    [['--ha-discovery', 'meterstack/v1']],
    [['--ha-discovery', '--ha-password', 'short']],
    [['--ha-password', 'long-enough-1']],
    [['--api-only', '--broker', 'mqtt://u:p@127.0.0.1:1883', '--db', 'x.db', '--ha-discovery']],
  ])('refuses %j with a clear error', (argv) => {
    expect(() => config(argv)).toThrow(ConfigError);
  });

  it('is in the help', () => {
    expect(SERVE_HELP).toContain('--ha-discovery [P]');
    expect(SERVE_HELP).toContain('--ha-password P');
  });
});

describe('[HA-7] [SEC-2] the banner names HA’s login', () => {
  const svc = {
    httpUrl: 'http://127.0.0.1:8080',
    mqttUrl: 'mqtt://127.0.0.1:1883',
    apiKey: 'msk_demo',
    adminToken: 'tok-12345678',
  };
  const base = {
    svc,
    db: 'x.db',
    demo: false,
    generatedAdminToken: true,
    clockIso: '2026-01-05T00:00:00+05:30',
    speed: 1,
  };
  it('with the password as it may be shown', () => {
    const text = banner({
      ...base,
      homeAssistant: { prefix: 'homeassistant', username: 'meterstack-ha', password: 'pw-shown' },
    });
    expect(text).toContain('discovery under homeassistant/');
    expect(text).toContain('meterstack-ha / pw-shown');
    expect(banner(base)).not.toContain('Home Assistant');
  });
});
