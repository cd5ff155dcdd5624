/**
 * Pages of a campaign's participants, or of one referrer's referrals, built once for a select list: the
 * whole counted row (Store.listParticipants: the CSV export, a participant's own referrals) or only what
 * the interface's answers show (./answer-reads.ts). The first page, from an offset, or after a
 * (created_on, id) key. An offset is skipped in the index alone (the ids of the page first, then their
 * rows), so the rows before the page are never read from the table; the first page needs no such detour.
 */
import type { Kysely, SelectExpression } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { ListStart } from '../../store/list-start.js';
import { prepare } from '../../store/prepared.js';
import type { Database } from '../../store/tables.js';

export type ParticipantFilter = { campaignId: string; referredById?: number };

type SelectList = readonly SelectExpression<Database, 'participants'>[];

/** The referral pages of one referrer, as queries. */
function referralPageQueries(columns: SelectList) {
  return {
    first: (db: Kysely<Database>, referrer: number, limit: number) =>
      db.selectFrom('participants').select(columns).where('referred_by_id', '=', referrer).orderBy('created_on').orderBy('id').limit(bound(limit)),
    // A referrer's referrals are all in its campaign: filtering by campaign too would steer SQLite to the campaign's index.
    from: (db: Kysely<Database>, referrer: number, offset: number, limit: number) =>
      db
        .selectFrom('participants')
        .select(columns)
        .where('id', 'in', (eb) =>
          eb.selectFrom('participants').select('id').where('referred_by_id', '=', referrer).orderBy('created_on').orderBy('id').limit(bound(limit)).offset(bound(offset)),
        )
        .orderBy('created_on')
        .orderBy('id'),
    after: (db: Kysely<Database>, campaignId: string, referrer: number, createdOn: number, id: number, limit: number) =>
      db
        .selectFrom('participants')
        .select(columns)
        .where('campaign_id', '=', campaignId)
        .where('referred_by_id', '=', referrer)
        // A row-value comparison: both databases serve it from the (…, created_on, id) index as one range.
        .where((eb) => eb(eb.refTuple('created_on', 'id'), '>', eb.tuple(createdOn, id)))
        .orderBy('created_on')
        .orderBy('id')
        .limit(bound(limit)),
  };
}

/** The pages of participants with these columns, each built and compiled once (../../store/prepared.ts); rows typed `R` by the caller. */
export function participantPages<R>(columns: SelectList) {
  const referrals = referralPageQueries(columns);
  const pages = {
    campaignFirst: prepare((db, campaignId: string, limit: number) =>
      db.selectFrom('participants').select(columns).where('campaign_id', '=', campaignId).orderBy('created_on').orderBy('id').limit(bound(limit)),
    ),
    campaignFrom: prepare((db, campaignId: string, offset: number, limit: number) =>
      db
        .selectFrom('participants')
        .select(columns)
        .where('id', 'in', (eb) =>
          eb.selectFrom('participants').select('id').where('campaign_id', '=', campaignId).orderBy('created_on').orderBy('id').limit(bound(limit)).offset(bound(offset)),
        )
        .orderBy('created_on')
        .orderBy('id'),
    ),
    campaignAfter: prepare((db, campaignId: string, createdOn: number, id: number, limit: number) =>
      db
        .selectFrom('participants')
        .select(columns)
        .where('campaign_id', '=', campaignId)
        .where((eb) => eb(eb.refTuple('created_on', 'id'), '>', eb.tuple(createdOn, id)))
        .orderBy('created_on')
        .orderBy('id')
        .limit(bound(limit)),
    ),
    referralsFirst: prepare((db, referrerId: number, limit: number) => referrals.first(db, referrerId, limit)),
    referralsFrom: prepare((db, referrerId: number, offset: number, limit: number) => referrals.from(db, referrerId, offset, limit)),
    referralsAfter: prepare((db, campaignId: string, referrerId: number, createdOn: number, id: number, limit: number) =>
      referrals.after(db, campaignId, referrerId, createdOn, id, limit),
    ),
  };
  // No await of its own: the page's promise is the read's (one microtask fewer per page).
  return (db: Kysely<Database>, filter: ParticipantFilter, start: ListStart, limit: number): Promise<R[]> => {
    const { campaignId, referredById } = filter;
    let rows: Promise<unknown[]>;
    if ('after' in start) {
      const { createdOn, id } = start.after;
      rows =
        referredById === undefined
          ? pages.campaignAfter(db, campaignId, createdOn, id, limit)
          : pages.referralsAfter(db, campaignId, referredById, createdOn, id, limit);
    } else if (start.offset === 0) {
      rows = referredById === undefined ? pages.campaignFirst(db, campaignId, limit) : pages.referralsFirst(db, referredById, limit);
    } else {
      rows = referredById === undefined ? pages.campaignFrom(db, campaignId, start.offset, limit) : pages.referralsFrom(db, referredById, start.offset, limit);
    }
    return rows as Promise<R[]>;
  };
}
