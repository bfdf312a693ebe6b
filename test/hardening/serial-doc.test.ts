// Issue 8 item 14 [SP-5.11]: PROTOCOL.md's timing table says what the code does. Each row is read from the
// document and compared with the constant the bridge uses, so the two cannot drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_KEEPALIVE_S,
  KEEPALIVE_RANGE,
  SILENCE_PERIODS,
} from '../../firmware-protocol/serial/frames.ts';
import { IDENT_RETRY_MS } from '../../src/bridge/bridge.ts';
import { COMMAND_TIMEOUT_MS, MAX_COMMANDS_IN_FLIGHT } from '../../src/bridge/commands.ts';
import { PARTIAL_LINE_MS } from '../../src/serial/link.ts';

const doc = readFileSync(new URL('../../firmware-protocol/serial/PROTOCOL.md', import.meta.url), 'utf8');
const row = (what: string) => {
  const line = doc.split('\n').find((l) => l.startsWith(`| ${what} `));
  if (!line) throw new Error(`no timing row "${what}" in PROTOCOL.md`);
  return line.split('|')[2]!.trim();
};

describe('[SP-5.11] the timing table of PROTOCOL.md matches the code', () => {
  it('every row', () => {
    expect(row('reply deadline (bridge)')).toMatch(new RegExp(`^${COMMAND_TIMEOUT_MS / 1000} s `));
    expect(row('commands in flight')).toMatch(
      new RegExp(`^${MAX_COMMANDS_IN_FLIGHT} per meter; the ${MAX_COMMANDS_IN_FLIGHT + 1}th`),
    );
    expect(row('IDENT rate')).toMatch(new RegExp(`every ${IDENT_RETRY_MS / 1000} s while not up`));
    expect(row('keep-alive')).toContain(
      `(${KEEPALIVE_RANGE.min}–${KEEPALIVE_RANGE.max} s, default ${DEFAULT_KEEPALIVE_S})`,
    );
    expect(row('link timeout')).toMatch(
      new RegExp(
        `^${SILENCE_PERIODS} × \`keepalive_s\`.*\\(${SILENCE_PERIODS * DEFAULT_KEEPALIVE_S} s by default\\)`,
      ),
    );
    expect(row('partial lines')).toBe(`dropped after ${PARTIAL_LINE_MS / 1000} s without a byte`);
  });
});
