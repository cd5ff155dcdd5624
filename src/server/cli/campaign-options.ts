/**
 * The campaign fields `campaign create` and `campaign update` both take, named as in the API, and the
 * request body they make.
 */
import { Option, type Command } from 'commander';
import { STRIPE_REWARD_MODES, type LeaderboardSettings, type Milestone, type ShareMessages, type StripeRewardMode, type WaitlistSettings } from '../../api/schemas.js';
import type { RefereeDiscount } from '../../api/promotion-schemas.js';
import { jsonOption } from './cli-run.js';
import { captchaOption, collect, collectBlock, collectMilestone, decimal, int, intOrNone, leaderboardOption, refereeDiscountOption, waitlistOption } from './option-values.js';
import type { Blocklist, CaptchaSettingsBody } from '../../api/fraud-schemas.js';

/** Adds the campaign fields both `campaign create` and `campaign update` take, named as in the API, after the command's own. */
export function campaignFields(cmd: Command): Command {
  return cmd
    .option('--referrer-reward <n>', 'referrerRewardValue', int)
    .option('--referee-reward <n>', 'refereeRewardValue', int)
    .option('--reward-type <text>', 'rewardType')
    .option('--reward-currency <code>', 'rewardCurrency, e.g. USD')
    .option('--reward-header <text>', 'rewardHeader')
    .option('--reward-description <text>', 'rewardDescription')
    .option('--share-header <text>', 'shareHeader')
    .option('--share-description <text>', 'shareDescription')
    .option('--share-message-email-subject <text>', 'shareMessages.emailSubject: the subject of the email a participant sends')
    .option('--share-message-email <text>', 'shareMessages.email: the email body; {link} marks the link, else it is appended')
    .option('--share-message-x <text>', 'shareMessages.x: the post on X')
    .option('--share-message-whatsapp <text>', 'shareMessages.whatsapp: the WhatsApp message')
    .option('--share-message-native <text>', "shareMessages.native: the text for the device's share sheet")
    .option('--end <date-time>', 'end, ISO 8601')
    .option('--allowed-origin <origin>', 'allowedOrigins (repeat for several)', collect)
    .addOption(
      new Option('--require-email-confirmation <on>', 'requireEmailConfirmation: double opt-in for browser sign-ups (needs SMTP_URL)').choices(['true', 'false']),
    )
    .option('--referrer-reward-percent <n>', "referrerRewardPercent: the referrer's share of each referee payment (0-100, two decimals)", decimal)
    .option('--commission-payments <n>', "commissionPayments: 0 = every payment, n = the referee's first n", int)
    .option('--milestone <referrals:reward:label>', 'milestones: a bonus once at that many credited referrals (repeat for several; replaces the list)', collectMilestone)
    .option('--no-milestones', 'milestones: remove them all')
    .option('--max-referral-reward <n|none>', 'maxReferralReward: the most one referrer can earn; none removes the ceiling', intOrNone)
    .option('--hold-days <n>', 'holdDays: new credits stay pending this many days', int)
    .option('--stripe-webhook-secret <whsec>', "stripeWebhookSecret: the signing secret of the campaign's Stripe webhook endpoint ('' removes it)")
    .option('--stripe-reward-key <rk_...>', "stripeRewardKey: the restricted Stripe key rewards are paid into Stripe with ('' removes it)")
    .option('--paddle-webhook-secret <secret>', "paddleWebhookSecret: the Paddle notification destination's secret key ('' removes it)")
    .option('--lemonsqueezy-webhook-secret <secret>', "lemonSqueezyWebhookSecret: the Lemon Squeezy webhook's signing secret ('' removes it)")
    .option('--shopify-webhook-secret <secret>', "shopifyWebhookSecret: the Shopify app's client secret its webhooks are signed with ('' removes it)")
    .option('--chargebee-webhook-auth <user:password>', "chargebeeWebhookAuth: the basic auth of the Chargebee webhook ('' removes it)")
    .option('--segment-shared-secret <secret>', "segmentSharedSecret: the Segment webhook destination's shared secret ('' removes it)")
    .addOption(new Option('--stripe-reward-mode <mode>', 'stripeRewardMode: how an available reward is paid into Stripe').choices([...STRIPE_REWARD_MODES]))
    .option(
      '--referee-discount <off|15%:once|10:repeating:3|...>',
      "refereeDiscount: the friend's discount at checkout, a percentage (15%) or an amount of rewardCurrency (10), then once, forever or repeating:<months>; off removes it",
      refereeDiscountOption,
    )
    .option('--promotion-code-prefix <text>', "promotionCodePrefix: put before each code in Stripe, for campaigns sharing one Stripe account ('' removes it)")
    .option('--reward-codes-low-threshold <n>', 'rewardCodesLowThreshold: reward_codes_low fires when a code pool has fewer left (default 10)', int)
    .option('--leaderboard <period:size|off>', 'leaderboard: all:10 (since the start) or month:10 (this month) and how many it shows; off removes it', leaderboardOption)
    .option('--time-zone <iana>', "timeZone: where the campaign's months begin, e.g. Europe/Berlin (default UTC)")
    .option('--waitlist <spots|spots:qualified|off>', 'waitlist: 5 (each referred sign-up moves the referrer 5 places up) or 5:qualified (each qualified referral); off launches the campaign, for good', waitlistOption)
    .option('--block <email:|domain:|ip:|country:...|off>', 'blocklist: email:<address>, domain:<domain>, ip:<address or CIDR>, country:<code> (repeat for several; replaces the list); off removes it', collectBlock)
    .option('--captcha <provider:siteKey:secretKey|off>', 'captcha on browser sign-ups: turnstile, hcaptcha or recaptcha, its site key and secret key; off removes it', captchaOption)
    .option('--max-rewards-per-day <n|none>', 'autoApprove.maxRewardsPerDay: credits per referrer a day past which they wait for your approval (with --max-rewards-per-referrer, replaces the limits)', intOrNone)
    .option('--max-rewards-per-referrer <n|none>', 'autoApprove.maxRewardsPerReferrer: credits per referrer in all past which they wait for your approval', intOrNone)
    .addOption(jsonOption);
}

export interface CampaignOptions {
  name?: string;
  hostUrl?: string;
  referrerReward?: number;
  refereeReward?: number;
  rewardType?: string;
  rewardCurrency?: string;
  rewardHeader?: string;
  rewardDescription?: string;
  shareHeader?: string;
  shareDescription?: string;
  shareMessageEmailSubject?: string;
  shareMessageEmail?: string;
  shareMessageX?: string;
  shareMessageWhatsapp?: string;
  shareMessageNative?: string;
  end?: string;
  allowedOrigin?: string[];
  requireEmailConfirmation?: 'true' | 'false';
  referrerRewardPercent?: number;
  commissionPayments?: number;
  /** The --milestone flags given; false with --no-milestones; true (commander's default) with neither. */
  milestone?: Milestone[];
  milestones?: boolean;
  maxReferralReward?: number | null;
  holdDays?: number;
  stripeWebhookSecret?: string;
  stripeRewardKey?: string;
  stripeRewardMode?: StripeRewardMode;
  paddleWebhookSecret?: string;
  lemonsqueezyWebhookSecret?: string;
  shopifyWebhookSecret?: string;
  chargebeeWebhookAuth?: string;
  segmentSharedSecret?: string;
  refereeDiscount?: RefereeDiscount | null;
  promotionCodePrefix?: string;
  rewardCodesLowThreshold?: number;
  leaderboard?: LeaderboardSettings | null;
  timeZone?: string;
  waitlist?: WaitlistSettings | null;
  block?: Blocklist | null;
  captcha?: CaptchaSettingsBody | null;
  maxRewardsPerDay?: number | null;
  maxRewardsPerReferrer?: number | null;
  json?: boolean;
}

/** --max-rewards-per-day and --max-rewards-per-referrer as autoApprove (the limits given; none: removed); undefined when neither is given. */
function autoApprove(o: CampaignOptions) {
  if (o.maxRewardsPerDay === undefined && o.maxRewardsPerReferrer === undefined) return undefined;
  // `none` is no number (commander keeps a parser's null as ''): that limit is left out.
  const limit = (n: unknown) => (typeof n === 'number' ? n : undefined);
  return JSON.parse(JSON.stringify({ maxRewardsPerDay: limit(o.maxRewardsPerDay), maxRewardsPerReferrer: limit(o.maxRewardsPerReferrer) })) as { maxRewardsPerDay?: number; maxRewardsPerReferrer?: number };
}
/** The --share-message-* flags given, as shareMessages; undefined when none is. */
function shareMessages(o: CampaignOptions): ShareMessages | undefined {
  const messages = {
    emailSubject: o.shareMessageEmailSubject,
    email: o.shareMessageEmail,
    x: o.shareMessageX,
    whatsapp: o.shareMessageWhatsapp,
    native: o.shareMessageNative,
  };
  const given = Object.entries(messages).filter(([, text]) => text !== undefined);
  return given.length > 0 ? (Object.fromEntries(given) as ShareMessages) : undefined;
}

export const campaignBody = (o: CampaignOptions) => ({
  campaignName: o.name,
  hostURL: o.hostUrl,
  referrerRewardValue: o.referrerReward,
  refereeRewardValue: o.refereeReward,
  rewardType: o.rewardType,
  rewardCurrency: o.rewardCurrency,
  rewardHeader: o.rewardHeader,
  rewardDescription: o.rewardDescription,
  shareHeader: o.shareHeader,
  shareDescription: o.shareDescription,
  shareMessages: shareMessages(o),
  end: o.end,
  allowedOrigins: o.allowedOrigin,
  requireEmailConfirmation: o.requireEmailConfirmation === undefined ? undefined : o.requireEmailConfirmation === 'true',
  referrerRewardPercent: o.referrerRewardPercent,
  commissionPayments: o.commissionPayments,
  milestones: o.milestones === false ? [] : o.milestone,
  maxReferralReward: o.maxReferralReward,
  holdDays: o.holdDays,
  stripeWebhookSecret: o.stripeWebhookSecret,
  stripeRewardKey: o.stripeRewardKey,
  stripeRewardMode: o.stripeRewardMode,
  paddleWebhookSecret: o.paddleWebhookSecret,
  lemonSqueezyWebhookSecret: o.lemonsqueezyWebhookSecret,
  shopifyWebhookSecret: o.shopifyWebhookSecret,
  chargebeeWebhookAuth: o.chargebeeWebhookAuth,
  segmentSharedSecret: o.segmentSharedSecret,
  refereeDiscount: o.refereeDiscount,
  promotionCodePrefix: o.promotionCodePrefix,
  rewardCodesLowThreshold: o.rewardCodesLowThreshold,
  leaderboard: o.leaderboard,
  timeZone: o.timeZone,
  waitlist: o.waitlist,
  blocklist: o.block,
  captcha: o.captcha,
  autoApprove: autoApprove(o),
});

/**
 * What a create or update that succeeded says of the write-only secrets it was given (the answer shows
 * only stripeWebhookConfigured and stripeRewardKeyConfigured): that each was set or removed, never the value.
 */
export function secretNotices(o: CampaignOptions): string {
  const said = (value: string | undefined, what: string) => (value === undefined ? '' : `${what} ${value === '' ? 'removed' : 'set'}.\n`);
  return (
    said(o.stripeWebhookSecret, 'Stripe webhook secret') +
    said(o.stripeRewardKey, 'Stripe reward key') +
    said(o.paddleWebhookSecret, 'Paddle webhook secret') +
    said(o.lemonsqueezyWebhookSecret, 'Lemon Squeezy webhook secret') +
    said(o.shopifyWebhookSecret, 'Shopify webhook secret') +
    said(o.chargebeeWebhookAuth, 'Chargebee webhook auth') +
    said(o.segmentSharedSecret, 'Segment shared secret')
  );
}
