/**
 * Row types of the one schema both databases share. Times are epoch milliseconds (bigint) and flags are
 * 0/1 integers on both, so that SQLite and PostgreSQL read back the same values and the store needs no
 * per-dialect conversions.
 */
import type { Generated } from 'kysely';
import type { REWARD_ENTRY_KINDS, REWARD_ENTRY_STATUSES } from '../../api/schemas.js';
import type { FraudCaseStatus, FraudSignalKind } from '../../api/fraud-schemas.js';

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  created_on: number;
}

export interface CampaignsTable {
  id: string;
  account_id: number;
  name: string;
  host_url: string;
  status: 'Active' | 'Pause' | 'End';
  end_on: number | null;
  referrer_reward_value: Generated<number>;
  referee_reward_value: Generated<number>;
  reward_type: Generated<string>;
  reward_currency: Generated<string>;
  reward_header: Generated<string>;
  reward_description: Generated<string>;
  share_header: Generated<string>;
  share_description: Generated<string>;
  /** JSON array of origins, or null for the default (the origin of host_url). */
  allowed_origins: string | null;
  /** 1: keyless sign-ups wait as pending_signups until their emailed link is followed (double opt-in). */
  require_email_confirmation: Generated<number>;
  /** HMAC key hosts sign their visitors' emails with (`email-signature`); null until first revealed. */
  signing_secret: string | null;
  /** JSON of the per-channel share messages (ShareMessages in src/api/schemas.ts); null when none is set. */
  share_messages: string | null;
  /** JSON of the widget's look (WidgetStyle in src/api/schemas.ts); null when none is set. */
  widget_style: string | null;
  /** The reward rules (../rewards/domain/reward-rules.ts): the commission in basis points of each payment, ... */
  referrer_reward_bp: Generated<number>;
  /** 0: every payment earns the commission; n: the referee's first n. */
  commission_payments: Generated<number>;
  /** JSON array of Milestone sorted by referrals, or null when there are none. */
  milestones: string | null;
  max_referral_reward: number | null;
  hold_days: Generated<number>;
  /** The Stripe webhook signing secret (whsec_...) of ../billing/domain/stripe-events.ts; null when not set. */
  stripe_webhook_secret: string | null;
  /** The restricted Stripe key (rk_...) rewards are paid into Stripe with; null when not set. */
  stripe_reward_key: string | null;
  /** How an available credit is paid into Stripe (../payouts/domain/stripe-payouts.ts). */
  stripe_reward_mode: Generated<StripeRewardMode>;
  /** Cash payouts (JSON: methods, minimum, schedule, approval; ../payouts/domain/cash-payout-settings.ts); null: none. */
  cash_payouts: string | null;
  /** When the monthly schedule last made a run (in the campaign's time). */
  payouts_run_on: number | null;
  /** JSON of each payment provider's write-only webhook secret (../billing/domain/payment-sources.ts); null: none. */
  payment_secrets: string | null;
  /** JSON of a Blocklist {emails, domains, ips, countries} (migration 0036); null: none. */
  blocklist: string | null;
  /** JSON of the CAPTCHA on keyless sign-ups {provider, siteKey}; null: none. */
  captcha: string | null;
  /** The CAPTCHA provider's secret key (write-only); null: none. */
  captcha_secret: string | null;
  /** JSON of the auto-approval limits {maxRewardsPerDay?, maxRewardsPerReferrer?}; null: none. */
  auto_approve: string | null;
  /** JSON of RefereeDiscount (../promotions/domain/referee-discount.ts); null: none. */
  referee_discount: string | null;
  /** Put before each participant's code in Stripe (campaigns sharing one Stripe account); null: none. */
  promotion_code_prefix: string | null;
  /** Bumped by each change of the discount or the prefix: a new coupon, and new promotion codes. */
  discount_generation: Generated<number>;
  /** The Stripe coupon of the current generation, once made. */
  discount_coupon: string | null;
  /** How far (participants.created_on) the promotion code outbox has looked for participants without a code. */
  promotion_codes_through: number | null;
  /** The kinds of reward code pools the campaign has (any code ever added), comma-separated; null: none. */
  reward_code_kinds: string | null;
  /** reward_codes_low fires when a pool's available codes fall below this. */
  reward_codes_low_threshold: Generated<number>;
  /** JSON of LeaderboardSettings (../engagement/domain/leaderboard.ts); null: no leaderboard. */
  leaderboard: string | null;
  /** The IANA time zone the campaign's months begin in (monthly leaderboards). */
  time_zone: Generated<string>;
  /** JSON of the lifecycle email settings (EmailSettings in ../emails/domain/email-settings.ts); null: the defaults. */
  email_settings: string | null;
  /** The HMAC key of the campaign's unsubscribe links (../emails/domain/unsubscribe.ts); never shown. */
  email_secret: string | null;
  /** JSON of WaitlistSettings (../engagement/domain/waitlist.ts); null: not in waitlist mode. */
  waitlist: string | null;
  /** 1: a test campaign (test mode, ../kernel/test-mode.ts), set at creation and never changed. */
  test: Generated<number>;
  created_on: number;
  updated_on: number;
}

/** A campaign's participants, counted as they join, in shards summed when read (./stats-store.ts). */
export interface CampaignCountersTable {
  campaign_id: string;
  shard: number;
  participants: Generated<number>;
}

/** One row: how many changes to cached tables (campaigns, keys, endpoints) there have been (./caches.ts). */
export interface CacheEpochTable {
  n: number;
}

export interface ParticipantsTable {
  id: Generated<number>;
  campaign_id: string;
  email: string;
  /** The email with aliasing removed (plus tags, gmail dots): how fraud scoring spots one person twice. */
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  code: string;
  referred_by_id: number | null;
  referred_by_code: string | null;
  created_on: number;
  updated_on: number;
  signup_source: 'api' | 'browser' | 'import';
  signup_ip: string | null;
  /** The sign-up IP's network: the IPv4 address, or the IPv6 /64. Several referees of one referrer from one network is squatting. */
  signup_net: string | null;
  fraud_score: Generated<string>;
  approval: Generated<number>;
  reward_event_completed: Generated<number>;
  reward_event_completed_on: number | null;
  /** Set once, together with the credit itself, so a reward is never credited twice. */
  reward_credited: Generated<number>;
  referral_reward: Generated<number>;
  referral_reward_redeemed: Generated<number>;
  referee_reward: Generated<number>;
  referee_reward_redeemed: Generated<number>;
  total_referrals: Generated<number>;
  total_completed_referred: Generated<number>;
  amount_paid_cents: Generated<number>;
  payment_count: Generated<number>;
  revenue_generated_cents: Generated<number>;
  impression_count: Generated<number>;
  /** Millionths of a unit of commission not yet credited, carried to the next payment (0 to 999,999). */
  commission_remainder: Generated<number>;
  /** What reversals could not take back from the balance, netted from the next credits. */
  referral_reward_owed: Generated<number>;
  referee_reward_owed: Generated<number>;
  /** What open cash payouts hold of each balance (../payouts/domain/payout-runs.ts): no redemption takes it meanwhile. */
  referral_reward_reserved: Generated<number>;
  referee_reward_reserved: Generated<number>;
  /** Referrals of theirs whose rewards were credited: what milestones count. */
  credited_referrals: Generated<number>;
  /** The referrals count of the highest milestone credited to them (each is credited once). */
  milestones_reached: Generated<number>;
  /** 1 when a refund of their qualifying payment undid their qualification. */
  refunded: Generated<number>;
  /** Their latest payment, where the chain of their payments starts (payments.prev_id); null before the first. */
  last_payment_id: number | null;
  /** The language of the participant's emails: en, de, fr, es or ar (../domain/locales.ts). */
  locale: Generated<string>;
}

/** A referee's payment: what refunds take back from, and the commission it earned its referrer. */
export interface PaymentsTable {
  id: Generated<number>;
  /** A payment converted from another currency: the amount it was and the rate used (../billing/domain/exchange-rates.ts); null: none. */
  converted_from: string | null;
  participant_id: number;
  /** 1 for the payer's first payment, and so on: commissionPayments counts these. */
  seq: number;
  amount_cents: number;
  refunded_cents: Generated<number>;
  /** 1 for the payment recorded by the call that qualified the payer. */
  qualifying: Generated<number>;
  /** 1 once its commission was decided (credited, or none was due). */
  commission_credited: Generated<number>;
  /** The commission it earned, in reward units, and how much of it refunds took back. */
  commission: Generated<number>;
  commission_reversed: Generated<number>;
  /** The rate its commission was computed at, in basis points (null: decided before rates were kept, or none decided). */
  commission_bp: Generated<number | null>;
  paid_on: number;
  /** The payer's payment before this one (null for their first): a payer's payments are a chain from participants.last_payment_id. */
  prev_id: number | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: number;
  name: string;
  prefix: string;
  /** SHA-256 of the key: keys are long random strings, so a fast hash is enough and lookups stay O(1). */
  hash: string;
  /** 1: a test key (sk_test_...), which sees test campaigns only; 0: live (every key made before test mode). */
  test: Generated<number>;
  created_on: number;
  revoked_on: number | null;
  /** Who made it: a user's email, a key's prefix or `cli` (null for keys made before this was kept). */
  created_by: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: number;
  url: string;
  /** JSON array of the event types the endpoint selected. */
  event_types: string;
  /** The Standard Webhooks signing secret (whsec_...). Kept in clear: signing needs it. */
  secret: string;
  /** 1: gets the events of test campaigns only; 0: of live campaigns only. */
  test: Generated<number>;
  created_on: number;
  deleted_on: number | null;
}

/** A test campaign's clock: its time is the real time plus offset_ms (../campaigns/domain/campaign-clock.ts). */
export interface CampaignClocksTable {
  campaign_id: string;
  offset_ms: number;
  updated_on: number;
}

/** The outbox: one row per event, written in the transaction of the change that caused it. */
export interface WebhookEventsTable {
  id: string;
  account_id: number;
  campaign_id: string;
  event_type: string;
  /** The JSON body, frozen when the event happened, so every attempt sends the same bytes. */
  payload: string;
  created_on: number;
}

/** One row per (event, endpoint): the unit that is claimed, attempted, retried, and marked final. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: Generated<number>;
  next_attempt_on: number | null;
  /** A dispatcher that claims the row owns it until then; a crashed one's claim simply runs out. */
  claimed_until: number | null;
  created_on: number;
  updated_on: number;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_on: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** A browser's proof of being a participant: issued at sign-up or email verification, stored hashed. */
export interface ParticipantTokensTable {
  hash: string;
  participant_id: number;
  created_on: number;
  revoked_on: number | null;
}

/** A keyless sign-up waiting for its emailed confirmation link (campaigns with require_email_confirmation). */
export interface PendingSignupsTable {
  id: Generated<number>;
  campaign_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  signup_ip: string | null;
  created_on: number;
  updated_on: number;
}

/**
 * A one-time link emailed to an address: following it proves the mailbox. `confirm` turns a pending
 * sign-up into a participant (with the referrer the link was sent for); `login` proves an existing one.
 */
export interface EmailLinksTable {
  hash: string;
  campaign_id: string;
  email: string;
  purpose: 'confirm' | 'login';
  referred_by_id: number | null;
  created_on: number;
  expires_on: number;
  used_on: number | null;
}

/**
 * One row per day, participant and visitor: an impression counts once however often a page renders.
 * `visitor` is 52 bits of the visitor's hash (../referrals/domain/impressions.ts), a safe integer in JavaScript.
 */
export interface ImpressionsTable {
  day: number;
  participant_id: number;
  visitor: number;
}

export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  /** scrypt, with its parameters and salt: `scrypt$N$r$p$salt$hash` (base64url). */
  password_hash: string;
  created_on: number;
  /** owner, admin or viewer (../kernel/roles.ts); users from before roles are owners (migration 0023). */
  role: Generated<string>;
}

export interface InvitationsTable {
  id: string;
  account_id: number;
  email: string;
  role: string;
  /** SHA-256 of the emailed token: a stolen table joins nobody. */
  token_hash: string;
  /** Who invited: the audit log's actor label (an email, a key prefix, or `cli`). */
  invited_by: string;
  created_on: number;
  expires_on: number;
  accepted_on: number | null;
  revoked_on: number | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: number;
  created_on: number;
  /** user, key or cli. */
  actor_kind: string;
  /** The user's id, the key's id, or null (cli). */
  actor_id: string | null;
  /** The user's email, the key's prefix, or `cli`. */
  actor_label: string;
  actor_role: string;
  /** The operation id (updateCampaign, inviteMember, ...) or the CLI command. */
  action: string;
  campaign_id: string | null;
  target: string | null;
  /** JSON snapshots, secrets redacted; null when there is nothing to show. */
  before: string | null;
  after: string | null;
  ip: string | null;
}

export interface SessionsTable {
  /** SHA-256 of the cookie's token: a stolen table signs nobody in. */
  id: string;
  user_id: number;
  csrf_token: string;
  created_on: number;
  expires_on: number;
  revoked_on: number | null;
}

export interface SigninFailuresTable {
  /** `email:<address>`, `ip:<client>`, or `pair:<client> <address>`. */
  key: string;
  failures: number;
  window_start: number;
  /** No attempt of this key before this time (ms). */
  next_on: Generated<number>;
}

export interface ParticipantReviewsTable {
  participant_id: number;
  decision: 'rejected';
  decided_on: number;
}

export interface CampaignDailyStatsTable {
  campaign_id: string;
  /** Days since the epoch, UTC. */
  day: number;
  /** Which of the day's rows (./stats-store.ts: counters are split into shards). */
  shard: Generated<number>;
  signups: Generated<number>;
  referred_signups: Generated<number>;
  qualified: Generated<number>;
  impressions: Generated<number>;
  referred_revenue_cents: Generated<number>;
}

/**
 * A client's Idempotency-Key, per account: what the first request with it asked (its fingerprint) and,
 * once answered, the answer replayed to its retries (../http/idempotency.ts). Purged after 24 hours.
 */
export interface IdempotencyKeysTable {
  account_id: number;
  key: string;
  /** SHA-256 (hex) of the method, route, query and canonical body. */
  fingerprint: string;
  /** When the key was claimed (or last taken over): its 24 hours, and an unanswered claim's age, count from here. */
  created_on: number;
  /** The answer's status; null while the first request is still running. */
  status: number | null;
  /** JSON object of the answer's headers worth replaying (content-type, refkit-*). */
  headers: string | null;
  body: string | null;
}

/** One entry of a participant's reward ledger (../rewards/store/reward-entry-store.ts). Never updated but for its status. */
export interface RewardEntriesTable {
  id: Generated<number>;
  participant_id: number;
  kind: (typeof REWARD_ENTRY_KINDS)[number];
  /** The balance it counts in: the participant's as a referrer (`referral`) or as a referee. */
  reward_kind: 'referral' | 'referee';
  /** In the campaign's reward units, signed: credits add, reversals and redemptions take away. */
  amount: number;
  status: (typeof REWARD_ENTRY_STATUSES)[number];
  available_on: number;
  label: string;
  /** The referee whose referral earned it. */
  referee_id: number | null;
  /** The payment that earned it (commissions) or whose refund reversed it. */
  payment_id: number | null;
  /** What the campaign's ceiling (maxReferralReward) kept back from this credit. */
  capped: Generated<number>;
  created_on: number;
  /** The reward code pool this credit takes a code from once available (../rewards/domain/reward-codes.ts); null: none. */
  code_kind: RewardCodeKind | null;
  /** The open dispute (its id) that holds this pending credit past its availableOn (../rewards/domain/disputes.ts); null: none. */
  held_by_dispute: string | null;
  /** The code it got; null with code_kind set: waiting for the pool to be refilled. */
  code: string | null;
}

export const REWARD_CODE_KINDS = ['referral', 'referee', 'milestone'] as const;
/** A pool's kind: the referrer's fixed referral rewards, the referee's own reward, or milestone bonuses. */
export type RewardCodeKind = (typeof REWARD_CODE_KINDS)[number];

/** A campaign's pool of reward codes of one kind. */
export interface RewardCodePoolsTable {
  campaign_id: string;
  kind: RewardCodeKind;
  /** 1 once reward_codes_low has fired, until a refill brings the pool back to the threshold. */
  low: Generated<number>;
  created_on: number;
}

/** One code of a pool, handed to at most one credit. */
export interface RewardCodesTable {
  id: Generated<number>;
  campaign_id: string;
  kind: RewardCodeKind;
  code: string;
  created_on: number;
  /** When it went to a credit; null while it is in the pool. */
  used_on: number | null;
}

/** A Stripe event a campaign received (../billing/domain/stripe-events.ts), by Stripe's id. */
export interface StripeEventsTable {
  campaign_id: string;
  id: string;
  type: string;
  /** held: in another currency than the campaign's rewards, kept unapplied (../billing/domain/stripe-events.ts). */
  status: 'applied' | 'unmatched' | 'ignored' | 'held';
  /** What it does to a participant: a payment, a refund, a dispute opened or closed; null for events that do none. */
  action: 'payment' | 'refund' | 'dispute' | 'dispute_won' | 'dispute_lost' | null;
  amount_cents: number | null;
  currency: string | null;
  email: string | null;
  /** The referral code the event carried (client_reference_id or metadata.refkit_code). */
  code: string | null;
  customer: string | null;
  charge: string | null;
  payment_intent: string | null;
  participant_id: number | null;
  /** Why it was ignored or held, or is unmatched, in words. */
  reason: string | null;
  created_on: number;
  applied_on: number | null;
  /** The dispute a charge.dispute.* event is about. */
  dispute: string | null;
  /** The Stripe promotion code a payment used (a checkout's or an invoice's discount). */
  promotion_code: string | null;
  /** In the campaign's currency, when a rate converted a held event: what was applied, and how. */
  converted_cents: number | null;
  rate: string | null;
}

/** An account's exchange rates (../billing/domain/exchange-rates.ts). */
export interface ExchangeRatesTable {
  account_id: number;
  base: string;
  /** JSON: units of `base` per one unit of each currency. */
  rates: string;
  as_of: number;
  updated_on: number;
}

/** A payment provider's webhook event (../billing/domain/payment-sources.ts), kept once per provider event. */
export interface PaymentEventsTable {
  campaign_id: string;
  provider: string;
  /** The provider's event id (or what stands for one: Lemon Squeezy's name, id and updated_at). */
  id: string;
  type: string;
  status: 'applied' | 'unmatched' | 'ignored' | 'held';
  action: 'payment' | 'refund' | 'dispute' | 'dispute_won' | 'dispute_lost' | null;
  /** As the provider gave it: hundredths of `currency`. */
  amount_cents: number | null;
  currency: string | null;
  /** In the campaign's currency, when it was another: what was applied. */
  converted_cents: number | null;
  /** How it was converted: the provider's own settlement, or the account's rate (units of the campaign's currency per unit). */
  rate: string | null;
  email: string | null;
  /** The participant's own referral code the event carried (custom data). */
  code: string | null;
  /** A referral code used as a discount code: its owner is the buyer's referrer. */
  referrer_code: string | null;
  customer: string | null;
  /** The provider's order or transaction id. */
  reference: string | null;
  /** JSON array of the ids that name the participant for later events. */
  link_keys: string;
  refund_total_key: string | null;
  dispute: string | null;
  participant_id: number | null;
  reason: string | null;
  created_on: number;
  applied_on: number | null;
}

export type PromotionCodeStatus = 'queued' | 'active' | 'failed' | 'deactivating' | 'inactive';

/** A participant's Stripe promotion code for one code text and discount generation (../promotions/store/promotion-code-store.ts). */
export interface PromotionCodesTable {
  id: Generated<number>;
  campaign_id: string;
  participant_id: number;
  /** The Refkit referral code it is for (the participant's, or an alias of theirs). */
  code: string;
  /** The text Stripe has: the campaign's promotionCodePrefix, then the code. */
  stripe_code: string;
  generation: number;
  stripe_id: string | null;
  status: PromotionCodeStatus;
  /** Why it is not made (or not deactivated) yet, in words. */
  reason: string | null;
  idempotency_key: string;
  attempts: Generated<number>;
  next_attempt_on: number | null;
  claimed_until: number | null;
  created_on: number;
  updated_on: number;
}

/** The utm_* of the page a participant signed up on (addParticipant's utm). */
export interface ParticipantChannelsTable {
  participant_id: number;
  campaign_id: string;
  source: string | null;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
}

/** A participant's earlier referral codes, still theirs. */
export interface ReferralCodeAliasesTable {
  campaign_id: string;
  code: string;
  participant_id: number;
  created_on: number;
}

/** A referee's payment disputed (../rewards/domain/disputes.ts). */
export interface DisputesTable {
  campaign_id: string;
  /** Stripe's dispute id, or the caller's (disputePayment's disputeId), or one made up. */
  id: string;
  participant_id: number;
  payment_id: number;
  amount_cents: number;
  /** The commission taken back from an available balance when it opened (reward units); given back if won. */
  reversed: Generated<number>;
  status: 'open' | 'won' | 'lost';
  opened_on: number;
  closed_on: number | null;
}

/** A Stripe id (customer:, charge:, pi:) that names a participant of a campaign. */
export interface StripeLinksTable {
  campaign_id: string;
  key: string;
  participant_id: number;
  /** For a charge: what of it was refunded so far. */
  refunded_cents: Generated<number>;
}

export type StripeRewardMode = 'off' | 'balance' | 'promotion_code';
export type StripePayoutStatus = 'queued' | 'waiting' | 'paid' | 'failed';

/** A refund of a payment, dated (migration 0029; refunds made before have no row): ../rewards/store/refund-store.ts. */
export interface RefundsTable {
  id: Generated<number>;
  campaign_id: string;
  payment_id: number;
  cents: number;
  refunded_on: number;
}

/** A credit to pay into Stripe (../payouts/domain/stripe-payouts.ts): the outbox of Stripe credit out. */
export interface StripePayoutsTable {
  id: Generated<number>;
  campaign_id: string;
  participant_id: number;
  reward_kind: 'referral' | 'referee';
  /** In reward units (whole units of the currency). */
  amount: number;
  /** The campaign's reward currency when the credit became available (ISO, upper case). */
  currency: string;
  mode: Exclude<StripeRewardMode, 'off'>;
  label: string;
  idempotency_key: string;
  generation: Generated<number>;
  status: StripePayoutStatus;
  attempts: Generated<number>;
  next_attempt_on: number | null;
  claimed_until: number | null;
  /** Stripe's error message, or why it waits, in words. */
  last_error: string | null;
  customer: string | null;
  /** Stripe's object: the customer balance transaction (cbtxn_...) or promotion code (promo_...). */
  stripe_id: string | null;
  /** The code a customer types, in promotion_code mode. */
  promotion_code: string | null;
  created_on: number;
  updated_on: number;
  paid_on: number | null;
}

export const CASH_PAYOUT_STATUSES = ['pending_approval', 'sending', 'sent', 'paid', 'failed', 'returned', 'unclaimed', 'cancelled'] as const;
export type CashPayoutStatus = (typeof CASH_PAYOUT_STATUSES)[number];
export type PayoutMethodName = 'paypal' | 'stripe_connect';

/** A cash payout (../payouts/domain/payout-runs.ts): an outbox row, written with the reservation of its amount. */
export interface CashPayoutsTable {
  id: Generated<number>;
  campaign_id: string;
  participant_id: number;
  /** The createPayouts call that made it: a run, whose CSV the dashboard offers. */
  run_id: string;
  /** What it takes of each balance, in reward units (whole units of the currency). */
  referral_amount: number;
  referee_amount: number;
  currency: string;
  method: PayoutMethodName;
  /** The PayPal address or Stripe Connect account it is paid to, as when it was made. */
  destination: string;
  status: CashPayoutStatus;
  /** Why it waits, failed, was returned or cancelled, in words. */
  reason: string | null;
  idempotency_key: string;
  batch_key: string | null;
  provider_batch_id: string | null;
  provider_id: string | null;
  attempts: Generated<number>;
  next_attempt_on: number | null;
  claimed_until: number | null;
  created_on: number;
  updated_on: number;
  sent_on: number | null;
  settled_on: number | null;
}

export interface PayoutMethodsTable {
  participant_id: number;
  campaign_id: string;
  method: PayoutMethodName;
  paypal_email: string | null;
  /** The participant's Stripe Connect Express account (acct_...), once made. */
  stripe_account: string | null;
  stripe_payouts_enabled: Generated<number>;
  updated_on: number;
}

export interface TaxDetailsTable {
  participant_id: number;
  form: 'w9' | 'w8ben';
  legal_name: string;
  /** The TIN encrypted with REFKIT_ENCRYPTION_KEY (../kernel/sealed.ts). */
  tin_sealed: string;
  tin_last4: string;
  address: string;
  country: string;
  created_on: number;
  updated_on: number;
  /** Of an erased participant's, kept as a payer must keep what it reported on: deleted by the retention pruner from then. */
  keep_until: number | null;
}

export interface PayoutCredentialsTable {
  account_id: number;
  provider: 'paypal' | 'stripe';
  /** 1: live campaigns' (PayPal live, Stripe live keys); 0: test campaigns' (PayPal sandbox, Stripe test keys). */
  live: number;
  /** PayPal's client id; null for Stripe. */
  client_id: string | null;
  /** PayPal's client secret or Stripe's secret key: write-only. */
  secret: string | null;
  /** PayPal's webhook id, or Stripe's Connect webhook signing secret (write-only). */
  webhook: string | null;
  updated_on: number;
}

export interface TaxSettingsTable {
  account_id: number;
  /** JSON: {"2026": 2000, ...}, the yearly amount (USD) past which tax details are needed. */
  thresholds: string;
  retention_years: number;
  updated_on: number;
}

export interface PortalLinksTable {
  token_hash: string;
  participant_id: number;
  campaign_id: string;
  expires_on: number;
  used_on: number | null;
  created_on: number;
}

export interface PortalSessionsTable {
  token_hash: string;
  participant_id: number;
  campaign_id: string;
  csrf_token: string;
  expires_on: number;
  created_on: number;
}

/** A participant's place on one board of a campaign (../engagement/store/leaderboard-store.ts). */
export interface BoardEntriesTable {
  campaign_id: string;
  board: string;
  participant_id: number;
  /** Qualified referrals counted on this board. */
  score: number;
  /** When the entry reached its score, as a global arrival order: ties go to the lower. */
  seq: number;
}

/** How many entries of a board have a score (blocks: within one block of arrivals). */
export interface BoardLevelsTable {
  campaign_id: string;
  board: string;
  score: number;
  n: number;
}
export interface BoardBlocksTable extends BoardLevelsTable {
  /** Arrivals per block: BOARD_BLOCK or BOARD_SPAN (../engagement/store/leaderboard-store.ts). */
  span: number;
  block: number;
}

/** A campaign's waitlist counters (../engagement/store/waitlist-store.ts). */
export interface WaitlistsTable {
  campaign_id: string;
  /** Sign-ups numbered so far: the next one's seq. */
  joined: number;
  /** Entries let in. */
  granted: number;
}

/** A participant's place in a campaign's waitlist (../engagement/store/waitlist-store.ts). */
export interface WaitlistEntriesTable {
  participant_id: number;
  campaign_id: string;
  /** The sign-up number in the campaign, from 0, dense. */
  seq: number;
  /** seq - spotsPerReferral x counted referrals: lower is nearer the front, ties by seq. */
  wait_key: number;
  granted_on: number | null;
}

/** A bucket's count of waiting entries less its sign-up baseline (../engagement/store/waitlist-store.ts). */
/** One referred sign-up's addition to its referrer's count, not yet folded into participants.total_referrals. */
export interface ReferralCountDeltasTable {
  referrer_id: number;
  n: number;
  created_on: number;
}

export interface WaitlistDeltasTable {
  campaign_id: string;
  bucket: number;
  n: number;
}

/** An owner's subject and body of one lifecycle email in one language. */
export interface EmailTextsTable {
  campaign_id: string;
  kind: string;
  locale: string;
  subject: string;
  body: string;
  updated_on: number;
}

/** The lifecycle email outbox (../emails/store/email-store.ts). */
export interface EmailOutboxTable {
  id: string;
  campaign_id: string;
  participant_id: number;
  kind: string;
  /** What caused it (`signup`, `referral:<id>`, ...): with participant and kind, unique. */
  change_key: string;
  /** JSON of what the change knew (an amount, a reward code, a friend's name), for the email's variables. */
  data: string;
  /** The recipient's email domain, set when sent: what the per-domain throttle counts. */
  domain: string | null;
  status: 'pending' | 'sent' | 'failed' | 'skipped';
  attempt_count: Generated<number>;
  next_attempt_on: number | null;
  claimed_until: number | null;
  last_error: string | null;
  created_on: number;
  updated_on: number;
  sent_on: number | null;
}

export interface EmailUnsubscribesTable {
  participant_id: number;
  campaign_id: string;
  created_on: number;
}

/** An account's salt of the erased addresses' hashes (../privacy/store/person-store.ts), made by its first erasure. */
export interface ErasureSaltsTable {
  account_id: number;
  /** 32 random bytes, hex. */
  salt: string;
  created_on: number;
}

/** An address erased from an account: HMAC-SHA256 of its mailbox (emailKey) under the account's salt, hex. */
export interface ErasedAddressesTable {
  account_id: number;
  address_hash: string;
  /** The latest erasure of the address: the re-sign-up block counts from here. */
  erased_on: number;
}

/** An account's retention settings (migration 0025_retention); no row: the defaults. */
export interface AccountSettingsTable {
  account_id: number;
  /** Days a participant's sign-up IP and network are kept; 0: never stored. */
  ip_days: number;
  /** Days delivered webhook events (and their deliveries and attempts) are kept. */
  webhook_days: number;
  /** Days sent, failed and skipped lifecycle emails stay in the log. */
  email_days: number;
  /** JSON of the account's Blocklist, applied to every campaign beside its own (migration 0036); null: none. */
  blocklist: Generated<string | null>;
  updated_on: number;
}

/** Per account: every participant who signed up before this has no IP or network stored any more. */
export interface RetentionMarksTable {
  account_id: number;
  ips_cleared_before: number;
}

export type { FraudCaseStatus };

/** Signals grouped per referrer for the owner to approve or reject as a whole (migration 0036). */
export interface FraudCasesTable {
  id: Generated<number>;
  campaign_id: string;
  /** The referrer the case is about (the participant themself when nobody referred them). */
  participant_id: number;
  status: FraudCaseStatus;
  opened_on: number;
  resolved_on: number | null;
  /** Who decided: the actor's audit name. */
  resolved_by: string | null;
}

/** A rule that matched a participant and held them: once per participant and kind, in a case. */
export interface FraudSignalsTable {
  id: Generated<number>;
  campaign_id: string;
  case_id: number;
  participant_id: number;
  kind: FraudSignalKind;
  detail: string;
  created_on: number;
}

/** What a participant paid with: a card's fingerprint, or the provider's customer id. */
export interface PaymentMarksTable {
  campaign_id: string;
  kind: 'card' | 'customer';
  value: string;
  participant_id: number;
  created_on: number;
}

/** A lease per background job that one process at a time may run. */
export interface JobLeasesTable {
  name: string;
  holder: string | null;
  until: number;
}

/** Columns wrapped in Generated<> have database defaults, so inserts may leave them out. */
export interface Database {
  account_settings: AccountSettingsTable;
  retention_marks: RetentionMarksTable;
  job_leases: JobLeasesTable;
  email_texts: EmailTextsTable;
  email_outbox: EmailOutboxTable;
  email_unsubscribes: EmailUnsubscribesTable;
  accounts: AccountsTable;
  campaigns: CampaignsTable;
  participants: ParticipantsTable;
  api_keys: ApiKeysTable;
  campaign_clocks: CampaignClocksTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  participant_tokens: ParticipantTokensTable;
  pending_signups: PendingSignupsTable;
  email_links: EmailLinksTable;
  impressions: ImpressionsTable;
  users: UsersTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  audit_log: AuditLogTable;
  signin_failures: SigninFailuresTable;
  participant_reviews: ParticipantReviewsTable;
  campaign_daily_stats: CampaignDailyStatsTable;
  campaign_counters: CampaignCountersTable;
  waitlists: WaitlistsTable;
  waitlist_entries: WaitlistEntriesTable;
  waitlist_deltas: WaitlistDeltasTable;
  referral_count_deltas: ReferralCountDeltasTable;
  cache_epoch: CacheEpochTable;
  idempotency_keys: IdempotencyKeysTable;
  reward_entries: RewardEntriesTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  stripe_events: StripeEventsTable;
  promotion_codes: PromotionCodesTable;
  payment_events: PaymentEventsTable;
  exchange_rates: ExchangeRatesTable;
  fraud_cases: FraudCasesTable;
  fraud_signals: FraudSignalsTable;
  payment_marks: PaymentMarksTable;
  referral_code_aliases: ReferralCodeAliasesTable;
  participant_channels: ParticipantChannelsTable;
  disputes: DisputesTable;
  stripe_links: StripeLinksTable;
  reward_code_pools: RewardCodePoolsTable;
  reward_codes: RewardCodesTable;
  stripe_payouts: StripePayoutsTable;
  cash_payouts: CashPayoutsTable;
  payout_methods: PayoutMethodsTable;
  tax_details: TaxDetailsTable;
  payout_credentials: PayoutCredentialsTable;
  tax_settings: TaxSettingsTable;
  portal_links: PortalLinksTable;
  portal_sessions: PortalSessionsTable;
  board_entries: BoardEntriesTable;
  board_levels: BoardLevelsTable;
  board_blocks: BoardBlocksTable;
  board_seq: { n: number };
  erasure_salts: ErasureSaltsTable;
  erased_addresses: ErasedAddressesTable;
}
