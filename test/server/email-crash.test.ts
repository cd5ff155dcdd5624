/**
 * The email outbox survives a crash: the real service (`refkit serve` in a child process, SMTP_URL set)
 * answers sign-ups, starts sending their welcomes to an SMTP server that takes the message and never
 * answers, and is killed with SIGKILL. Started again on the same database, it sends each welcome once,
 * on SQLite and on PostgreSQL: no email is lost, none is sent twice.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { connect } from '../../src/server/store/connect.js';
import { startProcess, type ServiceProcess } from './helpers/process.js';
import { startMailbox } from './helpers/smtp.js';
import { kindsAtOnce } from './helpers/suite.js';

const KEY = 'sk_email_crash_0123456789abcdefghijklmnop';
/** A lease shorter than the test's patience: the killed process's claims run out quickly. */
const MAIL = { MAIL_POLL_MS: '50', MAIL_LEASE_MS: '1500', MAIL_RETRY_DELAYS_MS: '100' };
const SIGNUPS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

kindsAtOnce('lifecycle emails survive SIGKILL', (kind) => {
  describe(`lifecycle emails survive SIGKILL [${kind.name}]`, { skip: kind.skip, concurrency: 1 }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });

    it('welcomes written with their sign-ups are sent once after a kill mid-send', async () => {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      const mailbox = await startMailbox();
      cleanup.push(() => mailbox.close());
      const start = async (): Promise<ServiceProcess> => {
        const p = await startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, SMTP_URL: mailbox.url, MAIL_FROM: 'Crash <crash@example.test>', ...MAIL });
        cleanup.push(() => p.stop('SIGKILL'));
        return p;
      };

      mailbox.hang(true);
      let p = await start();
      const admin = new RefkitClient({ baseUrl: p.url, secretKey: KEY });
      const id = (await admin.createCampaign({ campaignName: 'Crash Co', hostURL: 'https://crash.example/join' })).campaignId!;
      const emails = Array.from({ length: SIGNUPS }, (_, i) => `c${i}-${kind.name}@example.com`);
      for (const email of emails) await admin.addParticipant({ id, email });
      // The sender has handed the first message to the SMTP server, which holds it unanswered (the others
      // wait their turn): kill it there.
      for (let i = 0; mailbox.turnedAway() === 0 && i < 1200; i++) await sleep(25);
      assert.ok(mailbox.turnedAway() > 0, 'a welcome was being sent');
      assert.equal(await p.stop('SIGKILL'), null, 'killed by the signal');
      assert.equal(mailbox.messages.length, 0);

      const after = connect(db.url);
      try {
        const rows = await after.db.selectFrom('email_outbox').select(['status', 'claimed_until']).execute();
        assert.equal(rows.length, SIGNUPS, 'every answered sign-up has its welcome in the outbox');
        assert.ok(rows.every((r) => r.status === 'pending'), 'none marked sent');
        assert.ok(rows.some((r) => r.claimed_until !== null), 'the one being sent is claimed');
      } finally {
        await after.close();
      }

      mailbox.hang(false);
      p = await start();
      for (const email of emails) await mailbox.to(email);
      // Past another lease: nothing more arrives.
      await sleep(2_000);
      for (const email of emails) assert.equal((await mailbox.to(email)).length, 1, `${email}: one welcome`);
      assert.equal(mailbox.messages.length, SIGNUPS);
      const check = connect(db.url);
      try {
        const rows = await check.db.selectFrom('email_outbox').select(['status', 'attempt_count']).execute();
        assert.deepEqual(
          rows.map((r) => [r.status, r.attempt_count]),
          emails.map(() => ['sent', 1]),
          'the killed attempt was never recorded; the one after it was',
        );
      } finally {
        await check.close();
      }
    });
  });
});
