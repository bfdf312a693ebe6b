// [CL-11.1] The meters file of `bridge --dlms --meters`: each problem names the entry and the field.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDlmsFleet, staggerMs } from './fleet.ts';
import { MAX_FLEET_METERS, parseMetersFile } from './meters-file.ts';

const one = { device: 'MTR-1', tcp: '10.0.0.5:4059' };
const parse = (x: unknown) => parseMetersFile(JSON.stringify(x));

describe('parseMetersFile [CL-11.1]', () => {
  it('reads a list of meters, optional fields absent or given', () => {
    expect(
      parse([
        one,
        {
          device: 'MTR-2',
          tcp: '[::1]:4060',
          client: 16,
          server: 1,
          password: 'p',
          mqttPassword: 'm',
          stateFile: '/s',
        },
      ]),
    ).toEqual({
      meters: [
        {
          device: 'MTR-1',
          host: '10.0.0.5',
          port: 4059,
          client: undefined,
          server: undefined,
          password: undefined,
          mqttPassword: undefined,
          stateFile: undefined,
        },
        {
          device: 'MTR-2',
          host: '::1',
          port: 4060,
          client: 16,
          server: { bytes: 1, value: 1 },
          password: 'p',
          mqttPassword: 'm',
          stateFile: '/s',
        },
      ],
    });
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['not a list', '{"device":"x"}', 'expected a JSON list'],
    ['an empty list', '[]', 'the list is empty'],
  ])('%s is refused', (_, text, problem) => {
    expect(parseMetersFile(text)).toEqual({ problems: [expect.stringContaining(problem)] });
  });

  it.each([
    [{ tcp: '1.2.3.4:1' }, 'meters[1].device'],
    [{ device: 'has space', tcp: '1.2.3.4:1' }, 'meters[1].device: must be 1-64 characters'],
    [{ device: 'M2' }, 'meters[1].tcp'],
    [{ device: 'M2', tcp: 'nohost' }, 'meters[1].tcp: expected host:port'],
    [{ device: 'M2', tcp: 'h:70000' }, 'meters[1].tcp: expected host:port'],
    [{ device: 'M2', tcp: 'h:1', client: 0 }, 'meters[1].client'],
    [{ device: 'M2', tcp: 'h:1', client: '32' }, 'meters[1].client'],
    [{ device: 'M2', tcp: 'h:1', server: 200 }, 'meters[1].server: expected a wPort'],
    [{ device: 'M2', tcp: 'h:1', password: '' }, 'meters[1].password'],
    [{ device: 'M2', tcp: 'h:1', port: 4059 }, 'meters[1]: unknown field port'],
    [{ device: 'MTR-1', tcp: 'h:1' }, 'meters[1].device: MTR-1 again (first at meters[0])'],
    ['M2', 'meters[1]'],
  ])('entry %j: a problem naming %s', (bad, problem) => {
    const r = parse([one, bad]);
    expect(r).toEqual({ problems: expect.arrayContaining([expect.stringContaining(problem)]) });
  });

  it('[CL-11.1] a state file twice is found by the path it names, not by its text', () => {
    const r = parse([
      { ...one, stateFile: './state/a.json' },
      { device: 'M2', tcp: 'h:1', stateFile: 'state//x/../a.json' },
    ]);
    expect(r).toEqual({
      problems: [expect.stringContaining("meters[1].stateFile: state//x/../a.json is meters[0]'s")],
    });
  });

  it("[CL-11.1] an entry's state file that is another entry's default in --state-dir: refused before anything opens", () => {
    const dir = mkdtempSync(join(tmpdir(), 'meterstack-dlms-fleet-'));
    try {
      const meters = parse([
        { ...one, stateFile: join(dir, 'x', '..', 'dlms-M2.json') },
        { device: 'M2', tcp: '127.0.0.1:1' },
      ]);
      if (!('meters' in meters)) throw new Error('the file itself is fine');
      const start = () =>
        runDlmsFleet({
          meters: meters.meters,
          brokerUrl: 'mqtt://127.0.0.1:1',
          mqttPassword: 'p',
          client: 16,
          stateDir: dir,
          log: () => undefined,
        });
      expect(start).toThrow(
        new RegExp(`meters\\[1\\] \\(M2\\): state file ${join(dir, 'dlms-M2.json')} is also meters\\[0\\]'s`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names every bad entry, not only the first', () => {
    const r = parse([{ device: 'A' }, one, { device: 'B', tcp: 'x' }]);
    expect('problems' in r && r.problems).toEqual([
      expect.stringMatching(/^meters\[0\]\.tcp/),
      expect.stringMatching(/^meters\[2\]\.tcp/),
    ]);
  });

  it(`takes at most ${MAX_FLEET_METERS} meters (decision 275)`, () => {
    const many = Array.from({ length: MAX_FLEET_METERS + 1 }, (_, i) => ({ device: `M${i}`, tcp: 'h:1' }));
    expect(parse(many)).toEqual({ problems: [expect.stringContaining(`at most ${MAX_FLEET_METERS}`)] });
    expect('meters' in parse(many.slice(1))).toBe(true);
  });
});

describe('staggerMs [CL-11.2]', () => {
  it('spreads starts evenly over the poll period', () => {
    expect([0, 1, 2, 3].map((i) => staggerMs(i, 4, 60_000))).toEqual([0, 15_000, 30_000, 45_000]);
    expect(staggerMs(0, 1, 60_000)).toBe(0);
  });

  it('over at most 60 s, however long the period (decision 276)', () => {
    expect(staggerMs(99, 100, 900_000)).toBe(59_400);
  });
});
