/**
 * All SQL lives here. Each method is one statement or one short transaction, written once with Kysely
 * for both SQLite and PostgreSQL. Rules that must hold under concurrency are single conditional
 * statements (`UPDATE ... WHERE <precondition>`), whose affected-row count tells the caller whether it
 * won, or unique constraints; never a read followed by a write.
 */
import type { Utm } from '../../api/schemas.js';
import { sql, type Kysely, type Selectable, type Insertable, type Updateable } from 'kysely';
import type { ApiKeysTable, CampaignsTable, Database, EmailLinksTable, ParticipantsTable, PendingSignupsTable } from './tables.js';
import { Caches, codeOwnerKey, type CodeOwner } from './caches.js';
import type { Dialect } from './connect.js';
import { truncateWal } from './group-commit.js';
import { DirectoryStore } from '../referrals/store/directory-store.js';
import { AuditStore } from '../accounts/store/audit-store.js';
import { InvitationStore } from '../accounts/store/invitation-store.js';
import { OwnerStore } from '../accounts/store/owner-store.js';
import { ParticipantTokenStore } from '../referrals/store/participant-token-store.js';
import { builtWrite, directUnit, prepare, preparedWrite, runAsOne, type Write } from './prepared.js';
import { ImpressionBuffer, type Impression } from '../referrals/store/impression-buffer.js';
import { writeImpressions } from '../referrals/store/impression-writes.js';
import {
  ASSUMPTION_FAILED,
  assumedSignupFacts,
  factsHold,
  readSignupFacts,
  SignupFactsChanged,
  type SignupAssumption,
  type SignupFacts,
  type SignupQuestion,
} from '../referrals/store/signup-reads.js';
import { COUNTER_SHARDS, dayOf, StatsStore } from './stats-store.js';
import { SignupBatches } from '../referrals/store/signup-batch.js';
import { byEmail, PointReads } from './point-reads.js';
import { RewardEntryStore } from '../rewards/store/reward-entry-store.js';
import { PaymentStore } from '../rewards/store/payment-store.js';
import { DisputeStore } from '../rewards/store/dispute-store.js';
import { BacktestStore } from '../rewards/store/backtest-store.js';
import { RefundStore } from '../rewards/store/refund-store.js';
import { PaymentEventStore } from '../billing/store/payment-event-store.js';
import { ExchangeRateStore } from '../billing/store/exchange-rate-store.js';
import { StripeStore } from '../billing/store/stripe-store.js';
import { StripePayoutStore } from '../payouts/store/stripe-payout-store.js';
import { PromotionCodeStore } from '../promotions/store/promotion-code-store.js';
import { FraudCaseStore } from '../fraud/store/fraud-case-store.js';
import { PaymentMarkStore } from '../fraud/store/payment-mark-store.js';
import { CashPayoutStore } from '../payouts/store/cash-payout-store.js';
import { PayoutProfileStore } from '../payouts/store/payout-profile-store.js';
import { PortalStore } from '../portal/store/portal-store.js';
import { LeaderboardStore } from '../engagement/store/leaderboard-store.js';
import { WaitlistStore } from '../engagement/store/waitlist-store.js';
import { PersonStore } from '../privacy/store/person-store.js';
import { RewardCodeStore } from '../rewards/store/reward-code-store.js';
import { ReferralCodeStore } from '../referrals/store/referral-code-store.js';
import { WebhookStore, type OutboxEvent } from '../webhooks/store/webhook-store.js';
import { EmailStore, type NewEmail } from '../emails/store/email-store.js';
import { AccountSettingsStore } from '../accounts/store/account-settings-store.js';
import { RetentionStore } from '../privacy/store/retention-store.js';
import { countedRow, participantById, referralDelta, ReferralCountStore } from './referral-count-store.js';
import { PlannerStatistics } from './planner-statistics.js';
import { CampaignClockStore } from './campaign-clock-store.js';
import { bound } from './bound-limit.js';
import { AnswerReads } from '../referrals/store/answer-reads.js';
import { participantPages, type ParticipantFilter } from '../referrals/store/participant-pages.js';
import type { ListStart } from './list-start.js';

/** A campaign's settings. Its participant count changes with every sign-up: read it with countParticipants. */
export type CampaignRow = Selectable<CampaignsTable>;
export type ParticipantRow = Selectable<ParticipantsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
/** The columns a new participant is inserted with; the others start at the migrations' defaults (NEW_PARTICIPANT_DEFAULTS). */
export type NewParticipant = Pick<
  Insertable<ParticipantsTable>,
  | 'campaign_id'
  | 'email'
  | 'email_key'
  | 'first_name'
  | 'last_name'
  | 'code'
  | 'referred_by_id'
  | 'referred_by_code'
  | 'created_on'
  | 'updated_on'
  | 'signup_source'
  | 'signup_ip'
  | 'signup_net'
  | 'fraud_score'
  | 'approval'
  | 'locale'
>;
export type PendingSignupRow = Selectable<PendingSignupsTable>;
export type EmailLinkRow = Selectable<EmailLinksTable>;
export type RewardKind = 'referral' | 'referee';

/** What a Store shares with the stores of its transactions. */
export interface StoreOptions {
  /** Campaigns, key hashes and webhook endpoints held in the process (./caches.ts). */
  caches?: Caches;
  ids?: IdReserve;
  /** New visitors' impressions waiting to be written together (../referrals/store/impression-buffer.ts). */
  impressions?: ImpressionBuffer;
  /** Whether lifecycle emails are written to the outbox: only where they can be sent (SMTP_URL set). */
  emailOutbox?: boolean;
  /** A transaction's store: the service's database, for what runs after the commit. */
  root?: Kysely<Database>;
}

/** Everything a new participant's sign-up writes (Store.insertSignup). */
export interface NewSignup {
  participant: NewParticipant & { created_on: number };
  /** Earlier referees of this referrer from this network, held back with this one (fraud: squatting). */
  hold?: { referrerId: number; net: string };
  /** The created event, whose payload is made from the new row; none when no endpoint selected it. */
  event?: OutboxEvent;
  /** The lifecycle emails the sign-up causes (welcome, friend joined), made from the new row. */
  emails?: (participant: ParticipantRow) => NewEmail[];
  /** The hash of the participant token issued to the browser that signed up. */
  tokenHash?: string;
  /** The utm_* of the page they signed up on, when there were some. */
  channel?: Utm;
  /** Facts the sign-up was decided on without reading them (../referrals/store/signup-reads.ts): its write checks them. */
  assumed?: SignupAssumption;
}

/** A channel's values in the order of signupWrites.channel's parameters. */
const channelValues = (u: Utm) => [u.source ?? null, u.medium ?? null, u.campaign ?? null, u.term ?? null, u.content ?? null] as const;

const ID_BLOCK = 64;

/**
 * PostgreSQL participant ids taken from the sequence ahead of need (ID_BLOCK at a time), so that a
 * sign-up knows its id, and so its event's payload, before its one statement.
 */
export class IdReserve {
  #ids: number[] = [];
  async take(db: Kysely<Database>): Promise<number> {
    if (this.#ids.length === 0) {
      const r = await sql<{ id: number }>`select nextval(pg_get_serial_sequence('participants', 'id')) as id from generate_series(1, ${ID_BLOCK})`.execute(db);
      this.#ids.push(...r.rows.map((row) => Number(row.id)));
    }
    return this.#ids.shift()!;
  }
}

/** What the database fills in for a new participant (the defaults of the migrations). */
const NEW_PARTICIPANT_DEFAULTS = {
  first_name: null,
  last_name: null,
  referred_by_id: null,
  referred_by_code: null,
  signup_ip: null,
  signup_net: null,
  fraud_score: '',
  approval: 1,
  reward_event_completed: 0,
  reward_event_completed_on: null,
  reward_credited: 0,
  referral_reward: 0,
  referral_reward_redeemed: 0,
  referee_reward: 0,
  referee_reward_redeemed: 0,
  total_referrals: 0,
  total_completed_referred: 0,
  amount_paid_cents: 0,
  payment_count: 0,
  revenue_generated_cents: 0,
  impression_count: 0,
  commission_remainder: 0,
  referral_reward_owed: 0,
  referee_reward_owed: 0,
  referral_reward_reserved: 0,
  referee_reward_reserved: 0,
  credited_referrals: 0,
  milestones_reached: 0,
  refunded: 0,
  last_payment_id: null,
  locale: 'en',
} satisfies Omit<ParticipantRow, 'id' | 'campaign_id' | 'email' | 'email_key' | 'code' | 'created_on' | 'updated_on' | 'signup_source'>;

/**
 * A new participant's row but for its id: the defaults, then its own values. Object.assign, not spread:
 * V8 took 15-19 µs to spread these two objects into one (their keys overlap), about 4% of a sign-up's
 * CPU; Object.assign takes about 2.
 */
const withDefaults = (p: NewParticipant): Omit<ParticipantRow, 'id'> => Object.assign({}, NEW_PARTICIPANT_DEFAULTS, p) as Omit<ParticipantRow, 'id'>;

/** A new participant's columns, in the order of signupWrites' parameters (ParticipantValues). */
const PARTICIPANT_COLUMNS = [
  'campaign_id',
  'email',
  'email_key',
  'first_name',
  'last_name',
  'code',
  'referred_by_id',
  'referred_by_code',
  'created_on',
  'updated_on',
  'signup_source',
  'signup_ip',
  'signup_net',
  'fraud_score',
  'approval',
  'locale',
] as const satisfies readonly (keyof NewParticipant)[];
type NewParticipantRow = { [K in (typeof PARTICIPANT_COLUMNS)[number]]-?: Exclude<NewParticipant[K], undefined> };
type ValuesOf<C extends readonly (keyof NewParticipantRow)[]> = { -readonly [I in keyof C]: C[I] extends keyof NewParticipantRow ? NewParticipantRow[C[I]] : never };
/** A new participant's values, one per PARTICIPANT_COLUMNS entry, typed by its column. */
type ParticipantValues = ValuesOf<typeof PARTICIPANT_COLUMNS>;

const participantValues = (p: NewParticipantRow): ParticipantValues => PARTICIPANT_COLUMNS.map((c) => p[c]) as ParticipantValues;

/** The insert's columns from the values (or from their slots, when a prepared query is built). */
const participantColumns = (values: ParticipantValues): NewParticipantRow =>
  Object.fromEntries(PARTICIPANT_COLUMNS.map((c, i) => [c, values[i]])) as NewParticipantRow;

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';
const isDeadlock = (err: unknown) => (err as { code?: string }).code === '40P01';
/**
 * What a sign-up's write that failed answers: undefined for a taken email or code; for one decided on
 * assumed facts, SignupFactsChanged (the email was assumed free, so a taken one is an assumption that
 * failed, as a changed count is); any other error as it is.
 */
function signupFailed(err: unknown, assumed: SignupAssumption | undefined): undefined {
  if (assumed && (isUniqueViolation(err) || (err as { code?: string }).code === ASSUMPTION_FAILED)) throw new SignupFactsChanged();
  if (isUniqueViolation(err)) return undefined;
  throw err;
}

/** A statement PostgreSQL ended to break a deadlock is run again, up to this many times in all. */
const DEADLOCK_ATTEMPTS = 5;

// The hot reads, built and compiled once (./prepared.ts).
const participantBy = {
  email: byEmail((db) => db.selectFrom('participants').select(countedRow('participants'))),
  code: prepare((db, campaignId: string, code: string) =>
    db.selectFrom('participants').select(countedRow('participants')).where('campaign_id', '=', campaignId).where('code', '=', code),
  ),
  id: participantById,
};
/** The holder of an earlier code of theirs (an alias), with their current code. */
const aliasOwner = prepare((db, campaignId: string, code: string) =>
  db
    .selectFrom('referral_code_aliases as a')
    .innerJoin('participants as p', 'p.id', 'a.participant_id')
    .select(['p.id', 'p.code', 'p.email', 'p.signup_net'])
    .where('a.campaign_id', '=', campaignId)
    .where('a.code', '=', code),
);
/** The holder of a code: the fields of it that never change (./caches.ts). */
const codeOwner = prepare((db, campaignId: string, code: string) =>
  db.selectFrom('participants').select(['id', 'code', 'email', 'signup_net']).where('campaign_id', '=', campaignId).where('code', '=', code),
);
// The writes of every sign-up (and of imports), compiled once: Kysely's building and compiling of them
// cost a sign-up more CPU than SQLite took to run them.
const signupWrites = {
  participant: prepare((db, ...values: ParticipantValues) =>
    db.insertInto('participants').values(participantColumns(values)).onConflict((oc) => oc.doNothing()).returningAll(),
  ),
  /** SQLite's form in a unit of the group commit (insertSignup): nothing returned but the changes and the rowid. */
  participantQuiet: prepare((db, ...values: ParticipantValues) => db.insertInto('participants').values(participantColumns(values)).onConflict((oc) => oc.doNothing())),
  /**
   * PostgreSQL's form (#insertSignupPostgres): the id taken ahead from the sequence, a taken email or code
   * an error. It returns the id alone: the row is the one the caller built (its values and the
   * migrations' defaults, NEW_PARTICIPANT_DEFAULTS), and the driver's reading of a whole returned row
   * (its 37 columns described, a parser looked up and run for each) was work per sign-up for nothing.
   */
  participantWithId: prepare((db, id: number, ...values: ParticipantValues) =>
    db.insertInto('participants').values({ id, ...participantColumns(values) }).returning('id'),
  ),
  /** The same for a sign-up decided on assumed facts: its RETURNING checks them (or fails the statement). */
  participantAssumed: prepare((db, referrerId: number | null, net: string | null, signupsSince: number, id: number, ...values: ParticipantValues) =>
    db
      .insertInto('participants')
      .values({ id, ...participantColumns(values) })
      .returning('id')
      .returning(factsHold({ campaignId: values[0], referrerId, net, signupsSince }).as('facts_hold')),
  ),
  token: prepare((db, hash: string, participantId: number, now: number) =>
    db.insertInto('participant_tokens').values({ hash, participant_id: participantId, created_on: now, revoked_on: null }),
  ),
  channel: prepare((db, participantId: number, campaignId: string, source: string | null, medium: string | null, campaign: string | null, term: string | null, content: string | null) =>
    db.insertInto('participant_channels').values({ participant_id: participantId, campaign_id: campaignId, source, medium, campaign, term, content }),
  ),
};
/** What the reward engine reads of a participant it is about to credit or reverse (RewardState). */
const REWARD_STATE = [
  'id',
  'campaign_id',
  'reward_credited',
  'referral_reward',
  'referral_reward_redeemed',
  'referee_reward',
  'referee_reward_redeemed',
  'referral_reward_owed',
  'referee_reward_owed',
  'referral_reward_reserved',
  'referee_reward_reserved',
  'credited_referrals',
  'milestones_reached',
  'commission_remainder',
  'approval',
] as const satisfies readonly (keyof ParticipantRow)[];
export type RewardState = Pick<ParticipantRow, (typeof REWARD_STATE)[number]>;

// The writes of qualifying (and of every repeated qualify with amountPaid), compiled once: built by
// Kysely on every call, they were 7.5% of a qualify load's main thread, and their garbage most of its 9%
// of collection.
const qualifyWrites = {
  lock: prepare((db, id: number) => db.selectFrom('participants').select(REWARD_STATE).where('id', '=', id).forNoKeyUpdate()),
  state: prepare((db, id: number) => db.selectFrom('participants').select(REWARD_STATE).where('id', '=', id)),
  /** Returns the row's id only when this call completed the event. */
  complete: prepare((db, id: number, now: number) =>
    db
      .updateTable('participants')
      .set({ reward_event_completed: 1, reward_event_completed_on: now, refunded: 0, updated_on: now })
      .where('id', '=', id)
      .where('reward_event_completed', '=', 0)
      .returning('id'),
  ),
  completedReferred: prepare((db, referrerId: number, now: number) =>
    db
      .updateTable('participants')
      .set((eb) => ({ total_completed_referred: eb('total_completed_referred', '+', 1), updated_on: now }))
      .where('id', '=', referrerId),
  ),
};
const signupsFromNet = prepare((db, campaignId: string, net: string, since: number, cap: number) =>
  db
    .selectFrom((eb) =>
      eb
        .selectFrom('participants')
        .select('id')
        .where('campaign_id', '=', campaignId)
        .where('signup_net', '=', net)
        .where('created_on', '>=', since)
        .limit(bound(cap))
        .as('capped'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n')),
);
const refereesFromNet = prepare((db, referrerId: number, net: string, cap: number) =>
  db
    .selectFrom((eb) => eb.selectFrom('participants').select('id').where('referred_by_id', '=', referrerId).where('signup_net', '=', net).limit(bound(cap)).as('capped'))
    .select((eb) => eb.fn.countAll<number | string>().as('n')),
);
/** Pages of whole counted rows (../referrals/store/participant-pages.ts). */
const pages = participantPages<ParticipantRow>(countedRow('participants'));
const apiKeyByHash = prepare((db, hash: string) => db.selectFrom('api_keys').selectAll().where('hash', '=', hash));

export type { ListStart };
export type { ParticipantFilter };
/** The ledger's rows as other capabilities' rules read them (presenting a participant's rewards). */
export type { ListedRewardEntry, RewardEntryRow } from '../rewards/store/reward-entry-store.js';

export class Store {
  /** The webhook outbox, over the same connection (and so the same transaction) as this store. */
  readonly webhooks: WebhookStore;
  /** Dashboard owners and their sessions. */
  readonly owners: OwnerStore;
  /** Invitations to join an account. */
  readonly invitations: InvitationStore;
  /** The audit log (append-only). */
  readonly audit: AuditStore;
  /** Participant tokens: who one proves, revoking them (issued with a sign-up, or by insertParticipantToken). */
  readonly tokens: ParticipantTokenStore;
  /** Per-campaign daily counters of the dashboard's analytics. */
  readonly stats: StatsStore;
  /** The owner's participant table: search, orders, review state. */
  readonly directory: DirectoryStore;
  /** The reward ledger, over the same connection (and so the same transaction) as this store. */
  readonly rewardEntries: RewardEntryStore;
  /** Referees' payments, for commissions and refunds. */
  readonly payments: PaymentStore;
  /** Disputed payments, and the credits they hold. */
  readonly disputes: DisputeStore;
  /** Refunds of payments, dated. */
  readonly refunds: RefundStore;
  /** The offer backtest's reads (read only). */
  readonly backtest: BacktestStore;
  /** Stripe events received, and the Stripe ids that name participants. */
  readonly stripe: StripeStore;
  /** Other payment providers' events received (Paddle, Lemon Squeezy, Shopify, Chargebee, Segment). */
  readonly paymentEvents: PaymentEventStore;
  /** The owner's exchange rates, and the events held for their currency. */
  readonly exchangeRates: ExchangeRateStore;
  readonly stripePayouts: StripePayoutStore;
  /** Participants' Stripe promotion codes: the outbox that makes and deactivates them. */
  readonly promotionCodes: PromotionCodeStore;
  /** Fraud cases and the signals that held participants (../fraud/). */
  readonly fraudCases: FraudCaseStore;
  /** What participants paid with: self-referral by payment (../fraud/domain/payment-marks.ts). */
  readonly paymentMarks: PaymentMarkStore;
  /** Cash payouts (PayPal, Stripe Connect) and the reservations of their amounts. */
  readonly cashPayouts: CashPayoutStore;
  /** Payout methods, tax details, an account's payout providers and tax settings. */
  readonly payoutProfiles: PayoutProfileStore;
  /** The referrer's portal: its emailed sign-in links and its sessions. */
  readonly portal: PortalStore;
  /** Reward code pools, over the same connection (and so the same transaction) as this store. */
  readonly rewardCodes: RewardCodeStore;
  /** Vanity codes: a participant's code replaced, the old one kept as their alias. */
  readonly referralCodes: ReferralCodeStore;
  /** Leaderboards, over the same connection (and so the same transaction) as this store. */
  readonly leaderboards: LeaderboardStore;
  /** The lifecycle email outbox, texts and unsubscribes, over the same connection as this store. */
  readonly emails: EmailStore;
  /** Waitlists, over the same connection (and so the same transaction) as this store. */
  readonly waitlists: WaitlistStore;
  /** Everything stored about one address: its export and erasure, and the erased addresses. */
  readonly people: PersonStore;
  /** Each account's settings (retention), cached. */
  readonly accountSettings: AccountSettingsStore;
  /** The retention pruner's lease, progress and batches. */
  readonly retention: RetentionStore;
  /** Referral counts added by sign-ups and not yet folded into participants.total_referrals, and their folds. */
  readonly referralCounts: ReferralCountStore;
  /** PostgreSQL's statistics of participants, analysed as the table grows. */
  readonly plannerStatistics: PlannerStatistics;
  /** Test campaigns' clocks. */
  readonly clocks: CampaignClockStore;
  /** The interface's answers about participants: only the columns they show. */
  readonly answers: AnswerReads;

  readonly caches: Caches;
  /** In a transaction's store: what to do once it has committed. */
  readonly #afterCommit: (() => void | Promise<void>)[] | undefined;
  /** The service's database (this store's own outside a transaction). */
  readonly #root: Kysely<Database>;
  readonly #ids: IdReserve;
  /** PostgreSQL, outside a transaction: sign-ups written together (../referrals/store/signup-batch.ts). */
  readonly #signupBatches: SignupBatches | undefined;
  readonly #byEmail: PointReads<ParticipantRow>;
  readonly #impressions: ImpressionBuffer;

  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: Dialect,
    options: StoreOptions = {},
    afterCommit?: (() => void | Promise<void>)[],
  ) {
    this.#root = options.root ?? db;
    this.caches = options.caches ?? new Caches();
    this.#ids = options.ids ?? new IdReserve();
    this.#impressions = options.impressions ?? new ImpressionBuffer((batch) => writeImpressions(db, dialect, batch));
    this.#afterCommit = afterCommit;
    this.webhooks = new WebhookStore(db, dialect, this.caches, () => this.changedCached());
    this.owners = new OwnerStore(db, dialect);
    this.invitations = new InvitationStore(db);
    this.audit = new AuditStore(db);
    this.tokens = new ParticipantTokenStore(db);
    this.stats = new StatsStore(db, COUNTER_SHARDS[dialect], afterCommit !== undefined);
    // PostgreSQL outside a transaction: the sign-ups, and the reads by address, that arrive together go
    // as one statement (../referrals/store/signup-batch.ts, ./point-reads.ts).
    const batched = dialect === 'postgres' && !afterCommit;
    this.#signupBatches = batched
      ? new SignupBatches(db, (campaignId, day, signups, referred) => {
          const { count, daily } = this.stats.signupWrites(campaignId, day, signups, referred);
          return [count, daily];
        })
      : undefined;
    this.directory = new DirectoryStore(db, dialect);
    this.rewardEntries = new RewardEntryStore(db, dialect, afterCommit !== undefined);
    this.payments = new PaymentStore(db, dialect, this.stats);
    this.disputes = new DisputeStore(db);
    this.refunds = new RefundStore(db);
    this.backtest = new BacktestStore(db, dialect);
    this.stripe = new StripeStore(db);
    this.paymentEvents = new PaymentEventStore(db);
    this.exchangeRates = new ExchangeRateStore(db);
    this.stripePayouts = new StripePayoutStore(db, dialect);
    this.promotionCodes = new PromotionCodeStore(db, dialect, () => this.changedCached());
    this.fraudCases = new FraudCaseStore(db);
    this.paymentMarks = new PaymentMarkStore(db);
    this.cashPayouts = new CashPayoutStore(db, dialect);
    this.payoutProfiles = new PayoutProfileStore(db);
    this.portal = new PortalStore(db, dialect);
    this.rewardCodes = new RewardCodeStore(db, dialect);
    this.referralCodes = new ReferralCodeStore(db);
    this.leaderboards = new LeaderboardStore(db, dialect);
    this.emails = new EmailStore(db, dialect, options.emailOutbox ?? false, () => this.changedCached());
    this.waitlists = new WaitlistStore(db, dialect);
    this.people = new PersonStore(db, dialect, this.caches);
    this.accountSettings = new AccountSettingsStore(db, this.caches, () => this.changedCached());
    this.retention = new RetentionStore(db, dialect);
    this.referralCounts = new ReferralCountStore(db, dialect);
    this.plannerStatistics = new PlannerStatistics(db, dialect);
    this.clocks = new CampaignClockStore(db);
    this.#byEmail = new PointReads(db, participantBy.email, batched);
    this.answers = new AnswerReads(db, batched);
  }

  /**
   * Runs `fn` in one transaction with a store bound to it; everything commits together or not at all. A
   * store already bound to a transaction runs `fn` in that one.
   */
  async transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    // Already in one (an operation run inside another's transaction): it joins it.
    if (this.#afterCommit) return fn(this);
    const afterCommit: (() => void | Promise<void>)[] = [];
    const options = { caches: new Caches(this.caches), ids: this.#ids, impressions: this.#impressions, emailOutbox: this.emails.enabled, root: this.db };
    const result = await this.db.transaction().execute((trx) => fn(new Store(trx, this.dialect, options, afterCommit)));
    for (const f of afterCommit) await f();
    return result;
  }

  /**
   * A change to something cached has been written: this process forgets its caches once it has
   * committed (other processes hear of it through the triggers of migration 0007_speed), and the
   * transaction that wrote it reads past them until then (./caches.ts).
   */
  changedCached(): void {
    this.caches.changing();
    this.afterCommit(() => this.caches.invalidate());
  }

  /**
   * Runs `f` once this store's transaction has committed (never if it rolls back), before the
   * transaction's caller goes on (it awaits what `f` answers); at once outside one.
   */
  afterCommit(f: () => void | Promise<void>): void {
    if (this.#afterCommit) this.#afterCommit.push(f);
    else void f();
  }

  /**
   * Once this transaction has committed, the SQLite WAL is copied into the database file and truncated
   * (./group-commit.ts truncateWal): after an erasure, no copy of the erased rows stays in it. Nothing on
   * PostgreSQL. A truncation that readers kept from happening is said as a warning: the next checkpoints
   * overwrite those pages in time.
   */
  truncateWalAfterCommit(): void {
    const root = this.#root;
    this.afterCommit(async () => {
      if (!(await truncateWal(root))) process.emitWarning('Refkit: after an erasure, readers kept the WAL from being truncated; its pages are overwritten as it is reused');
    });
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  // ---- campaigns ----

  async insertCampaign(row: Insertable<CampaignsTable>): Promise<void> {
    await this.db.insertInto('campaigns').values(row).execute();
  }

  async updateCampaign(id: string, patch: Updateable<CampaignsTable>): Promise<void> {
    await this.db.updateTable('campaigns').set(patch).where('id', '=', id).execute();
    this.changedCached();
  }

  /** Moves a campaign to `status` only if it is in one of `from` now; false if it was not. */
  async transitionCampaign(id: string, from: CampaignRow['status'][], status: CampaignRow['status'], now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('campaigns')
      .set({ status, updated_on: now })
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    this.changedCached();
    return r.numUpdatedRows > 0n;
  }

  /** A campaign's settings, from the process's cache when it has them. */
  findCampaign(id: string): Promise<CampaignRow | undefined> {
    return this.caches.campaigns.get(id, () => this.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst());
  }

  async listCampaigns(accountId: number): Promise<(CampaignRow & { participant_count: number })[]> {
    const rows = await this.db
      .selectFrom('campaigns')
      .selectAll('campaigns')
      .select((eb) =>
        eb
          .selectFrom('campaign_counters')
          .select((c) => c.fn.coalesce(c.fn.sum<number>('participants'), c.lit(0)).as('n'))
          .whereRef('campaign_counters.campaign_id', '=', 'campaigns.id')
          .as('participant_count'),
      )
      .where('account_id', '=', accountId)
      .orderBy('created_on', 'desc')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ ...r, participant_count: Number(r.participant_count) }));
  }

  /** The campaign's participants, as counted when they joined (a few counter rows, whatever the campaign's size). */
  countParticipants(campaignId: string): Promise<number> {
    return this.stats.participants(campaignId);
  }

  /** Every campaign whose stored status is Active (for the scans that run per campaign: reminders). */
  activeCampaigns(): Promise<CampaignRow[]> {
    return this.db.selectFrom('campaigns').selectAll().where('status', '=', 'Active').execute();
  }

  /** host_url and allowed_origins of every campaign: the sources of the origins CORS preflights may use. */
  campaignOrigins(): Promise<Pick<CampaignRow, 'host_url' | 'allowed_origins'>[]> {
    return this.db.selectFrom('campaigns').select(['host_url', 'allowed_origins']).execute();
  }

  // ---- participants ----

  /** Inserts unless the email or the code is taken in the campaign; the new row, or undefined if taken. */
  async insertParticipant(row: NewParticipant): Promise<ParticipantRow | undefined> {
    const [inserted] = await signupWrites.participant(this.db, ...participantValues(withDefaults(row)));
    return inserted;
  }

  /**
   * A new participant and everything its sign-up changes, all or nothing: the row, the squatters held
   * with it, the referrer's count, the day's and the campaign's counters, the created event with its
   * deliveries, and the browser's token. The new row, or undefined when the email or the code is taken.
   *
   * On PostgreSQL outside a transaction it is one statement (#insertSignupPostgres). On SQLite outside
   * a transaction it is one unit of the group commit (./group-commit.ts): its statements run one after
   * another with no await between them. As a Kysely transaction, with an await per statement and its own
   * begin and commit, a whole sign-up took 1.09x and 1.13x the CPU (two A/B runs in one process, without
   * HTTP). In a caller's transaction the statements run on it, one after another.
   */
  async insertSignup(signup: NewSignup): Promise<ParticipantRow | undefined> {
    if (this.dialect === 'postgres' && !this.#afterCommit) return this.#insertSignupPostgres(signup);
    const unit = directUnit(this.db);
    if (unit) {
      const fields = withDefaults(signup.participant);
      const values = participantValues(fields);
      return unit((write) => {
        // No RETURNING: the row is the one built here, as on PostgreSQL (signupWrites.participantWithId).
        const { numAffectedRows, insertId } = write(signupWrites.participantQuiet.compile(this.db, ...values));
        if (numAffectedRows !== 1n) return undefined;
        const row: ParticipantRow = Object.assign(fields, { id: Number(insertId) });
        for (const w of this.#signupWrites(signup, row)) write(w.compile());
        return row;
      });
    }
    const run = async (tx: Store) => {
      const row = await tx.insertParticipant(signup.participant);
      if (!row) return undefined;
      for (const w of tx.#signupWrites(signup, row)) await w.run();
      return row;
    };
    return this.#afterCommit ? run(this) : this.transaction(run);
  }

  /**
   * The writes of a sign-up after the participant's own row, in the order they lock rows that other
   * writers share: the referrer, the referees held with this one, the counters, then rows of their own.
   * Qualifying, approving and impressions lock in the same order (referrer, referee, counters), so
   * concurrent writers on PostgreSQL queue instead of deadlocking.
   */
  #signupWrites(signup: NewSignup, row: ParticipantRow): Write[] {
    const now = row.created_on;
    const { count, daily } = this.stats.signupWrites(row.campaign_id, dayOf(now), 1, row.referred_by_id !== null ? 1 : 0);
    return [...(signup.hold ? [builtWrite(this.#holdReferees(signup.hold.referrerId, signup.hold.net, now))] : []), count, daily, ...this.#signupRows(signup, row)];
  }

  /**
   * The rows a sign-up adds that no other writer shares (each a plain INSERT): its referrer's count
   * delta (./referral-count-store.ts), its event and deliveries, its token, its emails.
   */
  #signupRows(signup: NewSignup, row: ParticipantRow): Write[] {
    const now = row.created_on;
    const referrer = row.referred_by_id;
    return [
      ...(referrer !== null ? [preparedWrite(referralDelta, this.db, referrer, now)] : []),
      ...(signup.event ? this.webhooks.eventWrites({ ...signup.event.row, payload: signup.event.payload(row) }, signup.event.deliveries) : []),
      ...(signup.tokenHash !== undefined ? [preparedWrite(signupWrites.token, this.db, signup.tokenHash, row.id, now)] : []),
      ...(signup.channel ? [preparedWrite(signupWrites.channel, this.db, row.id, row.campaign_id, ...channelValues(signup.channel))] : []),
      ...(signup.emails ? this.emails.writes(signup.emails(row)) : []),
    ];
  }

  /**
   * PostgreSQL: the whole sign-up is one statement (one round trip, its own transaction), shared with the
   * sign-ups waiting at the same time (../referrals/store/signup-batch.ts), or alone: the participant and every other write
   * as a CTE each. The id comes from the sequence first (IdReserve), so the
   * event's payload can be made before the statement runs; a taken email or code fails it (a unique
   * violation), which is the undefined of insertSignup.
   *
   * PostgreSQL runs the CTE the final SELECT reads (the participant) first, then the others from the
   * last in the WITH list to the first, so they are listed in reverse lock order. The counters are
   * sharded (./stats-store.ts), so concurrent sign-ups rarely meet on a row at all. Should PostgreSQL
   * ever order them otherwise and end this statement to break a deadlock, it was rolled back whole and
   * runs again.
   */
  async #insertSignupPostgres(signup: NewSignup): Promise<ParticipantRow | undefined> {
    const id = await this.#ids.take(this.db);
    const row: ParticipantRow = Object.assign(withDefaults(signup.participant), { id });
    const alone = () => this.#insertSignupAlone(signup, row);
    // Squatters held with it lock rows other sign-ups share: such a sign-up goes alone.
    if (!this.#signupBatches || signup.hold) return alone();
    return this.#signupBatches.add({
      campaignId: row.campaign_id,
      day: dayOf(row.created_on),
      net: row.signup_net,
      referred: row.referred_by_id !== null,
      participant: { id, ...participantColumns(participantValues(row)) },
      ...(signup.assumed && { assumed: signup.assumed }),
      writes: this.#signupRows(signup, row),
      written: row,
      alone,
      failed: (err) => signupFailed(err, signup.assumed),
    });
  }

  /** A sign-up in one statement of its own: what a batch of them does for each (../referrals/store/signup-batch.ts). */
  async #insertSignupAlone(signup: NewSignup, row: ParticipantRow): Promise<ParticipantRow | undefined> {
    const { id } = row;
    const { assumed } = signup;
    const insert = assumed
      ? preparedWrite(signupWrites.participantAssumed, this.db, assumed.referrerId, assumed.net, assumed.signupsSince, id, ...participantValues(row))
      : preparedWrite(signupWrites.participantWithId, this.db, id, ...participantValues(row));
    const writes = [insert, ...this.#signupWrites(signup, row).reverse()];
    for (let attempt = 1; ; attempt++) {
      try {
        const [inserted] = await runAsOne<{ id: number }>(this.db, writes);
        return inserted ? row : undefined;
      } catch (err) {
        if (!isDeadlock(err) || attempt === DEADLOCK_ATTEMPTS) return signupFailed(err, assumed);
      }
    }
  }

  /**
   * What a new sign-up reads before it writes (../referrals/store/signup-reads.ts): one round trip on PostgreSQL. With
   * `assume`, on PostgreSQL the usual sign-up's facts are assumed instead (facts.assumed), with no round
   * trip: pass them on in NewSignup.assumed, whose write then checks them.
   */
  async signupFacts(question: SignupQuestion, assume = false): Promise<SignupFacts> {
    if (assume && this.dialect === 'postgres' && !this.#afterCommit) {
      const assumed = assumedSignupFacts(question, (code) => this.#cachedCodeOwner(question.campaignId, code));
      if (assumed) return assumed;
    }
    const { campaignId } = question;
    const facts = await readSignupFacts(this.db, this.dialect, question, (email) => this.findParticipantByEmail(campaignId, email), (code) => this.codeOwner(campaignId, code));
    // PostgreSQL reads the referrer with the other facts; SQLite's read went through codeOwner above.
    if (this.dialect === 'postgres' && facts.byCode) this.#rememberCodeOwner(campaignId, facts.byCode);
    return facts;
  }

  async findParticipantByEmail(campaignId: string, email: string): Promise<ParticipantRow | undefined> {
    return this.#byEmail.read(campaignId, email);
  }

  async findParticipantByCode(campaignId: string, code: string): Promise<ParticipantRow | undefined> {
    return (await participantBy.code(this.db, campaignId, code))[0];
  }

  /**
   * The participant of the campaign holding this code, as far as CodeOwner goes: from the process's cache
   * once a committed read has found it (./caches.ts, codeOwners).
   */
  async codeOwner(campaignId: string, code: string): Promise<CodeOwner | undefined> {
    const cached = this.#cachedCodeOwner(campaignId, code);
    if (cached !== undefined) return cached;
    const [owner] = (await codeOwner(this.db, campaignId, code)) as (CodeOwner | undefined)[];
    // An earlier code of someone who chose another (a vanity code) still names them: read only on a miss.
    const holder = owner ?? (await aliasOwner(this.db, campaignId, code))[0];
    if (holder) this.#rememberCodeOwner(campaignId, holder, code);
    return holder;
  }

  #cachedCodeOwner(campaignId: string, code: string): CodeOwner | undefined {
    return this.caches.codeOwners.get(codeOwnerKey(campaignId, code));
  }

  /** `asCode`: the code it was found by, when an alias of the holder's current code. */
  #rememberCodeOwner(campaignId: string, { id, code, email, signup_net }: CodeOwner, asCode = code): void {
    const key = codeOwnerKey(campaignId, asCode);
    // A transaction may read a row it later rolls back: only reads outside one are kept. A known code
    // (every sign-up through a share link reads its referrer) is left as it is: its entry cannot change.
    if (!this.#afterCommit && !this.caches.codeOwners.has(key)) this.caches.codeOwners.set(key, { id, code, email, signup_net });
  }

  async findParticipant(id: number): Promise<ParticipantRow | undefined> {
    return (await participantBy.id(this.db, id))[0];
  }

  listParticipants(filter: ParticipantFilter, start: ListStart, limit: number): Promise<ParticipantRow[]> {
    return pages(this.db, filter, start, limit);
  }


  /** Counts signups from one network in a campaign since a time, no further than `cap` (the fraud signal's threshold). */
  async countSignupsFromNet(campaignId: string, net: string, since: number, cap: number): Promise<number> {
    const [r] = await signupsFromNet(this.db, campaignId, net, since, cap);
    return Number(r!.n);
  }

  async incrementReferrals(referrerId: number, now: number): Promise<void> {
    await this.referralCounts.add(referrerId, now);
  }

  /** Marks the qualifying event done; true only for the one call that flipped it. */
  async completeRewardEvent(id: number, now: number): Promise<boolean> {
    const completed = (await qualifyWrites.complete(this.db, id, now)).length > 0;
    if (completed) await this.stats.addForParticipant(id, 'qualified', 1, now);
    return completed;
  }

  async incrementCompletedReferred(referrerId: number, now: number): Promise<void> {
    await qualifyWrites.completedReferred(this.db, referrerId, now);
  }

  /**
   * Claims the credit of a referee whose event is complete, who is approved and whose referrer is
   * approved; true only for the one call that claimed it (which then writes the credit). The rule itself (when a referral is credited) lives in rewards/domain/rewards.ts.
   */
  async claimRefereeCredit(id: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('participants')
      .set({ reward_credited: 1, updated_on: now })
      .where('id', '=', id)
      .where('reward_event_completed', '=', 1)
      .where('approval', '=', 1)
      .where('reward_credited', '=', 0)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('participants as referrer')
            .select('referrer.id')
            .whereRef('referrer.id', '=', 'participants.referred_by_id')
            .where('referrer.approval', '=', 1),
        ),
      )
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /**
   * Locks participants' rows until the transaction ends (PostgreSQL; SQLite's write transaction already
   * excludes every other writer). On PostgreSQL it answers what the reward engine needs of them, read
   * with the lock; on SQLite it reads nothing (RewardBatch reads a participant's state when it needs it). Crediting locks referrer before referee, so concurrent approvals and
   * qualifications of one referral serialise instead of each missing the other's uncommitted half.
   *
   * FOR NO KEY UPDATE, not FOR UPDATE: a transaction that updates a participant's row twice makes
   * PostgreSQL check that row's referrer (the foreign key) again, with FOR KEY SHARE, which FOR UPDATE
   * blocks. Qualifying a chain's members at once (each the referrer of the next) then deadlocked.
   */
  async lockParticipants(ids: number[]): Promise<Map<number, RewardState>> {
    const states = new Map<number, RewardState>();
    if (this.dialect !== 'postgres') return states;
    for (const id of ids) {
      const [row] = await qualifyWrites.lock(this.db, id);
      if (row) states.set(id, row);
    }
    return states;
  }

  /** What the reward engine needs of a participant (read when lockParticipants had no need to read it). */
  async rewardState(id: number): Promise<RewardState | undefined> {
    return (await qualifyWrites.state(this.db, id))[0];
  }

  /**
   * Referees of a referrer whose referral was credited and who have payments whose commission waits: paid
   * while one side was held for review after the credit (../rewards/domain/rewards.ts).
   */
  async refereesOwedCommission(referrerId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('participants')
      .select('id')
      .where('referred_by_id', '=', referrerId)
      .where('reward_credited', '=', 1)
      .where((eb) => eb.exists(eb.selectFrom('payments').select('payments.id').whereRef('payments.participant_id', '=', 'participants.id').where('payments.commission_credited', '=', 0)))
      .execute();
    return rows.map((r) => r.id);
  }

  /** Referees of `referrerId` eligible for a credit now that the referrer is approved. */
  async dueReferees(referrerId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('participants')
      .select('id')
      .where('referred_by_id', '=', referrerId)
      .where('reward_event_completed', '=', 1)
      .where('approval', '=', 1)
      .where('reward_credited', '=', 0)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * How many referees of a referrer signed up from a network, counting no further than `cap`: the
   * squatting signal needs only to know whether a threshold is reached, so it never scans a long list.
   */
  async countRefereesFromNet(referrerId: number, net: string, cap: number): Promise<number> {
    const [r] = await refereesFromNet(this.db, referrerId, net, cap);
    return Number(r!.n);
  }

  /**
   * Holds back every not-yet-credited browser referee of a referrer from one network: once a network has
   * brought several, the earlier ones are just as suspect. Participants an admin approved keep approval.
   */
  async holdRefereesFromNet(referrerId: number, net: string, now: number): Promise<void> {
    await this.#holdReferees(referrerId, net, now).execute();
  }

  #holdReferees(referrerId: number, net: string, now: number) {
    return this.db
      .updateTable('participants')
      .set({ fraud_score: 'high', approval: 0, updated_on: now })
      .where('referred_by_id', '=', referrerId)
      .where('signup_net', '=', net)
      .where('signup_source', '=', 'browser')
      .where('reward_credited', '=', 0)
      .where('fraud_score', 'in', ['low', 'medium']);
  }

  async approve(id: number, now: number): Promise<void> {
    await this.db.updateTable('participants').set({ approval: 1, updated_on: now }).where('id', '=', id).execute();
  }

  /** Withdraws a participant's approval (a fraud control matched: ../fraud/domain/fraud-holds.ts). */
  async hold(id: number, now: number): Promise<void> {
    await this.db.updateTable('participants').set({ approval: 0, updated_on: now }).where('id', '=', id).execute();
  }

  /**
   * Counts an impression (also in the daily counters) unless this visitor was already counted for this
   * participant on this day. It is written with the impressions of the next few milliseconds (see
   * ../referrals/store/impression-buffer.ts; flushImpressions writes them now); a crash may lose those, never a sign-up
   * or a reward.
   */
  addImpression(impression: Impression): void {
    this.#impressions.add(impression);
  }

  /** Writes the impressions added so far. */
  flushImpressions(): Promise<void> {
    return this.#impressions.flush();
  }

  /** Drops the per-visitor rows of days before `day`: only today's are needed to deduplicate. */
  async pruneImpressions(beforeDay: number): Promise<void> {
    await this.db.deleteFrom('impressions').where('day', '<', beforeDay).execute();
  }

  // ---- participant tokens ----

  async insertParticipantToken(hash: string, participantId: number, now: number): Promise<void> {
    await signupWrites.token(this.db, hash, participantId, now);
  }

  // ---- pending sign-ups and email links ----

  /** Records (or refreshes) a sign-up waiting for its email confirmation. */
  async upsertPendingSignup(row: Insertable<PendingSignupsTable>): Promise<void> {
    await this.db
      .insertInto('pending_signups')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['campaign_id', 'email']).doUpdateSet({
          first_name: row.first_name ?? null,
          last_name: row.last_name ?? null,
          signup_ip: row.signup_ip ?? null,
          updated_on: row.updated_on,
        }),
      )
      .execute();
  }

  findPendingSignup(campaignId: string, email: string): Promise<PendingSignupRow | undefined> {
    return this.db.selectFrom('pending_signups').selectAll().where('campaign_id', '=', campaignId).where('email', '=', email).executeTakeFirst();
  }

  async deletePendingSignup(campaignId: string, email: string): Promise<void> {
    await this.db.deleteFrom('pending_signups').where('campaign_id', '=', campaignId).where('email', '=', email).execute();
  }

  async insertEmailLink(row: Insertable<EmailLinksTable>): Promise<void> {
    await this.db.insertInto('email_links').values(row).execute();
  }

  /** The newest links sent to an address since a time (at most `limit`), for the resend throttle. */
  emailLinksSince(campaignId: string, email: string, since: number, limit: number): Promise<Pick<EmailLinkRow, 'created_on' | 'referred_by_id'>[]> {
    return this.db
      .selectFrom('email_links')
      .select(['created_on', 'referred_by_id'])
      .where('campaign_id', '=', campaignId)
      .where('email', '=', email)
      .where('created_on', '>=', since)
      .orderBy('created_on', 'desc')
      .limit(bound(limit))
      .execute();
  }

  findEmailLink(hash: string): Promise<EmailLinkRow | undefined> {
    return this.db.selectFrom('email_links').selectAll().where('hash', '=', hash).executeTakeFirst();
  }

  /** Uses a link once; false when it was used (or had expired) meanwhile. */
  async consumeEmailLink(hash: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('email_links')
      .set({ used_on: now })
      .where('hash', '=', hash)
      .where('used_on', 'is', null)
      .where('expires_on', '>', now)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  // ---- API keys ----

  async insertApiKey(row: Insertable<ApiKeysTable>): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  /** A key by its hash, from the process's cache when it has it (a revocation empties the cache). */
  findApiKeyByHash(hash: string): Promise<ApiKeyRow | undefined> {
    return this.caches.apiKeys.get(hash, async () => (await apiKeyByHash(this.db, hash))[0]);
  }

  findApiKey(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async revokeApiKey(id: string, accountId: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('api_keys')
      .set({ revoked_on: now })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('revoked_on', 'is', null)
      .executeTakeFirst();
    this.changedCached();
    return r.numUpdatedRows > 0n;
  }

  /** Revokes the account's active keys made by `createdBy`; how many. */
  async revokeApiKeysBy(accountId: number, createdBy: string, now: number): Promise<number> {
    const r = await this.db
      .updateTable('api_keys')
      .set({ revoked_on: now })
      .where('account_id', '=', accountId)
      .where('created_by', '=', createdBy)
      .where('revoked_on', 'is', null)
      .executeTakeFirst();
    this.changedCached();
    return Number(r.numUpdatedRows);
  }

  listApiKeys(accountId: number): Promise<ApiKeyRow[]> {
    return this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_on').execute();
  }
}
