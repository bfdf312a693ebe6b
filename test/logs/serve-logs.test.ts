// `meterstack serve` logging as a person or a log collector sees it (issue 9 §2, §4 banner): a real
// child process, its real stdout and stderr. JSON lines carry the virtual time and the event type; the
// service's own messages come through the bus once; --log-level hides what is below it; a flood of bad
// requests stays a few lines; bad flag values are clear errors; the banner puts the console first.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseServeConfig } from '../../src/cli/config.ts';
import { runServe, ServeProcess } from '../helpers/child.ts';

const TOKEN = 'logs-admin-token';
const KEY = 'msk_logs_key_42';
const base = [
  '--db=:memory:',
  '--http-port=0',
  '--mqtt-port=0',
  `--admin-token=${TOKEN}`,
  `--api-key=${KEY}`,
];

const running: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

/** The JSON log lines of a stream (the banner is not JSON). */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The log lines as text, to look for what must not be there. */
function logText(p: ServeProcess): string {
  return (p.stdout + p.stderr)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .join('\n');
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// One demo service for the banner and the JSON lines, run in this order; the flood test stops it.
describe('meterstack serve --log-format json --log-level debug (issue 9 §2, §4)', () => {
  let p: ServeProcess;
  let httpUrl: string;
  beforeAll(async () => {
    p = new ServeProcess([...base, '--log-format=json', '--log-level=debug']);
    httpUrl = (await p.ready()).httpUrl;
    await until(() => p.stdout.includes('  try:'), 5000, 'the whole banner');
  });
  afterAll(async () => {
    await p.stop('SIGKILL');
  });

  it('the banner puts the web console first, lists each demo meter with what makes it interesting, fits 80 columns', () => {
    const banner = p.stdout.split('\n').filter((l) => !l.startsWith('{'));
    const start = banner.indexOf('  meterstack is running');
    const first = banner.slice(start + 1).find((l) => l.trim() !== '');
    expect(first).toBe(`  web console  ${httpUrl}/`);
    expect(banner).toContain('               open it in a browser and paste the admin token');
    const meters = Object.fromEntries(
      banner.filter((l) => /^ {4}MTR-/.test(l)).map((l) => [l.slice(4, 12), l.slice(14)]),
    );
    expect(Object.keys(meters)).toEqual([
      'MTR-A101',
      'MTR-A102',
      'MTR-A103',
      'MTR-A104',
      'MTR-B201',
      'MTR-B202',
      'MTR-B203',
      'MTR-X001',
    ]);
    expect(meters['MTR-B201']).toMatch(
      /^full {2}prepaid ₹[\d,.]+ at 1\.5 kW: cut off in ~\d+ h \(advance \d+ h\)$/,
    );
    expect(meters['MTR-B202']).toContain('on the DG tariff (₹20.00/kWh)');
    expect(meters['MTR-B203']).toContain('offline');
    expect(meters['MTR-X001']).toContain('in no space');
    expect(meters['MTR-A103']).toContain('measurement only');
    expect(meters['MTR-A102']).toMatch(/^basic /);
    // Commands stay whole for copying; every other line fits a terminal of 80 columns.
    for (const line of banner.filter((l) => !/^ {4}(curl|mosquitto_sub|npx meterstack) /.test(l))) {
      expect(line.length, line).toBeLessThanOrEqual(80);
    }
  });

  it('writes the service’s messages once each, as log events with virtual time in IST', () => {
    const lines = jsonLines(p.stdout + p.stderr);
    const seeded = lines.filter((l) => String(l.msg).startsWith('demo world seeded'));
    expect(seeded).toHaveLength(1); // through the bus, not a second time through config.log
    expect(seeded[0]).toMatchObject({
      level: 'info',
      type: 'log',
      time: expect.stringMatching(/Z$/),
      vt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30$/),
      seq: expect.any(Number),
    });
    expect(lines.filter((l) => String(l.msg).startsWith('MQTT broker listening'))).toHaveLength(1);
    for (const l of lines) expect(l).toHaveProperty('type');
  });

  it('a relay switched through the v2 API and a recharge: their lines, and no key or token in any line', async () => {
    const put = await fetch(`${httpUrl}/api/v2/devices/MTR-A101/relay`, {
      method: 'PUT',
      headers: { 'x-service-api-key': KEY, 'content-type': 'application/json' },
      body: '{"state":false}',
    });
    expect(put.status).toBe(200);
    const recharge = await fetch(`${httpUrl}/sim/v1/devices/MTR-B201/recharge`, {
      method: 'POST',
      headers: { 'x-admin-token': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 50_000, transaction_id: 'logs-tx-1' }),
    });
    expect(recharge.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    // No log line may show the key or the token (the banner shows the demo key on purpose, and the
    // token nowhere: it was given by flag [SEC-2]).
    expect(logText(p)).not.toContain(KEY);
    expect(logText(p)).not.toContain(TOKEN);

    const all = () => jsonLines(p.stdout + p.stderr);
    await until(() => all().some((l) => l.type === 'money.recharge'), 5000, 'the recharge line');
    await until(() => all().some((l) => l.type === 'meter.relay'), 5000, 'the relay line');
    const lines = all();
    expect(
      lines.find(
        (l) =>
          l.type === 'http.request' && String(l.msg).startsWith('PUT /api/v2/devices/MTR-A101/relay 200'),
      ),
    ).toMatchObject({ level: 'debug' });
    expect(lines.find((l) => l.type === 'meter.relay')).toMatchObject({
      level: 'info',
      device_id: 'MTR-A101',
      data: { effective: false },
    });
    expect(lines.find((l) => l.type === 'money.recharge')).toMatchObject({
      level: 'info',
      device_id: 'MTR-B201',
      msg: expect.stringMatching(/^recharge ₹500\.00 applied to MTR-B201 \(ledger #\d+\)/),
    });
  });

  it('5,000 bad requests in a burst stay a few lines (summed up at the stop)', async () => {
    const before = jsonLines(p.stdout + p.stderr).length;
    const t = performance.now();
    for (let batch = 0; batch < 100; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, () => fetch(`${httpUrl}/api/v2/spaces/`).then((r) => r.arrayBuffer())),
      );
    }
    const ms = performance.now() - t;
    expect(await p.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const lines = jsonLines(p.stdout + p.stderr).slice(before);
    const requests = lines.filter((l) => l.type === 'http.request');
    console.log(`5,000 bad requests in ${ms.toFixed(0)} ms → ${requests.length} http.request lines`);
    // 10 told per 5 s interval, and one summary per interval.
    const intervals = Math.ceil(ms / 5000) + 1;
    expect(requests.length).toBeLessThanOrEqual(11 * intervals);
    // Everything else (the stop's lines, a few others) is a handful whatever the burst took: the bound
    // follows the intervals as the requests' does, so a slow, shared machine is no failure (it was a
    // flat 40, which a burst spread over 4 intervals on a loaded machine exceeded with 43).
    expect(lines.length - requests.length).toBeLessThan(20);
    expect(lines.at(-1)).toMatchObject({ type: 'log', msg: 'stopped cleanly' });
  });
});

describe('meterstack serve --log-level and --log-format values', () => {
  it('METERSTACK_LOG_LEVEL=warn hides info lines (the broker listening)', async () => {
    const p = new ServeProcess([...base, '--no-demo'], {
      METERSTACK_LOG_FORMAT: 'json',
      METERSTACK_LOG_LEVEL: 'warn',
    });
    running.push(p);
    await p.ready();
    await new Promise((r) => setTimeout(r, 200));
    expect(p.stdout).toContain('meterstack is running');
    expect(jsonLines(p.stdout + p.stderr).filter((l) => l.level === 'info' || l.level === 'debug')).toEqual(
      [],
    );
  });

  it.each([
    [
      ['--log-level=verbose'],
      {},
      "--log-level (METERSTACK_LOG_LEVEL) must be one of debug, info, warn, error, got 'verbose'",
    ],
    [
      ['--log-format=text'],
      {},
      "--log-format (METERSTACK_LOG_FORMAT) must be one of pretty, json, got 'text'",
    ],
    [
      [],
      { METERSTACK_LOG_LEVEL: 'INFO' },
      "--log-level (METERSTACK_LOG_LEVEL) must be one of debug, info, warn, error, got 'INFO'",
    ],
  ])('%j %j is refused naming the flag, its variable and the choices', (args, env, message) => {
    expect(() => parseServeConfig([...base, ...args], env)).toThrow(new ConfigError(message));
  });

  it('flags win over variables; the format defaults to pretty on a terminal, json otherwise', () => {
    const parse = (argv: string[], env: Record<string, string>, tty: boolean) => {
      const r = parseServeConfig([...base, ...argv], env, tty);
      return r.help ? null : r.logging;
    };
    expect(parse([], {}, true)).toEqual({ format: 'pretty', level: 'info' });
    expect(parse([], {}, false)).toEqual({ format: 'json', level: 'info' });
    expect(parse(['--log-level=debug'], { METERSTACK_LOG_LEVEL: 'error' }, false)?.level).toBe('debug');
    expect(parse([], { METERSTACK_LOG_FORMAT: 'pretty' }, false)?.format).toBe('pretty');
  });

  it('a bad value exits 2 before anything starts', async () => {
    const r = await runServe([...base, '--log-level=loud']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--log-level (METERSTACK_LOG_LEVEL) must be one of debug, info, warn, error, got 'loud'",
    );
    expect(r.stdout).not.toContain('meterstack is running');
  });

  it('on a terminal (a pseudo-TTY by script) without --log-format the lines are pretty', async () => {
    const bin = fileURLToPath(new URL('../helpers/meterstack.js', import.meta.url));
    const cmd = `${process.execPath} ${bin} serve ${base.join(' ')} --no-demo`;
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')));
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await until(() => out.includes('mosquitto_sub'), 15_000, 'the banner on the terminal');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const plain = stripVTControlCharacters(out);
    expect(plain).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] {2}INFO: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30 MQTT broker listening on mqtt:/m,
    );
    expect(plain).not.toMatch(/^\{"level"/m);
  });
});
