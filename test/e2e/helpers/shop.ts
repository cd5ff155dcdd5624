/**
 * A shop's page embedding the widget of a real service (SQLite), and Chromium to open it: what the
 * widget's browser tests against the real service share. The page shows the campaign `campaignId()`
 * names when it is served, so a test may make a new campaign and load the same page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { databaseKinds } from '../../server/helpers/databases.js';
import { startService, type TestService } from '../../server/helpers/service.js';
import { CHROMIUM_ARGS } from './dashboard.js';

export interface Shop {
  service: TestService;
  browser: Browser;
  /** The shop page's address. */
  url: string;
  close(): Promise<void>;
}

/** `attrs`: the widget's attributes beside campaign-id, e.g. `show-leaderboard`. */
export async function openShop(campaignId: () => string, attrs = ''): Promise<Shop> {
  const [sqlite] = await databaseKinds();
  const service = await startService(sqlite!);
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Shop</title>
        <script type="module" src="${service.url}/widget/referral-widget.js"></script></head>
        <body><main><referral-widget campaign-id="${campaignId()}" ${attrs}></referral-widget></main></body></html>`),
  );
  const url = await new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  return {
    service,
    browser,
    url,
    async close() {
      await browser.close();
      server.close();
      await service.close();
    },
  };
}

/** Nothing on the page is wider than the screen. */
export const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** An element's text with its white space collapsed, as a reader sees it. */
export const textOf = async (l: Locator): Promise<string> => (await l.innerText()).replace(/\s+/g, ' ').trim();

/** A phone's and a desktop's screen. */
export const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
] as const;

/**
 * A suite of the shop's widget: one shop for all its tests, the test run at each of VIEWPORTS. The test
 * makes its campaign and calls `show(id)` before it opens the page, which then embeds that campaign.
 */
export function describeShop(
  title: string,
  attrs: string,
  test: { name: string; run(shop: Shop, viewport: (typeof VIEWPORTS)[number], show: (campaignId: string) => void): Promise<void> },
): void {
  describe(title, () => {
    let shop: Shop;
    let campaignId = '';
    before(async () => {
      shop = await openShop(() => campaignId, attrs);
    });
    after(async () => {
      await shop?.close();
    });
    for (const viewport of VIEWPORTS) {
      it(`at ${viewport.width} px: ${test.name}`, () => test.run(shop, viewport, (id) => (campaignId = id)));
    }
  });
}
