/**
 * Sign-ups from one network to one campaign are decided one at a time (src/server/referrals/domain/network-turns.ts):
 * a burst of them through one link is scored as one after another would be, on every database kind.
 * Without the turns, each read its network's counts before any had written, and all were scored low.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { inTurn } from '../../src/server/referrals/domain/network-turns.js';
import { browserAt } from './helpers/addresses.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, WITHOUT_SIGNUP_LIMITS, type TestService } from './helpers/service.js';

for (const kind of await databaseKinds()) {
  describe(`sign-ups from one network [${kind.name}]`, { skip: kind.skip }, () => {
    let s: TestService;
    beforeEach(async () => {
      // Without the keyless sign-up limits, which would refuse part of the burst.
      s = await startService(kind, { rateLimits: WITHOUT_SIGNUP_LIMITS });
    });
    afterEach(() => s.close());

    /** Six sign-ups from one address through one link, at once or one after another: each one's score and approval. */
    async function burst(concurrent: boolean, address: string): Promise<string[]> {
      const id = await s.campaign();
      const ref = await s.admin.addParticipant({ id, email: 'ref@example.com' });
      const signUp = (i: number) => browserAt(s.url, address).addParticipant({ id, email: `same${i}@example.com`, referredByCode: ref.referralCode! });
      if (concurrent) await Promise.all([0, 1, 2, 3, 4, 5].map(signUp));
      else for (const i of [0, 1, 2, 3, 4, 5]) await signUp(i);
      const rows = await s.ctx.store.db.selectFrom('participants').select(['fraud_score', 'approval']).where('referred_by_code', '=', ref.referralCode!).execute();
      return rows.map((p) => `${p.fraud_score}/${p.approval}`).sort();
    }

    it('a burst through one link is scored as one after another: the third a squat, held with the two before it', async () => {
      const serial = await burst(false, '127.0.8.1');
      // The rule (src/server/referrals/domain/fraud.ts) as the serial run applied it: all six held.
      assert.deepEqual(serial, Array(6).fill('high/0'));
      assert.deepEqual(await burst(true, '127.0.8.2'), serial);
    });
  });
}

describe('inTurn', () => {
  it('runs calls of one key one after another, and a call of another key at once', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = inTurn('a', async () => {
      order.push('a1 start');
      await held;
      order.push('a1 end');
    });
    const second = inTurn('a', async () => void order.push('a2'));
    await inTurn('b', async () => void order.push('b'));
    assert.deepEqual(order, ['a1 start', 'b']);
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['a1 start', 'b', 'a1 end', 'a2']);
  });

  it('a call that fails does not stop the next one of its key', async () => {
    await assert.rejects(inTurn('c', async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await inTurn('c', async () => 'next'), 'next');
  });
});
