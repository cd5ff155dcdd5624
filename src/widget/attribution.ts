/**
 * Attribution on any page that loads the script, with or without an element, in any campaign state:
 * a share link's code is captured as soon as the script runs, so a visitor who lands on a page without
 * the widget (or while the campaign is paused) and signs up later, elsewhere on the site, still counts.
 *
 * Hosts that sign people up in their own form read the code with `getReferralCode(campaignId)` (also
 * `window.refkit.getReferralCode`) and pass it as `referredByCode` from their backend; their checkout
 * reads the friend's discount with `getPromotionCode(campaignId)` (also `window.refkit.getPromotionCode`).
 */
import { ApiError, BrowserClient, type PromotionCodeOffer } from '../api/client.js';
import { captureCode, rememberedCode, utmFromUrl } from './code-capture.js';
import { defaultApiBase } from './script-origin.js';
import { ANY_CAMPAIGN, rememberCode } from './storage.js';

export type { PromotionCodeOffer };

/**
 * The referrer's promotion code, as a checkout takes it: `code`, the text typed at checkout; `id`, Stripe's
 * promotion code id (promo_...), for a Checkout Session's `discounts: [{promotion_code: id}]`.
 */
export type PromotionCodeRef = Pick<PromotionCodeOffer, 'code' | 'id'>;

/** The referral code this browser arrived with for a campaign, if it has one (from a link, 90 days). */
export function getReferralCode(campaignId: string): string | undefined {
  return rememberedCode(campaignId);
}

/*
 * The friend's discount at checkout: the promotion code of the referrer whose code the visitor arrived
 * with (public getPromotionCode), read once per page and code, for the elements and the page alike.
 * Asked only when a code was captured; a 404 (the campaign has no discount, or the referrer's code is
 * not made yet) is no discount. The sentence that says it (./discount-text.ts) loads only when there
 * is one to say.
 */

/** Per service, campaign and code: one request per page, whoever asks (elements, window.refkit). */
const offers = new Map<string, Promise<PromotionCodeOffer | null>>();

/**
 * The referrer's promotion code for `code`, or null when there is none (404, or a code the service
 * refuses to look up). Rejects with the ApiError when no answer came (network, rate limit, 5xx); that
 * failure is not kept, so a later call asks again.
 */
export function promotionOffer(client: BrowserClient, campaignId: string, code: string): Promise<PromotionCodeOffer | null> {
  const key = `${client.baseUrl}\n${campaignId}\n${code}`;
  let offer = offers.get(key);
  if (!offer) {
    offer = client.getPromotionCode(campaignId, code).catch((err: unknown) => {
      if (err instanceof ApiError && (err.status === 404 || err.status === 400)) return null;
      offers.delete(key);
      throw err;
    });
    offers.set(key, offer);
  }
  return offer;
}

/** What a page hands to its checkout: the code's text and Stripe's id, nothing else. */
export const promotionRef = (offer: PromotionCodeOffer | null): PromotionCodeRef | null => (offer ? { code: offer.code, id: offer.id } : null);

/** The page's own capture (./index.ts starts it as the script runs): getPromotionCode waits for it. */
let pageCapture: Promise<void> = Promise.resolve();

/**
 * The promotion code of the friend who referred this visitor: the one to apply at checkout
 * (`id` in a Stripe Checkout Session's `discounts: [{promotion_code: id}]`, or `code` typed or
 * prefilled), for the referral code this browser arrived with (see getReferralCode).
 *
 * Resolves to null when no code was captured for the campaign, or the service has no promotion code
 * for it (the campaign gives no discount at checkout, or the referrer's code is not made yet). Rejects
 * with an `ApiError` (`code` `network_error`, `rate_limited`, ...) when the service gave no answer, so
 * that "no discount" and "could not ask" are told apart; a later call asks again. One request per page
 * and code, however often it is called. Waits for the page's share link to be captured first, so a call
 * made as the page loads sees the code the visitor just arrived with. After the widget signed the
 * visitor up the code is used and forgotten: the `referral-signup` event carries its promotion code
 * (`referrerPromotionCode`).
 */
export async function getPromotionCode(campaignId: string, apiBase: string = defaultApiBase()): Promise<PromotionCodeRef | null> {
  await pageCapture;
  const code = rememberedCode(campaignId);
  if (!code) return null;
  return promotionRef(await promotionOffer(pageClient(apiBase), campaignId, code));
}

const pageClient = (apiBase: string) => new BrowserClient({ baseUrl: apiBase, fetch: (input, init) => fetch(input, init) });

/**
 * Captures the page's share link: checked (once per day) and remembered for its campaign, with the
 * link's utm_*; a link that names no campaign is remembered for whichever campaign asks.
 */
export function capturePage(search: string, apiBase: string, cookieDomain: string | undefined): Promise<void> {
  const done = captureLink(search, apiBase, cookieDomain);
  pageCapture = done.catch(() => {});
  return done;
}

async function captureLink(search: string, apiBase: string, cookieDomain: string | undefined): Promise<void> {
  const params = new URLSearchParams(search);
  const code = params.get('referralCode')?.trim();
  if (!code) return;
  const campaignId = params.get('id');
  if (!campaignId) {
    rememberCode(ANY_CAMPAIGN, code, Date.now(), cookieDomain, utmFromUrl(search));
    return;
  }
  const client = pageClient(apiBase);
  const { checked } = await captureCode(campaignId, search, (c) => client.validateCode(campaignId, c), cookieDomain);
  // No verdict (offline, service down): keep the code anyway; the sign-up checks it again.
  if (!checked) rememberCode(campaignId, code, Date.now(), cookieDomain, utmFromUrl(search));
}
