/**
 * The reads behind the interface's participant answers (getParticipant, getAllParticipants, getReferrals):
 * only the columns an answer shows (../domain/present.ts, presentParticipant), not the whole row. On
 * PostgreSQL the driver builds every row field by field, so a page of 21 rows of all 37 columns cost the
 * service more CPU than the statement cost the database. And getReferrals reads its referrer and the page
 * of referrals in one statement, one round trip instead of two.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ListStart } from './list-start.js';
import { participantPages, referralPageQueries, type ParticipantFilter } from './participant-pages.js';
import { byEmail, PointReads } from './point-reads.js';
import { prepare } from './prepared.js';
import { referralsExact } from './referral-count-store.js';
import type { Database, ParticipantsTable } from './tables.js';

/** The columns an answer shows, and the id and created_on a page's cursor is made of. */
const ANSWER_COLUMNS = [
  'id',
  'campaign_id',
  'email',
  'code',
  'first_name',
  'last_name',
  'referred_by_code',
  'created_on',
  'referral_reward',
  'referral_reward_redeemed',
  'referee_reward',
  'referee_reward_redeemed',
  'reward_event_completed',
  'fraud_score',
] as const satisfies readonly Exclude<keyof ParticipantsTable, 'total_referrals'>[];

/** What an answer about a participant is made of: these columns and the exact referral count. */
export type AnsweredParticipant = Pick<Selectable<ParticipantsTable>, (typeof ANSWER_COLUMNS)[number] | 'total_referrals'>;

const answerColumns = [...ANSWER_COLUMNS.map((c) => `participants.${c}` as const), referralsExact('participants').as('total_referrals')];

const answersByEmail = byEmail((db) => db.selectFrom('participants').select(answerColumns));

const pages = participantPages<AnsweredParticipant>(answerColumns);

/** The id of the participant with this address (a subquery): the referrer of getReferrals. */
const referrerOf = (db: Kysely<Database>, campaignId: string, email: string) =>
  sql<number | null>`(${db.selectFrom('participants as r').select('r.id').where('r.campaign_id', '=', campaignId).where('r.email', '=', email)})`;

/**
 * A referrer's row (is_referrer 1) and a page of their referrals (is_referrer 0) in one statement, the
 * referrer first: no row at all when no one has the address.
 */
type WithMark = AnsweredParticipant & { is_referrer: number };

const referrals = referralPageQueries(answerColumns);
/** A referral page, any of the three (they select the same columns). */
type ReferralPage = ReturnType<typeof referrals.first>;
const withReferrer = (db: Kysely<Database>, campaignId: string, email: string, page: ReferralPage) =>
  db
    .selectFrom('participants')
    .select(answerColumns)
    .select(sql<number>`1`.as('is_referrer'))
    .where('campaign_id', '=', campaignId)
    .where('email', '=', email)
    // The page's select list is the same answerColumns, typed loosely by the shared builder (./participant-pages.ts).
    .unionAll(db.selectFrom(page.as('page')).selectAll().select(sql<number>`0`.as('is_referrer')).$castTo<WithMark>())
    .orderBy('is_referrer', 'desc')
    .orderBy('created_on')
    .orderBy('id');

const referralPages = {
  first: prepare((db, campaignId: string, email: string, limit: number) => withReferrer(db, campaignId, email, referrals.first(db, referrerOf(db, campaignId, email), limit))),
  from: prepare((db, campaignId: string, email: string, offset: number, limit: number) =>
    withReferrer(db, campaignId, email, referrals.from(db, referrerOf(db, campaignId, email), offset, limit)),
  ),
  after: prepare((db, campaignId: string, email: string, createdOn: number, id: number, limit: number) =>
    withReferrer(db, campaignId, email, referrals.after(db, campaignId, referrerOf(db, campaignId, email), createdOn, id, limit)),
  ),
};

export class AnswerReads {
  readonly #byEmail: PointReads<AnsweredParticipant>;

  /** `batched`: reads by address that arrive together go as one statement (./point-reads.ts). */
  constructor(
    private readonly db: Kysely<Database>,
    batched: boolean,
  ) {
    this.#byEmail = new PointReads(db, answersByEmail, batched);
  }

  byEmail(campaignId: string, email: string): Promise<AnsweredParticipant | undefined> {
    return this.#byEmail.read(campaignId, email);
  }

  page(filter: ParticipantFilter, start: ListStart, limit: number): Promise<AnsweredParticipant[]> {
    return pages(this.db, filter, start, limit);
  }

  /** The referrals of the participant with this address, a page of them; undefined when no one has it. */
  async referralsOf(campaignId: string, email: string, start: ListStart, limit: number): Promise<AnsweredParticipant[] | undefined> {
    let rows: WithMark[];
    if ('after' in start) rows = await referralPages.after(this.db, campaignId, email, start.after.createdOn, start.after.id, limit);
    else if (start.offset === 0) rows = await referralPages.first(this.db, campaignId, email, limit);
    else rows = await referralPages.from(this.db, campaignId, email, start.offset, limit);
    if (rows[0]?.is_referrer !== 1) return undefined;
    return rows.slice(1);
  }
}
