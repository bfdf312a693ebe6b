// [SP-7.5] The serial bridge's log lines for what its meter link does: the lines the bridge wrote before
// the link took its MQTT session over, word for word, and a refused login made fatal.
import { describe, expect, it } from 'vitest';
import type { LinkEvent } from '../meter-link/index.ts';
import { mqttLog } from './mqtt-log.ts';

const broker = { url: 'mqtt://127.0.0.1:1883', username: 'MTR-1', password: 'p' };

function run(events: LinkEvent[]): { lines: string[]; fatal: string[]; online: number } {
  const lines: string[] = [];
  const fatal: string[] = [];
  let online = 0;
  const on = mqttLog(broker, (level, msg) => lines.push(`${level} ${msg}`), {
    online: () => online++,
    refused: (reason) => fatal.push(reason),
  });
  for (const e of events) on(e);
  return { lines, fatal, online };
}

const err = (message: string, code?: number) => Object.assign(new Error(message), { code });

describe('[SP-7.5] the serial bridge’s MQTT log lines', () => {
  it.each<[string, LinkEvent, string[]]>([
    [
      'ready [MC-12.2]',
      { type: 'ready' },
      ['info mqtt mqtt://127.0.0.1:1883: login accepted as MTR-1; checking it is meterstack [MC-12.2]'],
    ],
    [
      'the service announcement [MC-12.2]',
      { type: 'service', announcement: { v: 1, name: 'meterstack', version: '1.2.3', http: 'http://h:1' } },
      ['info connected to meterstack 1.2.3 at mqtt://127.0.0.1:1883 (HTTP http://h:1)'],
    ],
    [
      'lost once ready',
      { type: 'lost', ready: true, announced: true },
      ['warn mqtt mqtt://127.0.0.1:1883: connection lost; reconnecting'],
    ],
    ['lost before ready', { type: 'lost', ready: false, announced: false }, []],
    [
      'a passing error, told with its retry',
      { type: 'error', error: err('ECONNREFUSED'), refused: null },
      ['debug mqtt mqtt://127.0.0.1:1883: ECONNREFUSED'],
    ],
    [
      'a retry',
      { type: 'retrying', inMs: 4000, error: err('ECONNREFUSED') },
      ['warn mqtt mqtt://127.0.0.1:1883: ECONNREFUSED; retrying in 4 s, then less often'],
    ],
    [
      'CONNACK 3',
      { type: 'unavailable', retryMs: 2000 },
      ['warn mqtt mqtt://127.0.0.1:1883: broker says server unavailable (CONNACK 3); retrying in 2000 ms'],
    ],
    [
      'no subscription',
      { type: 'subscribe_failed', topic: 'meterstack/v1/MTR-1/cmd', error: err('refused') },
      ['error mqtt: cannot subscribe to meterstack/v1/MTR-1/cmd: refused'],
    ],
    [
      'a bad cmd [MC-9.1]',
      { type: 'bad_command', error: { rule: 'MC-8.4', message: 'on: expected boolean' } },
      ['warn cmd refused: [MC-8.4] on: expected boolean'],
    ],
    ['a reply', { type: 'replied', id: 'c', op: 'read', reply: { ok: true } }, []],
  ])('%s', (_name, event, lines) => {
    expect(run([event]).lines).toEqual(lines);
  });

  it('a login refused for good is logged with its CONNACK code and ends the bridge; announced says online', () => {
    const r = run([
      {
        type: 'error',
        error: err('Connection refused: Bad username or password', 4),
        refused: 'bad password',
      },
      { type: 'announced' },
    ]);
    expect(r.lines).toEqual(['error mqtt mqtt://127.0.0.1:1883: login refused (CONNACK 4): bad password']);
    expect(r.fatal).toEqual(['the broker at mqtt://127.0.0.1:1883 refused the login: bad password']);
    expect(r.online).toBe(1);
  });

  it('a handler that threw is logged with its stack [SP-6.1]', () => {
    const [line] = run([{ type: 'command_failed', error: err('boom') }]).lines;
    expect(line).toMatch(/^error mqtt: handling a cmd failed: Error: boom\n/);
  });

  it('retries that fail alike are one line, then their sum once connected (decision 171)', () => {
    const retry = (inMs: number): LinkEvent => ({
      type: 'retrying',
      inMs,
      error: err('connect ECONNREFUSED'),
    });
    const r = run([retry(1000), retry(2000), retry(4000), { type: 'ready' }]);
    expect(r.lines[0]).toBe(
      'warn mqtt mqtt://127.0.0.1:1883: connect ECONNREFUSED; retrying in 1 s, then less often',
    );
    expect(r.lines[1]).toMatch(
      /^warn mqtt mqtt:\/\/127\.0\.0\.1:1883: connect ECONNREFUSED \(repeated 2 times in \d+ s\)$/,
    );
    expect(r.lines[2]).toMatch(/login accepted as MTR-1/);
    expect(r.lines).toHaveLength(3);
  });

  it('[MC-12.2] a broker without the announcement is named as not meterstack', () => {
    const [line] = run([{ type: 'service_missing', topic: 'meterstack/v1/service', waitedMs: 3000 }]).lines;
    expect(line).toMatch(
      /^warn mqtt:\/\/127\.0\.0\.1:1883 accepted the connection but is not meterstack: no service announcement on meterstack\/v1\/service within 3 s/,
    );
  });
});
