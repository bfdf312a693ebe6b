// `npm run screenshots`: the console's fleet and meter views, light and dark, at 1280×800, and the
// meter view at 900 px and on a 390 px phone, and a meter's history by date at 1280 and 390 px, into
// docs/screenshots/*.png (shown in the README). A demo service in-process, Debian's Chromium.
// `npm run screenshots -- history` takes only the history ones.

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser, openConsole } from '../test/console/browser.ts';
import { ADMIN_TOKEN, startTestService } from '../test/helpers/service.ts';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
mkdirSync(OUT, { recursive: true });

const service = await startTestService({ demo: true, db: ':memory:' });
const browser = await launchBrowser();

/** Not over a row or a button: no hover colour in the picture. */
const still = (page: Page) => page.mouse.move(2, page.viewportSize()!.height - 2);

const only = process.argv[2];

/** A meter's history card (history.js): the last 7 days at 60m, at `width`. */
async function historyShot(width: number, height: number): Promise<void> {
  const page = await browser.page();
  await page.setViewportSize({ width, height });
  await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
  await page.goto(`${service.svc.httpUrl}/#/meter/MTR-A101`);
  const card = page.locator('[data-history="MTR-A101"]');
  await card.getByRole('button', { name: '7 days' }).click();
  await card.locator('.chart:not([data-points="0"]) .uplot').waitFor();
  await card.scrollIntoViewIfNeeded();
  await still(page);
  await page.waitForTimeout(800);
  await card.screenshot({ path: `${OUT}history-${width}.png` });
  await page.context().close();
}

/** The fleet and meter views, light and dark, and the meter at 900 and 390 px. */
async function everyView(): Promise<void> {
  // A little life first: a recharge and a relay switched, so the journal and the charts show something.
  await service.sim('POST', '/devices/MTR-A101/recharge', { amount: 50_000, transaction_id: 'shot-1' });
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.page({ colorScheme: scheme });
    await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
    await still(page);
    await page.waitForTimeout(1200);
    await page.screenshot({ path: `${OUT}fleet-${scheme}.png` });
    await page.locator('[data-device="MTR-B201"]').click();
    await page.locator('[data-meter="MTR-B201"] .uplot').first().waitFor();
    // Three virtual hours while it is open: its balance falls, and the charts show it.
    for (let i = 0; i < 3; i++) {
      await page.locator('[data-advance="3600"]').click();
      await page.waitForTimeout(1200);
    }
    await still(page);
    await page.screenshot({ path: `${OUT}meter-${scheme}.png` });
    await page.context().close();
  }
  // Narrower windows: the header's clock on a line of its own, the fleet above the meter.
  for (const [width, height] of [
    [900, 800],
    [390, 844],
  ] as const) {
    const page = await browser.page();
    await page.setViewportSize({ width, height });
    await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
    await page.goto(`${service.svc.httpUrl}/#/meter/MTR-B202`);
    await page.locator('[data-meter="MTR-B202"] .uplot').first().waitFor();
    await still(page);
    await page.waitForTimeout(1200);
    await page.screenshot({ path: `${OUT}meter-${width}.png` });
    await page.context().close();
  }
}

try {
  if (only !== 'history') await everyView();
  await historyShot(1280, 800);
  await historyShot(390, 844);
  if (browser.errors.length > 0) throw new Error(`page errors: ${browser.errors.join('; ')}`);
  console.log(`screenshots written to ${OUT}`);
} finally {
  await browser.close();
  await service.close();
}
