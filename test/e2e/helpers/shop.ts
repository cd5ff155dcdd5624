/**
 * A shop's page embedding the widget of a real service (SQLite), and Chromium to open it: what the
 * widget's browser tests against the real service share. The page shows the campaign `campaignId()`
 * names when it is served, so a test may make a new campaign and load the same page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
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
