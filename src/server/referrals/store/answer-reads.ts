/**
 * The reads behind the interface's participant answers (getParticipant, getAllParticipants, getReferrals):
 * only the columns an answer shows (../domain/present.ts, presentParticipant), not the whole row. On
 * PostgreSQL the driver builds every row field by field, so a page of 21 rows of all 37 columns cost the
 * service more CPU than the statement cost the database.
 */
import type { Kysely, Selectable } from 'kysely';
import type { ListStart } from '../../store/list-start.js';
import { participantPages, type ParticipantFilter } from './participant-pages.js';
import { byEmail, PointReads } from '../../store/point-reads.js';
import { referralsExact } from '../../store/referral-count-store.js';
import type { Database, ParticipantsTable } from '../../store/tables.js';

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

export class AnswerReads {
  readonly #byEmail: PointReads<AnsweredParticipant>;

  /** `batched`: reads by address that arrive together go as one statement (../../store/point-reads.ts). */
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

  /**
   * The referrals of the participant with this address, a page of them; undefined when no one has it.
   * Two reads: the referrer by address (with the reads by address that arrive together, ../../store/point-reads.ts),
   * then the page by the referrer's id. One statement holding both (a union of the referrer's row and the
   * page) measured slower on PostgreSQL, being harder to plan: 0.92x against 1.02x the bare page read, and
   * 0.65x against 0.99x through PgBouncer, which plans every statement on each call (`npm run bench --
   * --routes getReferrals`, same machine and hour); on SQLite 1.46x both.
   */
  async referralsOf(campaignId: string, email: string, start: ListStart, limit: number): Promise<AnsweredParticipant[] | undefined> {
    const referrer = await this.#byEmail.read(campaignId, email);
    if (!referrer) return undefined;
    return pages(this.db, { campaignId, referredById: referrer.id }, start, limit);
  }
}
