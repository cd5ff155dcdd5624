/** What a test reads of the lifecycle email outbox. */
import type { TestService } from './service.js';

/** The addresses the outbox's emails of one kind go to, oldest first. */
export async function recipientsOf(s: TestService, kind: string): Promise<string[]> {
  const rows = await s.ctx.store.db
    .selectFrom('email_outbox as o')
    .innerJoin('participants as p', 'p.id', 'o.participant_id')
    .select('p.email')
    .where('o.kind', '=', kind)
    .orderBy('o.created_on')
    .orderBy('o.id')
    .execute();
  return rows.map((r) => r.email);
}
