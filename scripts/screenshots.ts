// `npm run screenshots`: the console's fleet and meter views, light and dark, at 1280×800, into
// docs/screenshots/*.png (shown in the README). A demo service in-process, Debian's Chromium.

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchBrowser, openConsole } from '../test/console/browser.ts';
import { ADMIN_TOKEN, startTestService } from '../test/helpers/service.ts';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
mkdirSync(OUT, { recursive: true });

const service = await startTestService({ demo: true, db: ':memory:' });
const browser = await launchBrowser();
try {
  // A little life first: a recharge and a relay switched, so the journal and the charts show something.
  await service.sim('POST', '/devices/MTR-A101/recharge', { amount: 50_000, transaction_id: 'shot-1' });
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.page({ colorScheme: scheme });
    await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
    await page.mouse.move(1270, 790); // not over a row: no hover colour in the picture
    await page.waitForTimeout(1200);
    await page.screenshot({ path: `${OUT}fleet-${scheme}.png` });
    await page.locator('[data-device="MTR-B201"]').click();
    await page.locator('[data-meter="MTR-B201"] .uplot').first().waitFor();
    // Three virtual hours while it is open: its balance falls, and the charts show it.
    for (let i = 0; i < 3; i++) {
      await page.locator('[data-advance="3600"]').click();
      await page.waitForTimeout(1200);
    }
    await page.mouse.move(1270, 790);
    await page.screenshot({ path: `${OUT}meter-${scheme}.png` });
    await page.context().close();
  }
  if (browser.errors.length > 0) throw new Error(`page errors: ${browser.errors.join('; ')}`);
  console.log(`screenshots written to ${OUT}`);
} finally {
  await browser.close();
  await service.close();
}
