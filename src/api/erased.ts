/**
 * How an erased participant reads (src/server/privacy/domain/erasure.ts): their row stays, for the referral graph
 * and everyone's totals, with an address of the reserved `.invalid` domain in place of theirs, and no name.
 */
export const ERASED_DOMAIN = 'erased.invalid';

/** What lists, leaderboards and emails call an erased participant. */
export const ERASED_NAME = 'Deleted participant';

/** The address an erased participant's row keeps: unique per row, and nobody's. */
export const erasedEmail = (participantId: number) => `deleted-participant-${participantId}@${ERASED_DOMAIN}`;

export const isErasedEmail = (email: string | undefined) => email !== undefined && email.endsWith(`@${ERASED_DOMAIN}`);
