// issue 20 item 10: a JUnit classname is the scenario file's path in dots, from where the run started,
// whatever form the path was given in; never one starting with a dot (an absolute path's root).

import { describe, expect, it } from 'vitest';
import { junitClassname } from './report.ts';

describe('junitClassname', () => {
  it.each([
    ['fixtures/scenarios/cutoff.yaml', '/work/x', 'fixtures.scenarios.cutoff'],
    ['./fixtures/scenarios/cutoff.yml', '/work/x', 'fixtures.scenarios.cutoff'],
    ['/work/x/fixtures/scenarios/cutoff.yaml', '/work/x', 'fixtures.scenarios.cutoff'],
    ['/tmp/run-1/cutoff.json', '/work/x', 'tmp.run-1.cutoff'],
    ['../other/cutoff.yaml', '/work/x', 'other.cutoff'],
    ['fixtures\\scenarios\\cutoff.yaml', '/work/x', 'fixtures.scenarios.cutoff'],
  ])('%s from %s → %s', (file, cwd, want) => {
    expect(junitClassname(file, cwd)).toBe(want);
  });
});
