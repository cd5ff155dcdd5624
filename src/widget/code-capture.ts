/**
 * The referral code a visitor arrived with: from the share link (`?id=<campaign>&referralCode=<code>`),
 * checked with validateCode and remembered for 90 days, or the one remembered from an earlier page.
 *
 * A code is checked once per page and day, whatever the renders: concurrent checks (several elements,
 * the page-level capture) share one request, and the verdict is kept for the day, so reloads ask (and
 * count an impression) no more. The service counts impressions once per visitor and day as well.
 */
import { ANY_CAMPAIGN, rememberCode, rememberVerdict, storedCodeAndUtm, storedVerdict, utmOf, type KeptCode, type Utm } from './storage.js';

/** Codes the service hands out are short and URL-safe; anything else is not worth a request. */
export const PLAUSIBLE_CODE = /^[A-Za-z0-9_-]{1,64}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The link's `referralCode`, unless the link names another campaign with `id`. */
export function codeFromUrl(search: string, campaignId: string): string | undefined {
  const params = new URLSearchParams(search);
  const code = params.get('referralCode')?.trim();
  const id = params.get('id');
  if (!code || (id && id !== campaignId)) return undefined;
  return code;
}

/**
 * The link's utm_* (utm_source, utm_medium, utm_campaign, utm_term, utm_content): the channel it was
 * shared by. Kept with the link's code and sent with the sign-up as addParticipant's `utm`, cleaned as
 * the service takes them (./storage.ts); undefined when the link has none.
 */
export function utmFromUrl(search: string): Utm | undefined {
  const params = new URLSearchParams(search);
  return utmOf((field) => params.get(`utm_${field}`));
}

const inFlight = new Map<string, Promise<boolean>>();

/** The service's verdict on a code, asked at most once per page and day. Rejects when no verdict came. */
export function validateOnce(campaignId: string, code: string, validate: (code: string) => Promise<boolean>, now = Date.now()): Promise<boolean> {
  const day = Math.floor(now / DAY_MS);
  const known = storedVerdict(campaignId, code, day);
  if (known !== undefined) return Promise.resolve(known);
  const key = `${campaignId}\n${code}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = validate(code)
      .then((answer) => {
        const valid = answer === true;
        rememberVerdict(campaignId, code, valid, day);
        return valid;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

export interface CodeCapture {
  /** The code to sign up with, if any. */
  code: string | undefined;
  /** The utm_* of the link that code came on (kept with it), if it had any. */
  utm?: Utm | undefined;
  /** The link's code and the service's verdict on it, when there was one and a verdict arrived. */
  checked?: { code: string; valid: boolean };
}

/** A code remembered for this campaign, or from a link that named no campaign, with its link's utm_*. */
export const rememberedCodeAndUtm = (campaignId: string): KeptCode | undefined => storedCodeAndUtm(campaignId) ?? storedCodeAndUtm(ANY_CAMPAIGN);

/** A code remembered for this campaign, or from a link that named no campaign. */
export const rememberedCode = (campaignId: string) => rememberedCodeAndUtm(campaignId)?.code;

/** A capture of `code` and its link's utm (left out when there are none). */
const capture = (code: string | undefined, utm: Utm | undefined): CodeCapture => (utm ? { code, utm } : { code });

const remembered = (campaignId: string): CodeCapture => {
  const kept = rememberedCodeAndUtm(campaignId);
  return capture(kept?.code, kept?.utm);
};

export async function captureCode(
  campaignId: string,
  search: string,
  validate: (code: string) => Promise<boolean>,
  cookieDomain?: string,
): Promise<CodeCapture> {
  const fromLink = codeFromUrl(search, campaignId);
  if (fromLink === undefined) return remembered(campaignId);
  const utm = utmFromUrl(search);
  let valid = false;
  if (PLAUSIBLE_CODE.test(fromLink)) {
    try {
      valid = await validateOnce(campaignId, fromLink, validate);
    } catch {
      // No verdict (network, rate limit): use the code for this visit without remembering it. The
      // sign-up checks it again, and falls back to no referral if the service refuses it.
      return capture(fromLink, utm);
    }
  }
  if (valid) rememberCode(campaignId, fromLink, Date.now(), cookieDomain, utm);
  return { ...(valid ? capture(fromLink, utm) : remembered(campaignId)), checked: { code: fromLink, valid } };
}
