// Replaying a trace again reads like a log (issue 23 §5, spec-decisions 239): the service warns of
// nothing; a trace that starts over is one info line, its times as IST dates. A meter on wall time
// that sends an older state is still refused with a warning, its times as IST dates too [MC-5.1].

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../src/qa/replay/replay.ts';
import type { Target } from '../../src/qa/replay/target.ts';
import { loadTrace } from '../../src/qa/traces/load.ts';
import { startTestService, type TestService, tempDir } from '../helpers/service.ts';

let t: TestService;
let target: Target;
const tmp = tempDir('meterstack-replay-again-');
const IST = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30/.source;

beforeAll(async () => {
  t = await startTestService();
  target = { httpUrl: t.svc.httpUrl, adminToken: t.svc.adminToken, identity: 'again', close: async () => {} };
});
afterAll(async () => {
  await t?.close();
  tmp.remove();
});

/** Plays `file` as `deviceId`; the service's log lines (not debug) while it played. */
async function play(file: string, deviceId: string): Promise<string[]> {
  const from = t.logs.length;
  const trace = await loadTrace(file);
  const device = { deviceId, knownDevices: join(tmp.dir, 'known.json') };
  await replay({ trace, target, device, pace: { kind: 'instant' }, loops: 1, meter: {} });
  return t.logs.slice(from).filter((l) => !l.startsWith('debug'));
}

describe('a trace replayed again, in the service log', () => {
  it('no warnings; each time it starts over, one info line with IST dates', async () => {
    // offline-gap goes offline and online again: three connections, each with its state.
    const first = await play('fixtures/traces/offline-gap.jsonl', 'MTR-AGAIN-LOG');
    expect(first.filter((l) => l.startsWith('warn'))).toEqual([]);
    expect(first.join('\n')).not.toContain('plays again');
    for (const pass of [2, 3]) {
      const lines = await play('fixtures/traces/offline-gap.jsonl', 'MTR-AGAIN-LOG');
      expect(
        lines.filter((l) => l.startsWith('warn')),
        `pass ${pass}`,
      ).toEqual([]);
      const again = lines.filter((l) => l.includes('plays again'));
      expect(again, `pass ${pass}`).toHaveLength(1);
      expect(again[0]).toMatch(
        new RegExp(
          `^info twins: MTR-AGAIN-LOG plays again from ${IST}, before the newest state held \\(${IST}\\): its older states change nothing, counted and not logged \\[MC-5\\.1\\]$`,
        ),
      );
      expect(again[0]).not.toMatch(/\d{13}/); // no epoch milliseconds
    }
  });
});
