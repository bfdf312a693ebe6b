// Issue 23 §1: the HTML report of `scenario run … --report` and `replay … --report`, written by the CLI
// as a real process and opened in Chromium: the charts drew (their canvases hold the series' colours),
// a failed expectation is visible and links to its line, markup in names stays text, nothing is
// fetched from anywhere, and a phone's width does not overflow (RP-1, RP-2, RP-5, RP-6).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, type TestBrowser } from '../console/browser.ts';
import { REPO_ROOT } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const SCENARIO = 'test/qa/fixtures/report/hostile-cutoff.yaml';
/** The step that fails on purpose. */
const FAILING_LINE = 22;
const tmp = tempDir('meterstack-report-');
afterAll(() => tmp.remove());

function cli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, ['test/helpers/meterstack.js', ...args], { cwd: REPO_ROOT });
    let stderr = '';
    p.stdout.resume();
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('exit', (code) => done({ code, stderr }));
  });
}

/** What the page's functions below touch of the browser (the tests are type-checked without the DOM's types). */
type Canvas = {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
};
type Win = { pwned?: number; document: { documentElement: { scrollWidth: number } } };

/** Pixels of each chart canvas near `rgb` (a series' stroke), per canvas. */
function seriesPixels(page: Page, selector: string, rgb: [number, number, number]): Promise<number[]> {
  return page.$$eval(
    selector,
    (canvases, [r, g, b]) =>
      (canvases as unknown as Canvas[]).map((c) => {
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
          if (d[i + 3]! > 200 && Math.abs(d[i]! - r) + Math.abs(d[i + 1]! - g) + Math.abs(d[i + 2]! - b) < 60)
            n++;
        return n;
      }),
    rgb,
  );
}

const POWER: [number, number, number] = [0xd4, 0xa7, 0x2c];
const BALANCE: [number, number, number] = [0x82, 0x50, 0xdf];

let browser: TestBrowser;
const scenarioReport = join(tmp.dir, 'scenario.html');
const replayReport = join(tmp.dir, 'replay.html');
let scenarioRun: { code: number | null; stderr: string };
let replayRun: { code: number | null; stderr: string };

describeBrowser('the HTML report in Chromium', () => {
  beforeAll(async () => {
    [scenarioRun, replayRun, browser] = await Promise.all([
      cli(['scenario', 'run', SCENARIO, '--report', scenarioReport, '--out', join(tmp.dir, 'scenario.txt')]),
      cli(['replay', 'fixtures/traces/offline-gap.jsonl', '--instant', '--report', replayReport]),
      launchBrowser(),
    ]);
  }, 60_000);
  afterAll(() => browser?.close());

  /** The report opened, with every request it makes recorded. */
  async function open(file: string, width = 1280): Promise<{ page: Page; requests: string[] }> {
    const page = await browser.page();
    await page.setViewportSize({ width, height: 900 });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${file}`);
    await page.locator('.uplot canvas').first().waitFor();
    return { page, requests };
  }

  it('RP-5: scenario run exits 1 for the failed check and still writes one file', () => {
    // Nothing on stderr but a Node runtime warning (a loaded machine or a newer Node may print one).
    const nodeWarning = /^\(node:\d+\) |^\(Use `node --trace/;
    expect(scenarioRun.stderr.split('\n').filter((l) => l !== '' && !nodeWarning.test(l))).toEqual([]);
    expect(scenarioRun.code).toBe(1);
    expect(readFileSync(scenarioReport, 'utf8').length).toBeGreaterThan(50_000); // uPlot inlined
  });

  /** One page of the scenario report at 1280 px, for the tests that only read it. */
  let desk: { page: Page; requests: string[] } | null = null;
  const deskPage = async () => (desk ??= await open(scenarioReport));

  it('RP-5: the charts drew: every power and balance chart holds its series', async () => {
    const { page } = await deskPage();
    expect(await page.locator('figure.meter').count()).toBe(2);
    const power = await seriesPixels(page, '.chart.power canvas', POWER);
    const balance = await seriesPixels(page, '.chart.balance canvas', BALANCE);
    expect(power).toHaveLength(2);
    for (const n of [...power, ...balance]) expect(n).toBeGreaterThan(200);
    // The marks on the same axis: the service's events, not the meters' first connections.
    const events = await page.locator('#run-1 details.marks li').allTextContents();
    for (const what of ['cut-off MTR-PP-1', 'recharge MTR-PP-1', 'offline MTR-PO-2', 'online MTR-PO-2'])
      expect(events.some((e) => e.includes(what))).toBe(true);
    expect(events.filter((e) => e.includes('online')).length).toBe(1);
    expect(browser.errors).toEqual([]);
  });

  it('RP-5, RP-6: a failed expectation is visible, says what was seen, and links to its line', async () => {
    const { page } = await deskPage();
    await expect(page.locator('header .summary').textContent()).resolves.toContain('2 failed');
    const row = page.locator('tr.fail').first();
    expect(await row.isVisible()).toBe(true);
    const text = await row.textContent();
    expect(text).toContain('✗ FAILED');
    expect(text).toContain('+10m');
    expect(text).toContain('this one fails on purpose');
    expect(text).toContain('expected true, got false');
    expect(text).toContain('"balance":-1');
    const link = row.locator('a.src');
    expect(await link.textContent()).toBe(`hostile-cutoff.yaml:${FAILING_LINE}`);
    const href = new URL((await link.getAttribute('href'))!, page.url());
    expect(href.hash).toBe(`#L${FAILING_LINE}`);
    expect(fileURLToPath(href.href.replace(/#.*/, ''))).toBe(resolve(REPO_ROOT, SCENARIO));
    const line = readFileSync(resolve(REPO_ROOT, SCENARIO), 'utf8').split('\n')[FAILING_LINE - 1];
    expect(line).toContain('this one fails on purpose');
    // Only what failed: the passing rows go, the failures stay.
    await page.locator('#only-failed').check();
    expect(await page.locator('table.checks tr.pass').first().isVisible()).toBe(false);
    expect(await row.isVisible()).toBe(true);
    await page.locator('#only-failed').uncheck();
  });

  it('RP-1, RP-2: markup in names stays text, and the page fetches nothing', async () => {
    const { page, requests } = await deskPage();
    expect(await page.evaluate(() => (globalThis as unknown as Win).pwned)).toBeUndefined();
    expect(await page.locator('section.run h2').first().textContent()).toContain(
      'Cut-off </script><script>window.pwned=1</script> & a failing check',
    );
    expect(requests).toEqual([page.url()]);
  });

  it('on a phone (390 px) nothing overflows sideways and the failure still reads', async () => {
    const { page } = await open(scenarioReport, 390);
    expect(
      await page.evaluate(() => (globalThis as unknown as Win).document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(390);
    expect(await page.locator('tr.fail').first().isVisible()).toBe(true);
    for (const n of await seriesPixels(page, '.chart.power canvas', POWER)) expect(n).toBeGreaterThan(100);
    await page.context().close();
  });

  it('replay --report: the replayed meter over trace time, with the trace’s offline and online', async () => {
    expect(replayRun.code).toBe(0);
    const { page } = await open(replayReport);
    expect(await page.locator('figure.meter figcaption').allInnerTexts()).toEqual(['MTR-GAP-1']);
    await expect(page.locator('section.run .meta').textContent()).resolves.toContain('300 samples');
    const events = await page.locator('details.marks li').allTextContents();
    expect(events.some((e) => e.includes('offline'))).toBe(true);
    expect(events.some((e) => e.includes('online'))).toBe(true);
    expect((await seriesPixels(page, '.chart.power canvas', POWER))[0]).toBeGreaterThan(200);
    expect(browser.errors).toEqual([]);
    await page.context().close();
  });
});

describe('--report where it cannot be written', () => {
  it('is a usage error (exit 2) before anything runs, for scenario run and replay alike', async () => {
    const missing = join(tmp.dir, 'no-such-folder', 'r.html');
    const [s, r] = await Promise.all([
      cli(['scenario', 'run', SCENARIO, '--report', missing]),
      cli(['replay', 'fixtures/traces/offline-gap.jsonl', '--instant', '--report', tmp.dir]),
    ]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain(`--report ${missing}: no folder`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is a folder; give a file name such as report.html');
  });
});
