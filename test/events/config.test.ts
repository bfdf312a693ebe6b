// `serve --journal-size N` / METERSTACK_JOURNAL_SIZE (issue 9 §3); `--no-events`, the bus-off baseline
// of bench/ingest.ts (issue 9 speed).

import { describe, expect, it } from 'vitest';
import { ConfigError, parseServeConfig, SERVE_HELP } from '../../src/cli/config.ts';

function config(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseServeConfig(argv, env);
  if (parsed.help) throw new Error('help');
  return parsed.config;
}

describe('serve --journal-size', () => {
  it('defaults to 10,000, takes the flag over the variable, and is in the help', () => {
    expect(config([]).events?.journalSize).toBe(10_000);
    expect(config([], { METERSTACK_JOURNAL_SIZE: '500' }).events?.journalSize).toBe(500);
    expect(config(['--journal-size', '42'], { METERSTACK_JOURNAL_SIZE: '500' }).events?.journalSize).toBe(42);
    expect(SERVE_HELP).toContain('--journal-size N');
  });

  it.each(['0', '-1', '1.5', 'lots', '1000001'])('refuses %s, naming the flag and the variable', (v) => {
    expect(() => config(['--journal-size', v])).toThrow(ConfigError);
    expect(() => config([], { METERSTACK_JOURNAL_SIZE: v })).toThrow(
      /--journal-size \(METERSTACK_JOURNAL_SIZE\)/,
    );
  });
});

describe('serve --no-events', () => {
  it('leaves the bus on by default and turns it off with the flag or the variable', () => {
    expect(config([]).events?.enabled).toBe(true);
    expect(config(['--no-events']).events?.enabled).toBe(false);
    expect(config([], { METERSTACK_NO_EVENTS: '1' }).events?.enabled).toBe(false);
    expect(config([], { METERSTACK_NO_EVENTS: '0' }).events?.enabled).toBe(true);
    expect(SERVE_HELP).toContain('--no-events');
  });

  it('refuses a variable that is not 1/true or 0/false', () => {
    expect(() => config([], { METERSTACK_NO_EVENTS: 'yes' })).toThrow(/METERSTACK_NO_EVENTS/);
  });
});
