/** Mounting, querying and driving <referral-widget> in the unit tests. */
import { fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/widget/index.js';
import type { ReferralWidget, WidgetState } from '../../src/widget/index.js';

export const API = 'https://refkit.test';

/** The page URL the widget reads the share link from. */
export function setUrl(search: string): void {
  history.replaceState(null, '', `${location.pathname}${search}`);
}

/**
 * Mounts a widget from markup, as a page would write it: the attributes are in place before the
 * element upgrades. `api-base` is the fake service's unless `attrs` gives one (or `apiBase` is false).
 */
export async function mount(attrs = '', { apiBase = true, campaignId = true } = {}): Promise<ReferralWidget> {
  const markup = `<referral-widget ${campaignId ? 'campaign-id="cmp_1"' : ''} ${apiBase ? `api-base="${API}"` : ''} ${attrs}></referral-widget>`;
  const div = await fixture<HTMLDivElement>(html`<div .innerHTML=${markup}></div>`);
  return div.querySelector('referral-widget')!;
}

export const q = <T extends HTMLElement = HTMLElement>(el: ReferralWidget, selector: string) =>
  el.shadowRoot!.querySelector<T>(selector);

export const text = (el: ReferralWidget, selector: string) => q(el, selector)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

/** The texts of every element the selector matches, whitespace collapsed. */
export const texts = (el: ReferralWidget, selector: string) => [...el.shadowRoot!.querySelectorAll(selector)].map((n) => n.textContent!.replace(/\s+/g, ' ').trim());

export async function settled(el: ReferralWidget, state: WidgetState): Promise<void> {
  await waitUntil(() => el.state === state, `expected state ${state}`, { timeout: 4000 });
  await el.updateComplete;
}

/** Types an address into the form and submits it, as pressing Enter would. */
/** The widget mounted, once it shows its signed-up screen (a participant the test remembered). */
export async function mountSignedUp(attrs = ''): Promise<ReferralWidget> {
  const el = await mount(attrs);
  await settled(el, 'signed-up');
  return el;
}

export function signUp(el: ReferralWidget, email: string): void {
  q<HTMLInputElement>(el, 'input[name=email]')!.value = email;
  q<HTMLFormElement>(el, 'form')!.requestSubmit();
}

/** Replaces a navigator property for one test; returns the undo. */
export function stubNavigator(name: 'onLine' | 'share' | 'clipboard', value: unknown): () => void {
  Object.defineProperty(navigator, name, { value, configurable: true });
  return () => void delete (navigator as unknown as Record<string, unknown>)[name];
}

/** The element's shadow-DOM focus (document.activeElement is the host). */
export const focused = (el: ReferralWidget) => el.shadowRoot!.activeElement as HTMLElement | null;
