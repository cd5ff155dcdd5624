/**
 * The dashboard's live preview and test send: an email of a campaign rendered for a sample participant,
 * with the saved text or a draft the owner is typing (nothing is saved), in one of the five languages.
 */
import type { EmailKind, EmailPreview, PreviewEmailBody, TestEmailBody } from '../../../api/email-schemas.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { mailUnavailable } from '../../referrals/domain/email-links.js';
import { AppError, invalid } from '../../kernel/errors.js';
import type { EmailData } from './email-outbox.js';
import { leaderboardOf } from '../../engagement/domain/leaderboard-settings.js';
import { rulesOf } from '../../rewards/domain/reward-rules.js';
import { DAY_MS } from '../../kernel/time.js';
import type { CampaignRow } from '../../store/store.js';
import { composeEmail, lifecycleMessage, textOf } from './compose.js';
import { NOT_A_TEST_ADDRESS, testMayEmail } from '../../kernel/test-mode.js';
import { findMember } from '../../accounts/domain/team.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** What the sample participant's email of a kind is about, as a change of this campaign would give it (made up where it has none). */
function sampleData(campaign: CampaignRow, kind: EmailKind, now: number): EmailData {
  const rules = rulesOf(campaign);
  const milestone = rules.milestones[0];
  const amount = campaign.referrer_reward_value || 10;
  const code = campaign.reward_code_kinds ? { rewardCode: 'SAMPLE-CODE-123' } : {};
  switch (kind) {
    case 'welcome':
      return {};
    case 'friend_joined':
      return { friend: 'Sam' };
    case 'reward_earned':
      return rules.holdDays > 0 ? { amount, availableOn: now + rules.holdDays * DAY_MS } : { amount, ...code };
    case 'reward_available':
      return { amount, ...code };
    case 'reward_reversed':
      return { amount };
    case 'milestone':
      return { milestone: milestone?.label ?? 'Gold', referrals: milestone?.referrals ?? 5, amount: milestone?.reward ?? amount };
    case 'reminder':
    case 'access_granted':
      return {};
    case 'leaderboard_top':
      return { rank: 3, places: leaderboardOf(campaign)?.size ?? 10, referrals: 5 };
    // A cash payout of what the participant earned, in the campaign's currency; the failed one returned by PayPal.
    case 'payout_paid':
      return { amount, currency: campaign.reward_currency };
    case 'payout_failed':
      return { amount, currency: campaign.reward_currency, payoutProblem: 'account' };
  }
}

async function render(ctx: Ctx, actor: Actor, body: PreviewEmailBody, baseUrl: string) {
  const campaign = await ownCampaign(ctx, actor, body.id);
  const saved = await textOf(ctx.store, campaign, body.kind, body.locale);
  const text = { subject: body.subject ?? saved.subject, body: body.body ?? saved.body };
  const sample = { id: 0, email: 'alex@example.com', first_name: 'Alex', code: 'SAMPLE1', locale: body.locale };
  return { campaign, email: await composeEmail(ctx.store, baseUrl, campaign, body.kind, sample, sampleData(campaign, body.kind, ctx.now()), text) };
}

export async function previewEmail(ctx: Ctx, actor: Actor, body: PreviewEmailBody, baseUrl: string): Promise<EmailPreview> {
  const { subject, html, text, attachments = [] } = (await render(ctx, actor, body, baseUrl)).email;
  // A page shows no cid: images (a mail client resolves them from the message): the QR code goes inline.
  const inline = attachments.reduce((h, a) => h.replaceAll(`cid:${a.cid}`, `data:${a.contentType};base64,${a.content.toString('base64')}`), html);
  return { subject, html: inline, text };
}

/** Test emails one account may send in an hour (per service process): previews, not a way to mail anyone. */
export const TEST_EMAILS_PER_HOUR = 20;
/** The counters of each service's mailer (one per process; a test process runs several services). */
const testEmails = new WeakMap<object, RateLimiterMemory>();
const limiterOf = (mailer: object) => {
  let limiter = testEmails.get(mailer);
  if (!limiter) testEmails.set(mailer, (limiter = new RateLimiterMemory({ points: TEST_EMAILS_PER_HOUR, duration: 3600 })));
  return limiter;
};

/**
 * Sends the preview to `to` now (not through the outbox: the owner is waiting to see it arrive): a live
 * campaign's to a member of the team only (its text is the owner's to write, so it must not reach
 * strangers), a test campaign's (the only kind a test key reaches) as its own emails go, to an address at
 * a domain reserved for testing, marked as a test (the subject's prefix and the X-Refkit-Test header). At
 * most TEST_EMAILS_PER_HOUR an account an hour: 429 rate_limited past it.
 */
export async function sendTestEmail(ctx: Ctx, actor: Actor, body: TestEmailBody, baseUrl: string): Promise<void> {
  const to = normalizeEmail(body.to, 'to');
  if (!ctx.mailer) throw mailUnavailable();
  const { campaign, email } = await render(ctx, actor, body, baseUrl);
  const test = campaign.test === 1;
  if (test && !testMayEmail(to)) throw invalid('to', `This is a test campaign: ${NOT_A_TEST_ADDRESS}`);
  if (!test && !(await findMember(ctx, actor, to))) throw invalid('to', 'A test email goes to a member of the team only: send it to your own address (Team lists the members)');
  try {
    await limiterOf(ctx.mailer).consume(String(actor.accountId));
  } catch (refused) {
    if (!(refused instanceof RateLimiterRes)) throw refused;
    const retry = Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
    throw new AppError(429, 'rate_limited', `At most ${TEST_EMAILS_PER_HOUR} test emails an hour: try again in ${retry} s`, undefined, { 'retry-after': String(retry) });
  }
  try {
    await ctx.mailer.send(lifecycleMessage(to, email, test));
  } catch (err) {
    throw new AppError(503, 'unavailable', 'The SMTP server did not take the email; try again in a few minutes', undefined, undefined, err);
  }
}
