/**
 * The dashboard's Test mode switch, as in Stripe's dashboard: when on, the lists show test campaigns, keys and
 * webhook endpoints only, and what the owner creates is a test one; when off, live ones. Kept per browser
 * (localStorage), so a reload or a new tab stays in the mode the owner chose.
 */
import { html, nothing } from 'lit';

const KEY = 'refkit-dashboard:test-mode';

export const readTestMode = (): boolean => localStorage.getItem(KEY) === 'on';

export function saveTestMode(on: boolean): void {
  if (on) localStorage.setItem(KEY, 'on');
  else localStorage.removeItem(KEY);
}

/** Of `items` (campaigns, keys, endpoints, each marked `test` by the service), those of the mode shown. */
export const ofMode = <T extends { test?: boolean | undefined }>(items: T[], test: boolean): T[] => items.filter((item) => (item.test ?? false) === test);

/** The "Test" badge of a test campaign, key or endpoint; nothing for a live one. */
export const testBadge = (test: boolean | undefined) => (test ? html`<span class="badge test">Test</span>` : nothing);
