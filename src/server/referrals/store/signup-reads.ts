/**
 * What a new sign-up reads before it writes: is the email taken, who is the referrer (by code and by
 * email), and the two capped counts fraud scoring needs (../domain/fraud.ts). On PostgreSQL it is one
 * statement, so that a sign-up that reads costs two round trips (this, then its one writing statement)
 * instead of five. SQLite runs in the process, where a round trip costs nothing: it reads the rows as
 * the store's point reads, and leaves the counts to fraud scoring, which reads them only when its rules
 * need them.
 *
 * On PostgreSQL the usual sign-up does not read at all, and so costs one round trip: a new email, through
 * a share link whose code this process already knows (../../store/caches.ts, codeOwners), from a network
 * with no earlier sign-up in the campaign lately and no earlier referee of that referrer. Those facts are
 * *assumed* (assumedSignupFacts), the sign-up is decided on them as on read ones, and its one writing
 * statement checks them (factsHold): if one is untrue (the email is taken, the network has signed up
 * before), the statement fails whole, changes nothing, and the caller reads the facts and decides again
 * (SignupFactsChanged). Fraud scoring's rules stay in fraud.ts: the check compares counts with the zero
 * that was assumed, never with a threshold.
 */
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { CodeOwner } from '../../store/caches.js';
import type { Dialect } from '../../store/connect.js';
import { prepare } from '../../store/prepared.js';
import { participantFieldsSql } from '../../store/referral-count-store.js';
import type { Database, ParticipantsTable } from '../../store/tables.js';

type ParticipantRow = Selectable<ParticipantsTable>;

export interface SignupQuestion {
  campaignId: string;
  email: string;
  referredByCode?: string;
  referredByEmail?: string;
  /**
   * When the sign-up's network is known: count (up to the caps) the referrer's referees from it, and the
   * campaign's sign-ups from it since `signupsSince` (PostgreSQL only; see above).
   */
  fromNet?: { net: string; refereesCap: number; signupsSince: number; signupsCap: number };
}

export interface SignupFacts {
  existing: ParticipantRow | undefined;
  byCode: CodeOwner | undefined;
  byEmail: CodeOwner | undefined;
  /**
   * The referrer's (by code, else by email) referees and the campaign's recent sign-ups from the network,
   * capped: on PostgreSQL, when asked.
   */
  fromNet?: { referees: number; signups: number };
  /** Set when these facts were assumed, not read: the sign-up's write must check them (factsHold). */
  assumed?: SignupAssumption;
}

/** What an assumed sign-up's write checks besides the email being free (its unique index checks that). */
export interface SignupAssumption {
  campaignId: string;
  /** No referee of this referrer from `net` yet (when both are known). */
  referrerId: number | null;
  /** No sign-up in the campaign from `net` since `signupsSince` (when the network is known). */
  net: string | null;
  signupsSince: number;
}

/** The facts assumed were not so (see the top of this file): nothing was written; read them, and decide again. */
export class SignupFactsChanged extends Error {
  constructor() {
    super('What a sign-up assumed has changed');
  }
}

/** The SQLSTATE of `refkit_assert` (migration 0010), which a write whose assumption fails raises. */
export const ASSUMPTION_FAILED = 'RK001';

/**
 * PostgreSQL: the facts of the usual sign-up, without a read (see the top of this file), or undefined
 * when they cannot be assumed: a referrer named by email, or by a code this process does not know yet.
 */
export function assumedSignupFacts(q: SignupQuestion, known: (code: string) => CodeOwner | undefined): SignupFacts | undefined {
  if (q.referredByEmail !== undefined) return undefined;
  const byCode = q.referredByCode === undefined ? undefined : known(q.referredByCode);
  if (q.referredByCode !== undefined && byCode === undefined) return undefined;
  return {
    existing: undefined,
    byCode,
    byEmail: undefined,
    ...(q.fromNet && { fromNet: { referees: 0, signups: 0 } }),
    assumed: { campaignId: q.campaignId, referrerId: byCode?.id ?? null, net: q.fromNet?.net ?? null, signupsSince: q.fromNet?.signupsSince ?? 0 },
  };
}

/**
 * PostgreSQL: true, or an error (ASSUMPTION_FAILED) that ends the statement it is in, with all of its
 * changes: the counts an assumed sign-up was scored with are still zero. Read in the statement's snapshot,
 * which does not hold the participant the statement inserts. Its values may be columns of a batch's rows
 * (./signup-batch.ts): `offset 0` keeps each EXISTS a lookup by index per row, where PostgreSQL would
 * otherwise hash the whole of participants once for a batch it planned while the table was small.
 */
export function factsHold(a: { [K in keyof SignupAssumption]: unknown }): RawBuilder<boolean> {
  const net = sql`cast(${a.net} as text)`;
  const referrerId = sql`cast(${a.referrerId} as bigint)`;
  return sql<boolean>`refkit_assert(${net} is null or (
      (${referrerId} is null or not exists (select 1 from participants r where r.referred_by_id = ${referrerId} and r.signup_net = ${net} offset 0))
      and not exists (select 1 from participants s where s.campaign_id = cast(${a.campaignId} as text) and s.signup_net = ${net}
        and s.created_on >= cast(${a.signupsSince} as bigint) offset 0)), 'the facts this sign-up assumed have changed')`;
}

/**
 * One participant row of a campaign, by email or by code, with its exact referral count
 * (../../store/referral-count-store.ts); `row_to_json` gives each as one value.
 */
const participantJson = (campaignId: unknown, column: 'email' | 'code', value: unknown) =>
  sql<ParticipantRow | null>`(select row_to_json(r) from (select ${participantFieldsSql('p')} from participants p where p.campaign_id = ${campaignId} and p.${sql.ref(column)} = ${value}) r)`;

const postgresFacts = prepare(
  (db, campaignId: string, email: string, code: string | null, referrerEmail: string | null, net: string | null, refereesCap: number, since: number, signupsCap: number) => {
    const referrerId = sql`coalesce(
      (select id from participants where campaign_id = ${campaignId} and code = ${code}),
      (select id from participants where campaign_id = ${campaignId} and email = ${referrerEmail}))`;
    return db.selectNoFrom([
      participantJson(campaignId, 'email', email).as('existing'),
      participantJson(campaignId, 'code', code).as('by_code'),
      participantJson(campaignId, 'email', referrerEmail).as('by_email'),
      sql<string>`(select count(*) from (select 1 from participants r
        where r.referred_by_id = ${referrerId} and r.signup_net = ${net} limit cast(${refereesCap} as integer)) capped)`.as('referees'),
      sql<string>`(select count(*) from (select 1 from participants s
        where s.campaign_id = ${campaignId} and s.signup_net = ${net} and s.created_on >= ${since} limit cast(${signupsCap} as integer)) capped)`.as('signups'),
    ]);
  },
);

/**
 * The sign-up's reads. On SQLite `byEmail` answers a participant row as the store's other readers do,
 * and `byCode` the code's holder, usually from the process's cache (the store's codeOwner).
 */
export async function readSignupFacts(
  db: Kysely<Database>,
  dialect: Dialect,
  q: SignupQuestion,
  byEmail: (email: string) => Promise<ParticipantRow | undefined>,
  byCode: (code: string) => Promise<CodeOwner | undefined>,
): Promise<SignupFacts> {
  const { campaignId, email, referredByCode, referredByEmail, fromNet } = q;
  if (dialect === 'sqlite') {
    return {
      existing: await byEmail(email),
      byCode: referredByCode === undefined ? undefined : await byCode(referredByCode),
      byEmail: referredByEmail === undefined ? undefined : await byEmail(referredByEmail),
    };
  }
  const [r] = await postgresFacts(
    db,
    campaignId,
    email,
    referredByCode ?? null,
    referredByEmail ?? null,
    fromNet?.net ?? null,
    fromNet?.refereesCap ?? 0,
    fromNet?.signupsSince ?? 0,
    fromNet?.signupsCap ?? 0,
  );
  return {
    existing: r!.existing ?? undefined,
    byCode: r!.by_code ?? undefined,
    byEmail: r!.by_email ?? undefined,
    ...(fromNet && { fromNet: { referees: Number(r!.referees), signups: Number(r!.signups) } }),
  };
}
