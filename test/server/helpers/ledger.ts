import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { ledgerTotals } from '../../../src/server/rewards/domain/ledger.js';
import type { Database } from '../../../src/server/store/tables.js';
import type { TestService } from './service.js';

/** Every participant of the campaign has counters equal to the sums of its entries; how many entries there are in all. */
export const assertCountersAreTheLedger = (s: TestService, campaignId: string): Promise<number> => assertLedgerIn(s.ctx.store.db, campaignId);

/** The same, read through any connection to the database (one a test opens beside service processes). */
export async function assertLedgerIn(db: Kysely<Database>, campaignId: string): Promise<number> {
  const people = await db.selectFrom('participants').selectAll().where('campaign_id', '=', campaignId).execute();
  let count = 0;
  for (const p of people) {
    const entries = await db.selectFrom('reward_entries').selectAll().where('participant_id', '=', p.id).execute();
    count += entries.length;
    const { referral_reward, referral_reward_redeemed, referee_reward, referee_reward_redeemed } = p;
    assert.deepEqual(ledgerTotals(entries), { referral_reward, referral_reward_redeemed, referee_reward, referee_reward_redeemed }, p.email);
  }
  return count;
}

