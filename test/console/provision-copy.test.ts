// Copy buttons in Provision copy and do nothing else (issue 18 item 3): copying an API key created
// another account, copying an external meter's lines another device, and the clipboard then held the
// previous device's credentials. A create button pressed twice creates one. [CON-3] [CON-1]

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, type TestBrowser } from './browser.ts';

const WEB = join(import.meta.dirname, '../../src/console/web');

let tmp: ReturnType<typeof tempDir>;
let service: TestService;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  tmp = tempDir('meterstack-copy-');
  [service, browser] = await Promise.all([
    startTestService({ db: `${tmp.dir}/console.db` }),
    launchBrowser(),
  ]);
  page = await browser.page();
  await page
    .context()
    .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.svc.httpUrl });
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  tmp?.remove();
});

/** Rows of a table in the service's SQLite file, read by a second connection. */
function count(table: 'accounts' | 'devices' | 'spaces'): number {
  const db = new Database(`${tmp.dir}/console.db`, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const clipboard = () => page.evaluate('navigator.clipboard.readText()') as Promise<string>;
const form = (title: string) => page.locator('form', { hasText: title });

it('[CON-3] every <button> in the console says its type (a button in a form without one submits it)', () => {
  const untyped: string[] = [];
  for (const file of readdirSync(WEB).filter((f) => f.endsWith('.js'))) {
    const source = readFileSync(join(WEB, file), 'utf8');
    for (const m of source.matchAll(/<button\b[^>]*>/g)) {
      if (!/\btype=/.test(m[0])) untyped.push(`${file}: ${m[0].slice(0, 80)}`);
    }
  }
  expect(untyped).toEqual([]);
});

describeBrowser('copy buttons copy, and create nothing [CON-3]', () => {
  it('[CON-3] copying a new API key copies it and creates no other account', async () => {
    await page.goto(service.svc.httpUrl);
    await page.getByLabel('admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('button', { name: 'Provision' }).click();
    await page.getByLabel('account name').fill('acme');
    await page.getByRole('button', { name: 'Create account' }).click();
    const key = (await form('Create account').locator('code').textContent())!;
    expect(count('accounts')).toBe(1);

    await form('Create account')
      .getByRole('button', { name: /^cop(y|ied)$/ })
      .click();
    await expect
      .poll(() =>
        form('Create account')
          .getByRole('button', { name: /^cop(y|ied)$/ })
          .textContent(),
      )
      .toBe('copied');
    await page.waitForTimeout(300);
    expect(count('accounts')).toBe(1);
    expect(await clipboard()).toBe(key);
    // The key shown is still the one created first.
    expect(await form('Create account').locator('code').textContent()).toBe(key);
  });

  it('[CON-3] copying an external meter’s command lines copies them and creates no other device', async () => {
    await page.getByLabel('device account').selectOption({ label: 'acme (#1)' });
    await page.getByLabel('device id').fill('EXT-COPY');
    await page.getByLabel('external').check();
    await page.getByRole('button', { name: 'Create device' }).click();
    const shown = (await page.locator('[data-commands]').textContent())!;
    expect(count('devices')).toBe(1);

    await form('Create device')
      .getByRole('button', { name: /^cop(y|ied)$/ })
      .click();
    await expect
      .poll(() =>
        form('Create device')
          .getByRole('button', { name: /^cop(y|ied)$/ })
          .textContent(),
      )
      .toBe('copied');
    await page.waitForTimeout(300);
    expect(count('devices')).toBe(1);
    // The clipboard holds this device's lines, with its own password (not a newer device's).
    expect(await clipboard()).toBe(shown);
    expect(await page.locator('[data-commands]').textContent()).toBe(shown);
    expect(shown).toContain('--username EXT-COPY');
  });

  it('[CON-1] a double click on Create account creates one account', async () => {
    const before = count('accounts');
    await page.getByLabel('account name').fill('twice');
    await page.getByRole('button', { name: 'Create account' }).dblclick();
    await expect.poll(() => form('Create account').locator('code').textContent()).not.toBeNull();
    await expect.poll(() => page.getByRole('button', { name: 'Create account' }).isEnabled()).toBe(true);
    await page.waitForTimeout(300);
    expect(count('accounts')).toBe(before + 1);
    expect(browser.errors).toEqual([]);
  });
});
