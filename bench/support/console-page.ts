// The web console and the event stream as a bench drives them: the fleet view opened in headless
// Chromium (the flags of test/console/browser.ts), timed from the token to the first rows and the
// count; a relay cell watched by a MutationObserver in the page; a Node reader of
// /sim/v1/events/stream that reads everything, as a dashboard or a log shipper would.

import type { BrowserContext, Page } from 'playwright-core';
import type { TestBrowser } from '../../test/console/browser.ts';

export { launchBrowser } from '../../test/console/browser.ts';

export interface OpenConsole {
  page: Page;
  context: BrowserContext;
  /** ms from the click on Open to the first row and the count of every meter on screen. */
  renderMs: number;
  close(): Promise<void>;
}

/** A fresh browser context (no session token kept) with the console open on the fleet view; page
 * errors go to `browser.errors`. */
export async function openFleet(
  browser: TestBrowser,
  url: string,
  token: string,
  total: number,
): Promise<OpenConsole> {
  const context = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => browser.errors.push(e.message));
  await page.goto(url);
  await page.getByLabel('admin token').fill(token);
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('.count', { hasText: `${total} of ${total} meters` }).waitFor({ timeout: 60_000 });
  await page.locator('[data-device]').first().waitFor({ timeout: 60_000 });
  const renderMs = Date.now() - t0;
  return { page, context, renderMs, close: () => context.close() };
}

// The page's scripts are strings: this project's TypeScript has no DOM types (it is a Node service).

/**
 * Filters the fleet view to `deviceId` and records every change of its relay cell, with the page's
 * Date.now() (the same machine clock as this process's), in `window.__relaySeen`; `window.__relayNow`
 * is what the cell shows now.
 */
export async function watchRelay(page: Page, deviceId: string, total: number): Promise<RelayWatch> {
  await page.getByLabel('search').fill(deviceId);
  await page.locator('.count', { hasText: `1 of ${total} meters` }).waitFor();
  await page.locator(`[data-device="${deviceId}"] [data-relay]`).waitFor();
  await page.evaluate(`(() => {
    const read = () =>
      document.querySelector('[data-device=${JSON.stringify(deviceId)}] [data-relay]')?.getAttribute('data-relay') ?? null;
    const seen = (window.__relaySeen = []);
    window.__relayNow = read;
    let last = read();
    new MutationObserver(() => {
      const now = read();
      if (now !== last) {
        last = now;
        seen.push({ value: now, t: Date.now() });
      }
    }).observe(document.querySelector('.rows'), { subtree: true, childList: true, attributes: true });
  })()`);
  return {
    shown: async () => (await page.evaluate('window.__relayNow()')) === 'true',
    mark: async () => (await page.evaluate('window.__relaySeen.length')) as number,
    async seenAt(from, value, timeoutMs) {
      try {
        const handle = await page.waitForFunction(
          `window.__relaySeen.slice(${from}).find((s) => s.value === '${value}')?.t ?? null`,
          undefined,
          { timeout: timeoutMs, polling: 20 },
        );
        return (await handle.jsonValue()) as number;
      } catch {
        return null;
      }
    },
  };
}

export interface RelayWatch {
  /** The relay the cell shows now. */
  shown(): Promise<boolean>;
  /** How many changes were seen so far. */
  mark(): Promise<number>;
  /** The page time of the first change after `from` that shows `value`; null if none in `timeoutMs`. */
  seenAt(from: number, value: boolean, timeoutMs: number): Promise<number | null>;
}

export interface StreamReader {
  bytes: number;
  events: number;
  /** Times the service ended the stream (a client it dropped), each followed by a resume. */
  ends: number;
  stop(): void;
}

/**
 * Reads GET /sim/v1/events/stream, counting bytes and events, until stopped; when the service ends the
 * stream it resumes with Last-Event-ID, as an SSE client does.
 */
export function readStream(httpUrl: string, token: string): StreamReader {
  const abort = new AbortController();
  const reader: StreamReader = { bytes: 0, events: 0, ends: 0, stop: () => abort.abort() };
  let lastId: string | null = null;
  const once = async () => {
    const res = await fetch(`${httpUrl}/sim/v1/events/stream`, {
      headers: { 'x-admin-token': token, ...(lastId === null ? {} : { 'last-event-id': lastId }) },
      signal: abort.signal,
    });
    if (!res.ok || !res.body) throw new Error(`events/stream: ${res.status}`);
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of res.body) {
      reader.bytes += chunk.byteLength;
      text += decoder.decode(chunk, { stream: true });
      // Every frame has one `id:` line (its data is one line of JSON, any newline in it escaped).
      let end = text.indexOf('\n\n');
      while (end >= 0) {
        const id = /^id: (\d+)$/m.exec(text.slice(0, end));
        if (id) {
          reader.events++;
          lastId = id[1]!;
        }
        text = text.slice(end + 2);
        end = text.indexOf('\n\n');
      }
    }
  };
  void (async () => {
    while (!abort.signal.aborted) {
      // The service ending the stream shows as the body's end or as fetch's `terminated` error.
      await once().catch((err: Error) => {
        if (err.name !== 'AbortError' && err.message !== 'terminated') throw err;
      });
      if (!abort.signal.aborted) reader.ends++;
    }
  })().catch((err: Error) => console.error(`  stream reader: ${err.message}`));
  return reader;
}
