// `npm run screenshots:report`: the HTML report of a scenario run (a failing check among them) at
// 1280 px and on a 390 px phone, into docs/screenshots/report-*.png (shown in src/qa/report/README.md).
// Runs the scenarios in-process, Debian's Chromium.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runScenario } from '../src/cli/scenario.ts';
import { launchBrowser } from '../test/console/browser.ts';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));
mkdirSync(OUT, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'meterstack-report-shots-'));
const report = join(dir, 'report.html');
process.chdir(ROOT);
await runScenario([
  'test/qa/fixtures/report/hostile-cutoff.yaml',
  'fixtures/scenarios/01-prepaid-cutoff.yaml',
  'fixtures/scenarios/14-prepaid-outage.yaml',
  '--report',
  report,
  '--out',
  join(dir, 'report.txt'),
]);
process.exitCode = 0;
const browser = await launchBrowser();
try {
  for (const [width, height, name] of [
    [1280, 900, 'report-1280'],
    [390, 844, 'report-390'],
  ] as const) {
    const context = await browser.browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.goto(pathToFileURL(report).href);
    await page.locator('.uplot').first().waitFor();
    await page.screenshot({ path: `${OUT}${name}.png`, fullPage: false });
    // The failed expectation's row, as a reader lands on it from the chart or the contents.
    await page.locator('tr.fail').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}${name}-failure.png` });
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
