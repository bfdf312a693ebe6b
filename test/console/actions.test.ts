// One user intent, one request (issue 18 item 2): a double or triple click, or Enter pressed twice, on
// an acting control of the console acts once; a recharge repeated is one ledger entry; every acting
// control is disabled while its request is in flight. [CON-1] [CON-2]

import Database from 'better-sqlite3';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

let tmp: ReturnType<typeof tempDir>;
let service: TestService;
let browser: TestBrowser;
let page: Page;
/** `money.recharge` events seen on the bus, by outcome. */
let recharges: { outcome: string; transaction_id: string; device: string | null }[] = [];

beforeAll(async () => {
  tmp = tempDir('meterstack-actions-');
  [service, browser] = await Promise.all([
    startTestService({ demo: true, db: `${tmp.dir}/console.db` }),
    launchBrowser(),
  ]);
  service.svc.bus.subscribe((e) => {
    if (e.type === 'money.recharge') {
      const d = e.data as { outcome: string; transaction_id: string };
      recharges.push({ outcome: d.outcome, transaction_id: d.transaction_id, device: e.device_id ?? null });
    }
  });
  page = await browser.page();
  await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  tmp?.remove();
});

beforeEach(() => {
  recharges = [];
});

/** Recharge rows of a device in the ledger (the SQLite file, read by a second connection). */
function ledgerRecharges(deviceId: string): number {
  const db = new Database(`${tmp.dir}/console.db`, { readonly: true });
  try {
    const row = db
      .prepare(
        `SELECT count(*) AS n FROM ledger l JOIN devices d ON d.pk = l.device_pk
         WHERE d.device_id = ? AND l.kind = 'recharge'`,
      )
      .get(deviceId) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

async function openMeter(id: string): Promise<void> {
  await page.locator(`[data-device="${id}"]`).click();
  await page.locator(`[data-meter="${id}"] [data-action="recharge"]`).waitFor();
  // The meter's detail (its load) arrives a moment later and moves the controls down: wait for it, so
  // the clicks below land where they are aimed.
  await page.locator(`[data-meter="${id}"] dt`, { hasText: 'Load' }).waitFor();
}

const rechargeButton = () => page.locator('[data-action="recharge"]');

/** Clicks at the button's centre like a person: `count` presses `gapMs` apart, as one gesture (detail 1, 2, 3). */
async function multiClick(selector: string, count: number, gapMs: number): Promise<void> {
  const box = (await page.locator(selector).boundingBox())!;
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  // Aimed at the control itself (not at what a layout shift put there).
  const hit = await page
    .locator(selector)
    .evaluate((el, [px, py]) => el.contains(el.ownerDocument.elementFromPoint(px!, py!)), [x, y]);
  expect(hit, `${selector} is under the mouse`).toBe(true);
  await page.mouse.move(x, y);
  for (let i = 1; i <= count; i++) {
    await page.mouse.down({ clickCount: i });
    await page.mouse.up({ clickCount: i });
    if (i < count) await page.waitForTimeout(gapMs);
  }
}

/** Waits until the status line names the outcome of the last recharge, then a little for strays. */
async function settled(): Promise<void> {
  await expect.poll(() => page.locator('[data-status]').textContent()).toMatch(/recharge (already )?applied/);
  await expect.poll(() => rechargeButton().isEnabled()).toBe(true);
  await page.waitForTimeout(300);
}

async function applied(deviceId: string, gesture: () => Promise<void>): Promise<void> {
  const before = ledgerRecharges(deviceId);
  await gesture();
  await settled();
  const mine = recharges.filter((r) => r.device === deviceId);
  expect(mine.filter((r) => r.outcome === 'applied')).toHaveLength(1);
  expect(new Set(mine.map((r) => r.transaction_id)).size).toBe(1);
  expect(ledgerRecharges(deviceId) - before).toBe(1);
}

describeBrowser('one user intent, one request [CON-1] [CON-2]', () => {
  it('[CON-1] [CON-2] a double click on Recharge (51 ms apart, as the audit saw) credits once', async () => {
    await openMeter('MTR-B201');
    await page.getByLabel('recharge amount').fill('50');
    await applied('MTR-B201', () => multiClick('[data-action="recharge"]', 2, 51));
  });

  it('[CON-1] [CON-2] a fast triple click credits once', async () => {
    await page.locator('[data-action="new-transaction"]').click();
    await applied('MTR-B201', () => multiClick('[data-action="recharge"]', 3, 30));
  });

  it('[CON-2] Enter pressed twice on Recharge credits once (the second is the same transaction)', async () => {
    await page.locator('[data-action="new-transaction"]').click();
    await rechargeButton().focus();
    await applied('MTR-B201', async () => {
      await page.keyboard.press('Enter');
      // The second Enter once the first has been answered: the button is enabled again by then.
      await expect.poll(() => rechargeButton().isEnabled()).toBe(true);
      await page.waitForTimeout(100);
      await page.keyboard.press('Enter');
    });
    expect(recharges.map((r) => r.outcome).sort()).toEqual(['applied', 'duplicate']);
    expect(await page.locator('[data-status]').textContent()).toContain('already applied');
  });

  it('[CON-1] Enter pressed twice at once on Recharge sends one request', async () => {
    await page.locator('[data-action="new-transaction"]').click();
    await rechargeButton().focus();
    await applied('MTR-B201', async () => {
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
    });
  });

  it('[CON-2] a new amount is a new intent: it credits, once', async () => {
    await page.getByLabel('recharge amount').fill('20');
    await applied('MTR-B201', () => multiClick('[data-action="recharge"]', 2, 51));
  });

  it('[CON-1] Recharge, its inputs and every other acting control are disabled while their request is in flight', async () => {
    const held: (() => void)[] = [];
    const seen: Request[] = [];
    // Hold each acting request until the test lets it go.
    await page.route(
      /\/(sim\/v1|api\/v2)\/devices\/[^/]+\/(recharge|relay|mode|tariffs\/eb|online)$/,
      (route) => {
        seen.push(route.request());
        held.push(() => void route.continue());
      },
    );
    try {
      const cases: [string, () => Promise<void>][] = [
        ['[data-action="recharge"]', () => rechargeButton().click()],
        ['[data-action="relay-off"]', () => page.locator('[data-action="relay-off"]').click()],
        [
          '[aria-label="mode"]',
          async () => {
            await page.getByLabel('mode', { exact: true }).selectOption('postpaid');
          },
        ],
        ['[data-action="unplug"]', () => page.locator('[data-action="unplug"]').click()],
      ];
      for (const [selector, act] of cases) {
        const before = seen.length;
        await act();
        await expect.poll(() => seen.length).toBe(before + 1);
        expect(await page.locator(selector).isDisabled()).toBe(true);
        if (selector.includes('recharge')) {
          expect(await page.getByLabel('recharge amount').isDisabled()).toBe(true);
          expect(await page.getByLabel('transaction id').isDisabled()).toBe(true);
        }
        if (selector.includes('relay')) {
          // Both relay buttons: one switch at a time.
          expect(await page.locator('[data-action="relay-on"]').isDisabled()).toBe(true);
        }
        // Clicking it again does nothing while it is held (force: past the disabled check).
        await page.locator(selector).dispatchEvent('click');
        await page.waitForTimeout(100);
        expect(seen.length).toBe(before + 1);
        held.shift()!();
        await expect.poll(() => page.locator(selector).isEnabled()).toBe(true);
      }
    } finally {
      for (const release of held) release();
      await page.unrouteAll({ behavior: 'wait' });
    }
    await page.locator('[data-action="plug"]').click();
    await page.locator('[data-action="relay-on"]').click();
    await expect.poll(() => page.locator('[data-action="relay-on"]').isEnabled()).toBe(true);
  });

  it('[CON-1] a double click on a clock advance advances once', async () => {
    const clock = async () =>
      ((await service.sim<{ now_ms: number }>('GET', '/clock')).body.data as { now_ms: number }).now_ms;
    const before = await clock();
    await multiClick('[data-advance="3600"]', 2, 51);
    await expect.poll(() => page.locator('[data-advance="3600"]').isEnabled()).toBe(true);
    await page.waitForTimeout(300);
    const moved = (await clock()) - before;
    expect(moved).toBeGreaterThanOrEqual(3_600_000);
    expect(moved).toBeLessThan(2 * 3_600_000);
    expect(browser.errors).toEqual([]);
  });
});
