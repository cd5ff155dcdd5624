/**
 * Attribution on any page that loads the script, with or without an element, in any campaign state:
 * a share link's code is captured as soon as the script runs, so a visitor who lands on a page without
 * the widget (or while the campaign is paused) and signs up later, elsewhere on the site, still counts.
 *
 * Hosts that sign people up in their own form read the code with `getReferralCode(campaignId)` (also
 * `window.refkit.getReferralCode`) and pass it as `referredByCode` from their backend.
 */
import { BrowserClient } from '../api/client.js';
import { captureCode, rememberedCode } from './code-capture.js';
import { ANY_CAMPAIGN, rememberCode } from './storage.js';

/** The referral code this browser arrived with for a campaign, if it has one (from a link, 90 days). */
export function getReferralCode(campaignId: string): string | undefined {
  return rememberedCode(campaignId);
}

/**
 * Captures the page's share link: checked (once per day) and remembered for its campaign; a link that
 * names no campaign is remembered for whichever campaign asks.
 */
export async function capturePage(search: string, apiBase: string, cookieDomain: string | undefined): Promise<void> {
  const params = new URLSearchParams(search);
  const code = params.get('referralCode')?.trim();
  if (!code) return;
  const campaignId = params.get('id');
  if (!campaignId) {
    rememberCode(ANY_CAMPAIGN, code, Date.now(), cookieDomain);
    return;
  }
  const client = new BrowserClient({ baseUrl: apiBase, fetch: (input, init) => fetch(input, init) });
  const { checked } = await captureCode(campaignId, search, (c) => client.validateCode(campaignId, c), cookieDomain);
  // No verdict (offline, service down): keep the code anyway; the sign-up checks it again.
  if (!checked) rememberCode(campaignId, code, Date.now(), cookieDomain);
}
