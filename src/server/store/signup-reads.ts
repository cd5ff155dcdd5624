/**
 * What a new sign-up reads before it writes: is the email taken, who is the referrer (by code and by
 * email), and the two capped counts fraud scoring needs (../domain/fraud.ts). On PostgreSQL it is one
 * statement, so that a sign-up costs two round trips (this, then its one writing statement) instead of
 * five. SQLite runs in the process, where a round trip costs nothing: it reads the rows as the store's
 * point reads, and leaves the counts to fraud scoring, which reads them only when its rules need them.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from './connect.js';
import { prepare } from './prepared.js';
import type { Database, ParticipantsTable } from './tables.js';

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
  byCode: ParticipantRow | undefined;
  byEmail: ParticipantRow | undefined;
  /**
   * The referrer's (by code, else by email) referees and the campaign's recent sign-ups from the network,
   * capped: on PostgreSQL, when asked.
   */
  fromNet?: { referees: number; signups: number };
}

/** One participant row of a campaign, by email or by code; `row_to_json` gives each as one value. */
const participantJson = (campaignId: unknown, column: 'email' | 'code', value: unknown) =>
  sql<ParticipantRow | null>`(select row_to_json(p) from participants p where p.campaign_id = ${campaignId} and p.${sql.ref(column)} = ${value})`;

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

/** The sign-up's reads; on SQLite, `read` answers the rows as the store's other readers do. */
export async function readSignupFacts(
  db: Kysely<Database>,
  dialect: Dialect,
  q: SignupQuestion,
  read: (campaignId: string, by: 'email' | 'code', value: string) => Promise<ParticipantRow | undefined>,
): Promise<SignupFacts> {
  const { campaignId, email, referredByCode, referredByEmail, fromNet } = q;
  if (dialect === 'sqlite') {
    return {
      existing: await read(campaignId, 'email', email),
      byCode: referredByCode === undefined ? undefined : await read(campaignId, 'code', referredByCode),
      byEmail: referredByEmail === undefined ? undefined : await read(campaignId, 'email', referredByEmail),
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
