/**
 * The cash payout emails (payout_paid, payout_failed) on both databases: payouts run against the PayPal
 * stand-in (./helpers/fake-paypal.ts), settled by the sender, and their emails read from a real SMTP
 * server on loopback (./helpers/smtp.ts) as a mailbox would: each in its participant's language with the
 * amount as that language writes it, the failed one with why in plain words and the portal's link; once
 * per payout; none to a participant who unsubscribed, none written while the email is off; previewed and
 * edited as the other kinds are.
 */
import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { CashPayoutSender } from '../../src/server/payouts/domain/cash-payout-sender.js';
import { FakePayPal } from './helpers/fake-paypal.js';
import type { TestService } from './helpers/service.js';
import { startMailbox } from './helpers/smtp.js';
import { eachDatabase } from './helpers/suite.js';

const CLIENT = { clientId: 'refkit-live-client', clientSecret: 'refkit-live-secret' };
const RETRY_MS = 60_000;
const POLL_MS = 3_600_000;
const FAST = { pollMs: 30, retryDelaysMs: [50, 50, 50], leaseMs: 5_000 };

let offset = 0;
let paypal: FakePayPal;
/** Unique per test, in every address: the mailbox keeps what the earlier tests (and the other database) received. */
let tag = '';
const mailbox = await startMailbox();
after(() => mailbox.close());
beforeEach(async () => {
  offset = 0;
  tag = Math.random().toString(36).slice(2, 8);
  paypal = await new FakePayPal().allowClient(CLIENT.clientId, CLIENT.clientSecret).start();
});
afterEach(() => paypal.stop());

const address = (name: string) => `${name}-${tag}@example.com`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sender(s: TestService) {
  s.ctx.payouts = { publicUrl: s.url, paypalApiUrl: paypal.baseUrl };
  return new CashPayoutSender(s.ctx, { retryDelaysMs: [RETRY_MS], statusPollMs: POLL_MS, waitMs: RETRY_MS, timeoutMs: 2000, leaseMs: 30_000 });
}

/**
 * A campaign paying $20 a referral in cash by PayPal, $10 at least, sent without approval; only the
 * welcome and the payout emails on (the mailbox reads fewer). Each referrer (a name, and their language)
 * refers a friend who qualifies: $20 each, paid to their own address at PayPal.
 */
async function program(s: TestService, referrers: [string, string][]) {
  const id = await s.campaign({ campaignName: 'Acme Notes', referrerRewardValue: 20, refereeRewardValue: 0, rewardType: 'credit', rewardCurrency: 'USD' });
  await s.admin.updateCampaign({ id, cashPayouts: { methods: ['paypal'], minimum: 10, schedule: 'manual', approval: false } } as never);
  await s.admin.updateAccountSettings({ paypal: { ...CLIENT, webhookId: paypal.webhookId } });
  await s.admin.updateEmailSettings({ id, friend_joined: false, reward_earned: false, reward_available: false, milestone: false });
  for (const [name, locale] of referrers) {
    const email = address(name);
    const p = await s.admin.addParticipant({ id, email, firstName: name[0]!.toUpperCase() + name.slice(1) }, locale);
    await s.admin.addParticipant({ id, email: address(`${name}-friend`), referredByCode: p.referralCode! });
    await s.admin.qualifyParticipant({ id, email: address(`${name}-friend`) });
    await s.admin.setPayoutMethod({ id, email, method: 'paypal', paypalEmail: email });
  }
  return id;
}

/** Sends the run's batch; each referrer's item settles as scripted (SUCCESS unless named), read an hour later. */
async function payOut(s: TestService, id: string, outcomes: Record<string, string> = {}) {
  const run = await s.admin.createPayouts(id);
  const send = sender(s);
  const batches = paypal.made.length;
  await send.sendDue();
  const items = (paypal.made[batches]!.body as { items: { receiver: string; sender_item_id: string }[] }).items;
  for (const [name, status] of Object.entries(outcomes)) paypal.setItemStatus(items.find((i) => i.receiver === address(name))!.sender_item_id, status);
  offset += POLL_MS;
  await send.sendDue();
  return { run, send };
}

const outbox = (s: TestService, kind: string) =>
  s.ctx.store.db.selectFrom('email_outbox as o').innerJoin('participants as p', 'p.id', 'o.participant_id').select(['p.email', 'o.status', 'o.change_key']).where('o.kind', '=', kind).orderBy('p.email').execute();

/** Waits until no email of the service is pending. */
async function settled(s: TestService) {
  for (let i = 0; i < 400; i++) {
    const pending = await s.ctx.store.db.selectFrom('email_outbox').select('id').where('status', '=', 'pending').execute();
    if (pending.length === 0) return;
    await sleep(25);
  }
  throw new Error('emails still pending');
}

/** The one email to `name` whose subject matches. */
async function mailTo(name: string, subject: RegExp): Promise<ParsedMail> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = mailbox.messages.filter((m) => m.to && !Array.isArray(m.to) && m.to.value.some((v) => v.address === address(name)) && subject.test(m.subject ?? ''));
    if (found.length > 1) throw new Error(`${found.length} emails to ${name} match ${subject}`);
    if (found.length === 1) return found[0]!;
    if (Date.now() > deadline) throw new Error(`no email to ${name} matches ${subject}: ${mailbox.messages.map((m) => m.subject).join(' | ')}`);
    await sleep(25);
  }
}
const payoutMails = (name: string) => mailbox.messages.filter((m) => m.to && !Array.isArray(m.to) && m.to.value.some((v) => v.address === address(name)) && !/Welcome|Willkommen/.test(m.subject ?? ''));

eachDatabase(
  'Cash payout emails',
  (service) => {
    it('a paid payout and one that did not go through each email their participant once, in their language, with the amount, why, and the portal', async () => {
      const s = service();
      // Ann and Dora are paid; PayPal returns Ed's (his account did not take it) and fails Gus's; Hal, paid, unsubscribed first.
      const id = await program(s, [['ann', 'en'], ['dora', 'de'], ['ed', 'en'], ['gus', 'de-AT'], ['hal', 'en']]);
      const welcome = await mailTo('hal', /^Welcome/);
      const unsubscribe = /<([^>]+)>/.exec(welcome.headerLines.find((h) => h.key === 'list-unsubscribe')!.line)![1]!;
      const res = await fetch(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      assert.equal(res.status, 200);
      await payOut(s, id, { ed: 'RETURNED', gus: 'FAILED' });
      assert.deepEqual((await s.admin.listPayouts(id)).map((p) => p.status).sort(), ['failed', 'paid', 'paid', 'paid', 'returned']);
      const portal = `${s.url}/portal/${id}`;

      const ann = await mailTo('ann', /payout/);
      assert.equal(ann.subject, 'Your $20 payout is paid');
      assert.match(ann.text ?? '', /^Hi Ann,\n\nWe paid you \$20 from the rewards you earned with Acme Notes\. Thanks for spreading the word!\n/);
      assert.match(ann.text ?? '', /\nInvite more friends: http/, 'its button opens the share link');

      const dora = await mailTo('dora', /Auszahlung/);
      assert.match(dora.subject ?? '', /^Deine Auszahlung von 20\s\$ ist erfolgt$/);
      assert.match(dora.text ?? '', /^Hallo Dora,\n\nwir haben dir 20\s\$ aus den Belohnungen ausgezahlt, die du mit Acme Notes verdient hast\./);

      const ed = await mailTo('ed', /payout/);
      assert.equal(ed.subject, "Your $20 payout didn't reach you");
      assert.match(ed.text ?? '', /^Hi Ed,\n\nWe couldn't pay out the \$20 you earned with Acme Notes: the PayPal account didn't accept it\. The amount is back on your balance, nothing is lost\.\n/);
      assert.ok(ed.text!.includes(`Please check your payout details on your rewards page, so that the next payout reaches you: ${portal}\n`), ed.text);
      assert.ok(ed.text!.includes(`Check my payout details: ${portal}\n`), 'its button opens the portal');
      assert.ok((ed.html || '').includes(`href="${portal}"`));

      const gus = await mailTo('gus', /Auszahlung/);
      assert.match(gus.subject ?? '', /^Deine Auszahlung von 20\s\$ ist nicht angekommen$/);
      assert.match(gus.text ?? '', /: die Zahlung ist nicht durchgegangen\. Der Betrag ist wieder auf deinem Guthaben, es geht nichts verloren\./);
      assert.ok(gus.text!.includes(`Auszahlungsdaten prüfen: ${portal}`));
      assert.match(gus.html || '', /<html[^>]* lang="de"/);

      // Once per payout: the outbox holds one email each, keyed by the payout, and polling again changes nothing.
      // Hal's was written with the payout and skipped: he unsubscribed.
      offset += POLL_MS;
      await sender(s).sendDue();
      await settled(s);
      const [paidRows, failedRows] = [await outbox(s, 'payout_paid'), await outbox(s, 'payout_failed')];
      assert.deepEqual(paidRows.map((r) => [r.email, r.status]), [[address('ann'), 'sent'], [address('dora'), 'sent'], [address('hal'), 'skipped']]);
      assert.deepEqual(failedRows.map((r) => [r.email, r.status]), [[address('ed'), 'sent'], [address('gus'), 'sent']]);
      assert.ok([...paidRows, ...failedRows].every((r) => /^payout:\d+$/.test(r.change_key)));
      for (const name of ['ann', 'dora', 'ed', 'gus']) assert.equal(payoutMails(name).length, 1, name);
      assert.equal(payoutMails('hal').length, 0, 'no payout email to who unsubscribed');

      // The amounts are payable again, and the next payout's email is its own; payout_failed turned off is not written.
      await s.admin.updateEmailSettings({ id, payout_failed: false });
      await payOut(s, id, { gus: 'FAILED' });
      const again = await mailTo('ed', /Your \$20 payout is paid/);
      assert.match(again.text ?? '', /^Hi Ed,/);
      await settled(s);
      assert.deepEqual((await outbox(s, 'payout_failed')).length, 2, 'none written while it is off');
      assert.equal(payoutMails('gus').length, 1);
    });

    it('both payout emails are previewed and editable like the other kinds, and are on by default', async () => {
      const s = service();
      const id = await program(s, []);
      const view = await s.admin.getEmailSettings(id);
      assert.deepEqual([view.settings.payout_paid, view.settings.payout_failed], [true, true]);
      assert.equal(view.texts.filter((t) => t.kind.startsWith('payout_')).length, 10, 'two emails in five languages');
      assert.ok(view.variables.includes('reason') && view.variables.includes('portalLink'));

      const paid = await s.admin.previewEmail({ id, kind: 'payout_paid', locale: 'en' });
      assert.equal(paid.subject, 'Your $20 payout is paid');
      const failed = await s.admin.previewEmail({ id, kind: 'payout_failed', locale: 'fr' });
      assert.match(failed.subject, /^Votre versement de 20\s\$US ne vous est pas parvenu$/);
      assert.match(failed.text, /: le compte PayPal ne l'a pas accepté\. Le montant est de nouveau sur votre solde/);
      assert.match(failed.text, new RegExp(`/portal/${id}\\n`));
      const ar = await s.admin.previewEmail({ id, kind: 'payout_failed', locale: 'ar' });
      assert.match(ar.html, /<html[^>]* dir="rtl"/);
      // An owner's own text, with the variables.
      const draft = await s.admin.previewEmail({ id, kind: 'payout_failed', locale: 'en', subject: '{reward}: {reason}', body: 'Fix it at {portalLink}' });
      assert.equal(draft.subject, "$20: the PayPal account didn't accept it");
      await s.admin.putEmailText({ id, kind: 'payout_paid', locale: 'en', subject: 'Paid: {reward}', body: 'Enjoy it, {firstName}.' });
      assert.equal((await s.admin.previewEmail({ id, kind: 'payout_paid', locale: 'en' })).subject, 'Paid: $20');
    });
  },
  { smtpUrl: mailbox.url, mail: FAST, now: () => Date.now() + offset },
);
