/**
 * The CAPTCHA on keyless sign-ups: a campaign with `captcha` set takes a browser's addParticipant only
 * with a token its provider (Cloudflare Turnstile, hCaptcha or Google reCAPTCHA v2) says was solved.
 * Sign-ups with a secret key need none (the product's backend is no bot), and their token is ignored.
 *
 * The token is checked at the provider's siteverify endpoint, each documented the same way: a POST of
 * `secret`, `response` and, when known, `remoteip` as application/x-www-form-urlencoded, answered with
 * JSON `{success, 'error-codes'?, challenge_ts?, hostname?}`. hCaptcha also takes `sitekey`, and then
 * refuses a token solved for another site key. Tokens are single-use: a sign-up decided again (its
 * facts read afresh, ../../referrals/domain/signups.ts) does not check it again.
 *
 * Fail closed: a provider that cannot be reached, answers 5xx or no verdict within CAPTCHA_TIMEOUT_MS
 * refuses the sign-up with 503 `captcha_unavailable`, before anything is written. The answers name no
 * rule and say nothing of what the provider said (its error codes stay here).
 */
import { request } from 'undici';
import type { CaptchaProvider } from '../../../api/fraud-schemas.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import type { CampaignRow } from '../../store/store.js';
import { captchaOf } from './fraud-settings.js';

/** Each provider's siteverify endpoint; CAPTCHA_VERIFY_URL (ctx.fraud.captchaVerifyUrl) replaces all three. */
export const SITEVERIFY_URLS: Record<CaptchaProvider, string> = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
};

/** How long a sign-up waits for the provider's verdict before it is refused as unavailable. */
export const CAPTCHA_TIMEOUT_MS = 3000;

export const captchaRequired = () => new AppError(400, 'captcha_required', 'Solve the CAPTCHA to sign up', 'captchaToken');
export const captchaFailed = () => new AppError(403, 'captcha_failed', 'The CAPTCHA was not solved. Try it again', 'captchaToken');
const captchaUnavailable = (cause: unknown) =>
  new AppError(503, 'captcha_unavailable', 'The CAPTCHA cannot be checked right now. Try again in a moment', undefined, { 'retry-after': '2' }, cause);

/** The siteverify address used for a provider: CAPTCHA_VERIFY_URL when set, else the provider's own. */
export const siteverifyUrl = (ctx: Pick<Ctx, 'fraud'>, provider: CaptchaProvider): string => ctx.fraud?.captchaVerifyUrl ?? SITEVERIFY_URLS[provider];

/**
 * A keyless sign-up's CAPTCHA, checked: resolves to true when the campaign has none or its provider says
 * the token was solved; throws captcha_required (no token), captcha_failed (the provider said no) or
 * captcha_unavailable (no verdict).
 */
export async function checkCaptcha(
  ctx: Ctx,
  campaign: Pick<CampaignRow, 'captcha' | 'captcha_secret'>,
  token: string | undefined,
  ip: string | null,
): Promise<true> {
  const captcha = captchaOf(campaign);
  if (captcha === null) return true;
  if (token === undefined || token.trim() === '') throw captchaRequired();
  const form = new URLSearchParams({ secret: campaign.captcha_secret ?? '', response: token });
  if (ip !== null) form.set('remoteip', ip);
  if (captcha.provider === 'hcaptcha') form.set('sitekey', captcha.siteKey);
  let verdict: unknown;
  try {
    // undici's request, not fetch (the same client under it): fetch's streams and Response cost a
    // sign-up about 200 µs of CPU more a call (bench --signup-options, docs/benchmarks.md).
    const res = await request(siteverifyUrl(ctx, captcha.provider), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(CAPTCHA_TIMEOUT_MS),
    });
    if (res.statusCode >= 500) {
      await res.body.dump();
      throw new Error(`${captcha.provider} siteverify answered ${res.statusCode}`);
    }
    verdict = await res.body.json();
  } catch (err) {
    throw captchaUnavailable(err);
  }
  const success = (verdict as { success?: unknown } | null)?.success;
  if (typeof success !== 'boolean') throw captchaUnavailable(new Error(`${captcha.provider} siteverify gave no verdict`));
  if (!success) throw captchaFailed();
  return true;
}
