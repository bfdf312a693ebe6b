// The metrics flags of `serve` (PM-6, spec-decisions 203-204): on by default and guarded; off; public;
// the environment's names; nonsense refused naming the flag.

import { describe, expect, it } from 'vitest';
import { ConfigError, parseServeConfig } from '../../src/cli/config.ts';

const parse = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseServeConfig(['--db=:memory:', ...argv], env);
  if (parsed.help) throw new Error('help');
  return parsed.metrics;
};

describe('serve --metrics, --metrics-public [PM-6]', () => {
  it('on and guarded by default; off; public; from the environment', () => {
    expect(parse([])).toEqual({ enabled: true, public: false });
    expect(parse(['--metrics', 'off'])).toEqual({ enabled: false, public: false });
    expect(parse(['--metrics-public'])).toEqual({ enabled: true, public: true });
    expect(parse([], { METERSTACK_METRICS: 'off' })).toEqual({ enabled: false, public: false });
    expect(parse([], { METERSTACK_METRICS_PUBLIC: '1' })).toEqual({ enabled: true, public: true });
  });

  it('refuses a value that is not on or off, and public with off', () => {
    expect(() => parse(['--metrics', 'maybe'])).toThrow(
      new ConfigError("--metrics (METERSTACK_METRICS) must be one of on, off, got 'maybe'"),
    );
    expect(() => parse(['--metrics', 'off', '--metrics-public'])).toThrow(ConfigError);
  });
});
