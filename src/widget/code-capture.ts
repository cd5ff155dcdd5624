/**
 * The referral code a visitor arrived with: from the share link (`?id=<campaign>&referralCode=<code>`),
 * checked with validateCode and remembered for 90 days, or the one remembered from an earlier page.
 */
import { rememberCode, storedCode } from './storage.js';

/** Codes the service hands out are short and URL-safe; anything else is not worth a request. */
const PLAUSIBLE_CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** The link's `referralCode`, unless the link names another campaign with `id`. */
export function codeFromUrl(search: string, campaignId: string): string | undefined {
  const params = new URLSearchParams(search);
  const code = params.get('referralCode')?.trim();
  const id = params.get('id');
  if (!code || (id && id !== campaignId)) return undefined;
  return code;
}

export interface CodeCapture {
  /** The code to sign up with, if any. */
  code: string | undefined;
  /** The link's code and the service's verdict on it, when there was one and a verdict arrived. */
  checked?: { code: string; valid: boolean };
}

export async function captureCode(
  campaignId: string,
  search: string,
  validate: (code: string) => Promise<boolean>,
): Promise<CodeCapture> {
  const fromLink = codeFromUrl(search, campaignId);
  if (fromLink === undefined) return { code: storedCode(campaignId) };
  let valid = false;
  if (PLAUSIBLE_CODE.test(fromLink)) {
    try {
      valid = (await validate(fromLink)) === true;
    } catch {
      // No verdict (network, rate limit): use the code for this visit without remembering it. The
      // sign-up checks it again, and falls back to no referral if the service refuses it.
      return { code: fromLink };
    }
  }
  if (valid) rememberCode(campaignId, fromLink);
  return { code: valid ? fromLink : storedCode(campaignId), checked: { code: fromLink, valid } };
}
