/**
 * Lifecycle emails against a real SMTP server on loopback (smtp-server), read with mailparser as a
 * mailbox would: each email in its participant's language, its headers, links that work against the
 * service, hostile campaign texts escaped, one-click unsubscribe honoured at once, retries after the
 * SMTP server refuses, the per-domain throttle, the settings, and the admin routes (texts, preview, test
 * send, delivery log). On SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import type { CreateCampaignBody } from '../../src/api/schemas.js';
import { RefkitClient } from '../../src/api/client.js';
import { releaseDueRewards } from '../../src/server/rewards/domain/reward-release.js';
import { queueReminders } from '../../src/server/emails/domain/lifecycle-emails.js';
import { DAY_MS } from '../../src/server/kernel/time.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type ServiceOptions, type TestService } from './helpers/service.js';
import { startMailbox, type Mailbox } from './helpers/smtp.js';
import { recipientsOf } from './helpers/email-outbox.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { TEST_EMAILS_PER_HOUR } from '../../src/server/emails/domain/preview.js';
import { EmailSender } from '../../src/server/emails/domain/sender.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { FastifyBaseLogger } from 'fastify';

const FAST = { pollMs: 30, retryDelaysMs: [50, 50, 50], leaseMs: 5_000 };

/** A header as it was sent (mailparser folds the List-* headers into one structured `list`). */
const header = (mail: ParsedMail, name: string) => {
  const line = mail.headerLines.find((h) => h.key === name)?.line ?? '';
  return line.slice(line.indexOf(':') + 1).replace(/\r?\n\s+/g, ' ').trim();
};
/** The unsubscribe URL of an email's List-Unsubscribe header. */
const unsubscribeUrlOf = (mail: ParsedMail) => {
  const m = /<([^>]+)>/.exec(header(mail, 'list-unsubscribe'));
  assert.ok(m, 'a List-Unsubscribe header');
  return m[1]!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const kind of await databaseKinds()) {
  describe(`lifecycle emails [${kind.name}]`, { skip: kind.skip }, () => {
    let mailbox: Mailbox;
    let s: TestService;
    /** The service's clock runs on, `offset` ahead of the real one. */
    let clock = { offset: 0 };
    /** Unique per test, in every address: the mailbox keeps what the earlier tests received. */
    let tag = '';
    const start = async (options: ServiceOptions = {}) => {
      s = await startService(kind, { smtpUrl: mailbox.url, mail: FAST, now: () => Date.now() + clock.offset, ...options });
    };
    before(async () => {
      mailbox = await startMailbox();
    });
    after(async () => {
      await mailbox.close();
    });
    beforeEach(async () => {
      clock = { offset: 0 };
      tag = `${kind.name}-${Math.random().toString(36).slice(2, 8)}`;
      mailbox.refuse(0);
      await start();
    });
    afterEach(async () => {
      await s.close();
    });

    const outbox = (s: TestService) => s.ctx.store.db.selectFrom('email_outbox').selectAll().orderBy('created_on').orderBy('id').execute();
    const campaign = (fields: Partial<CreateCampaignBody> = {}) => s.campaign({ campaignName: 'Acme Notes', rewardType: 'cash', rewardCurrency: 'EUR', ...fields });
    /** Waits until no email of the service is pending. */
    const settled = async () => {
      for (let i = 0; i < 200; i++) {
        if ((await outbox(s)).every((r) => r.status !== 'pending')) return;
        await sleep(25);
      }
      throw new Error('emails still pending');
    };

    it('a new participant is welcomed in their language, with the share link, its QR code and one-click unsubscribe headers', async () => {
      const id = await campaign();
      const de = `dora-${tag}@example.com`;
      const ar = `amal-${tag}@example.com`;
      const en = `eve-${tag}@example.com`;
      const dora = await s.admin.addParticipant({ id, email: de, firstName: 'Dora' }, 'de-CH');
      await s.browser.signUp({ id, email: ar, firstName: 'أمل' }, {}, 'ar');
      // A language Refkit does not write in reads English.
      await s.admin.addParticipant({ id, email: en }, 'ja');

      const [german] = await mailbox.to(de);
      assert.equal(german!.subject, 'Willkommen bei Acme Notes');
      assert.match(german!.text ?? '', /^Hallo Dora,/);
      assert.ok(german!.text!.includes(dora.shareLink!), 'the share link is in the text');
      assert.match(german!.html || '', /<html[^>]* lang="de"/);
      assert.ok((german!.html || '').includes(`href="${dora.shareLink!.replaceAll('&', '&amp;')}"`), 'the button opens the share link');
      const qr = german!.attachments.find((a) => a.cid === 'qr');
      assert.equal(qr?.contentType, 'image/png');
      assert.ok(qr!.content.length > 200);
      // mailparser puts the cid: image inline, as a data: URI.
      assert.match(german!.html || '', /<img src="data:image\/png;base64,[^"]+" width="160" height="160" alt="QR-Code deines Links"/);
      assert.equal(header(german!, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
      assert.match(unsubscribeUrlOf(german!), new RegExp(`^${s.url}/email/unsubscribe\\?`));
      assert.ok(german!.text!.includes(unsubscribeUrlOf(german!)), 'the footer links the same unsubscribe page');
      assert.match(german!.text ?? '', /weil du am Empfehlungsprogramm von Acme Notes teilnimmst/);

      const [arabic] = await mailbox.to(ar);
      assert.equal(arabic!.subject, 'مرحبًا بك في Acme Notes');
      assert.match(arabic!.html || '', /<html[^>]* dir="rtl"/);
      assert.match(arabic!.text ?? '', /^مرحبًا أمل،/);

      const [english] = await mailbox.to(en);
      assert.equal(english!.subject, 'Welcome to Acme Notes');
      // No first name: "Hi {firstName}," reads "Hi,".
      assert.match(english!.text ?? '', /^Hi,\n/);

      // The share link works: the service knows the code it carries.
      const link = new URL(dora.shareLink!);
      assert.equal(await s.browser.validateCode(link.searchParams.get('id')!, link.searchParams.get('referralCode')!), true);

      // A malformed language tag is a 400 that changes nothing.
      const res = await fetch(`${s.url}/api/v1/addParticipant`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.secretKey}`, 'refkit-locale': 'de;<x>' },
        body: JSON.stringify({ id, email: `bad-${tag}@example.com` }),
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_request');
      assert.equal((await outbox(s)).length, 3);
      const locales = await s.ctx.store.db.selectFrom('participants').select(['email', 'locale']).orderBy('id').execute();
      assert.deepEqual(
        locales.map((p) => p.locale),
        ['de', 'ar', 'en'],
      );
    });

    it("the sender's log line for an email that went out carries no error field (the demo's log read `error: null` as a problem)", async () => {
      await s.close();
      s = await startService(kind, { smtpUrl: mailbox.url });
      const lines: Record<string, unknown>[] = [];
      const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) });
      const sender = new EmailSender(s.ctx, s.ctx.mailer!, { baseUrl: s.url, pollMs: 20 }, pino({ level: 'info' }, sink) as unknown as FastifyBaseLogger);
      const id = await campaign();
      await s.admin.addParticipant({ id, email: `logged-${tag}@example.com` });
      sender.start();
      try {
        await mailbox.to(`logged-${tag}@example.com`);
        await settled();
      } finally {
        await sender.stop();
      }
      const sent = lines.filter((l) => l.msg === 'lifecycle email');
      assert.equal(sent.length, 1, JSON.stringify(lines));
      assert.deepEqual([sent[0]!.kind, sent[0]!.next, 'error' in sent[0]!], ['welcome', 'sent', false]);
    });

    it('a reward taken back by a refund is told to its participant (reward_reversed), once per change; the referee is not thanked for spreading the word; off, nothing', async () => {
      const id = await campaign({ holdDays: 0, referrerRewardValue: 0, refereeRewardValue: 5, referrerRewardPercent: 20 } as Partial<CreateCampaignBody>);
      const annEmail = `ann-${tag}@example.com`;
      const ann = await s.admin.addParticipant({ id, email: annEmail, firstName: 'Ann' });
      const benEmail = `ben-${tag}@example.com`;
      await s.admin.addParticipant({ id, email: benEmail, referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email: benEmail, amountPaid: '100.00' });
      const [benEarned] = (await mailbox.to(benEmail, 2)).filter((m) => m.subject === 'You earned €5');
      assert.ok(benEarned);
      assert.doesNotMatch(benEarned.text ?? '', /spreading the word/);
      // Half refunded: 10 of Ann's 20 taken back, and she is told so; the same refund replayed changes nothing.
      await s.admin.refundPayment({ id, email: benEmail, amount: '50.00' }, 'refund-half');
      await s.admin.refundPayment({ id, email: benEmail, amount: '50.00' }, 'refund-half');
      const reversed = (await mailbox.to(annEmail, 4)).filter((m) => m.subject === 'Your €10 reward was taken back');
      assert.equal(reversed.length, 1);
      assert.match(reversed[0]!.text ?? '', /The €10 you earned with Acme Notes was taken back/);
      await settled();
      assert.equal((await outbox(s)).filter((r) => r.kind === 'reward_reversed').length, 1);
      // Previewed like the others; turned off, a refund writes none.
      assert.match((await s.admin.previewEmail({ id, kind: 'reward_reversed', locale: 'de' })).subject, /^Deine Prämie von 10\s€ wurde zurückgenommen$/);
      await s.admin.updateEmailSettings({ id, reward_reversed: false });
      await s.admin.refundPayment({ id, email: benEmail, amount: '10.00' });
      assert.equal((await outbox(s)).filter((r) => r.kind === 'reward_reversed').length, 1);
    });

    it('the referrer hears of a friend joining, of each reward with its amount and code, and of milestones, once per change', async () => {
      const id = await campaign({ holdDays: 0, milestones: [{ referrals: 1, reward: 50, label: 'Gold' }] } as Partial<CreateCampaignBody>);
      await s.admin.addRewardCodes({ id, kind: 'referral', codes: ['GIFT-<1>'] });
      const annEmail = `ann-${tag}@example.com`;
      const ann = await s.admin.addParticipant({ id, email: annEmail, firstName: 'Ann' }, 'fr');
      await s.admin.addParticipant({ id, email: `bob-${tag}@example.com`, firstName: 'Bob' }, 'en');
      await s.admin.addParticipant({ id, email: `cy-${tag}@example.com`, referredByCode: ann.referralCode! });
      const [, joined] = await mailbox.to(annEmail, 2);
      // A friend without a first name is named by their masked email, never their address.
      assert.equal(joined!.subject, 'c***@example.com a rejoint le programme grâce à votre lien');

      await s.admin.qualifyParticipant({ id, email: `cy-${tag}@example.com` });
      // Qualifying again is no new change: no second email.
      await s.admin.qualifyParticipant({ id, email: `cy-${tag}@example.com` });
      const mails = await mailbox.to(annEmail, 4);
      await settled();
      const earned = mails.find((m) => m.subject?.startsWith('Vous avez gagné'));
      assert.ok(earned, mails.map((m) => m.subject).join(' | '));
      // 10 EUR as French writes it, and the code from the pool (escaped in the HTML, as text in the text).
      assert.match(earned.subject!, /^Vous avez gagné 10\s€$/);
      assert.match(earned.text ?? '', /Votre code de récompense: GIFT-<1>/);
      assert.match(earned.html || '', /GIFT-&lt;1&gt;/);
      const milestone = mails.find((m) => m.subject === 'Palier atteint : Gold');
      assert.ok(milestone);
      assert.match(milestone.text ?? '', /parrainé 1 ami pour Acme Notes/);
      const cy = await mailbox.to(`cy-${tag}@example.com`, 2);
      assert.deepEqual(cy.map((m) => m.subject).sort(), ['Welcome to Acme Notes', 'You earned €5'].sort());
      const kinds = (await outbox(s)).map((r) => r.kind).sort();
      assert.deepEqual(kinds, ['friend_joined', 'milestone', 'reward_earned', 'reward_earned', 'welcome', 'welcome', 'welcome']);
    });

    it('a held reward is earned with its date, and is announced again when it becomes available', async () => {
      const id = await campaign({ holdDays: 14 } as Partial<CreateCampaignBody>);
      const annEmail = `ann-${tag}@example.com`;
      const ann = await s.admin.addParticipant({ id, email: annEmail }, 'es');
      await s.admin.addParticipant({ id, email: `cy-${tag}@example.com`, referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email: `cy-${tag}@example.com` });
      const earned = (await mailbox.to(annEmail, 3)).find((m) => m.subject?.startsWith('Has ganado'));
      assert.ok(earned);
      const date = new Intl.DateTimeFormat('es', { dateStyle: 'long', timeZone: 'UTC' }).format(Date.now() + 14 * DAY_MS);
      assert.ok(earned.text!.includes(`Disponible el ${date}`), earned.text);

      clock.offset += 15 * DAY_MS;
      await releaseDueRewards(s.ctx);
      const mails = await mailbox.to(annEmail, 4);
      assert.ok(mails.some((m) => m.subject === 'Tu recompensa de 10 € ya está disponible'), mails.map((m) => m.subject).join(' | '));
    });

    it('the reminder to share is off by default; on, it goes once to those who referred no one after the days set', async () => {
      const id = await campaign();
      const alone = `alone-${tag}@example.com`;
      const sharer = `sharer-${tag}@example.com`;
      const recent = `recent-${tag}@example.com`;
      const gone = `gone-${tag}@example.com`;
      await s.admin.addParticipant({ id, email: alone, firstName: 'Al' }, 'fr');
      const sh = await s.admin.addParticipant({ id, email: sharer });
      await s.admin.addParticipant({ id, email: `friend-${tag}@example.com`, referredByCode: sh.referralCode! });
      await s.admin.addParticipant({ id, email: gone });
      clock.offset += 4 * DAY_MS;
      await s.admin.addParticipant({ id, email: recent });

      assert.equal(await queueReminders(s.ctx), 0, 'off by default');
      const view = await s.admin.updateEmailSettings({ id, reminder: true, reminderDays: 3 });
      assert.deepEqual([view.settings.reminder, view.settings.reminderDays], [true, 3]);
      await rejects(() => s.admin.updateEmailSettings({ id, reminderDays: 0 }), 400, 'invalid_request');
      // One who unsubscribed gets none.
      const [goneWelcome] = await mailbox.to(gone);
      assert.equal((await fetch(unsubscribeUrlOf(goneWelcome!), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' })).status, 200);

      // Al, and the sharer's friend, who joined as long ago and has referred no one either.
      assert.equal(await queueReminders(s.ctx), 2);
      assert.equal(await queueReminders(s.ctx), 0, 'once');
      await mailbox.to(`friend-${tag}@example.com`, 2);
      const [, reminder] = await mailbox.to(alone, 2);
      assert.equal(reminder!.subject, 'Vos amis passent à côté de Acme Notes');
      assert.match(reminder!.text ?? '', /^Bonjour Al,/);
      await settled();
      assert.deepEqual((await outbox(s)).filter((r) => r.kind === 'reminder').map((r) => r.status), ['sent', 'sent']);
      clock.offset += 10 * DAY_MS;
      assert.equal(await queueReminders(s.ctx), 1, 'the recent one, once their days have passed');
      await mailbox.to(recent, 2);
      const toSharer = (await mailbox.to(sharer, 2)).map((m) => m.subject).sort();
      assert.deepEqual(toSharer, ['Welcome to Acme Notes', 'f***@example.com joined through your link'].sort(), 'one who referred someone is not reminded');
    });

    it("a waitlist's participants let in hear of it, in their language, once; off, they do not", async () => {
      const id = await campaign({ waitlist: { spotsPerReferral: 5 } });
      const de = `dora-${tag}@example.com`;
      const en = `eve-${tag}@example.com`;
      const off = `otto-${tag}@example.com`;
      await s.admin.addParticipant({ id, email: de, firstName: 'Dora' }, 'de');
      await s.admin.addParticipant({ id, email: en, firstName: 'Eve' });
      await s.admin.addParticipant({ id, email: off });
      assert.deepEqual((await s.admin.grantAccess({ id, count: 1 })).granted.map((g) => g.email), [de]);
      const [, german] = await mailbox.to(de, 2);
      assert.equal(german!.subject, 'Du bist dabei: Acme Notes');
      assert.match(german!.text ?? '', /^Hallo Dora,\s+dein Platz auf der Warteliste von Acme Notes ist an der Reihe/);
      assert.equal(header(german!, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
      // Let in again by name: nothing new happens, and no second email.
      assert.deepEqual((await s.admin.grantAccess({ id, emails: [de, en] })).granted.map((g) => g.email), [en]);
      const [, english] = await mailbox.to(en, 2);
      assert.equal(english!.subject, "You're in: Acme Notes");
      await s.admin.updateEmailSettings({ id, access_granted: false });
      await s.admin.grantAccess({ id, emails: [off] });
      await settled();
      assert.deepEqual((await outbox(s)).filter((r) => r.kind === 'access_granted').map((r) => [r.participant_id, r.status]).length, 2, 'none written for the email turned off');
      assert.equal((await mailbox.to(de, 2)).length, 2, 'one each');
    });

    it("a referrer who reaches the leaderboard's shown places hears of it once per board, with the place, in their language; off, they do not", async () => {
      const id = await campaign({ holdDays: 0, leaderboard: { period: 'month', size: 2 } } as Partial<CreateCampaignBody>);
      const people = { ann: `ann-${tag}@example.com`, bob: `bob-${tag}@example.com`, cy: `cy-${tag}@example.com` };
      const ann = await s.admin.addParticipant({ id, email: people.ann, firstName: 'Ann' }, 'de');
      const bob = await s.admin.addParticipant({ id, email: people.bob, firstName: 'Bob' });
      const cy = await s.admin.addParticipant({ id, email: people.cy, firstName: 'Cy' });
      let n = 0;
      /** A friend of `referrer` joins and qualifies: one more credited referral. */
      const refer = async (referrer: { referralCode?: string }) => {
        const email = `f${++n}-${tag}@example.com`;
        await s.admin.addParticipant({ id, email, referredByCode: referrer.referralCode! });
        await s.admin.qualifyParticipant({ id, email });
      };
      /** Who the leaderboard news went to, by email, oldest first. */
      const boardNews = () => recipientsOf(s, 'leaderboard_top');

      await refer(ann);
      await refer(ann);
      await refer(bob);
      await refer(cy); // third: the board shows two places
      await settled();
      const annBoard = (await mailbox.to(people.ann, 4)).filter((m) => m.subject?.includes('Bestenliste'));
      assert.equal(annBoard.length, 1, 'Ann heard once, not again at her second referral');
      const [toAnn] = annBoard;
      assert.equal(toAnn!.subject, 'Du bist Nr. 1 in der Bestenliste von Acme Notes');
      assert.match(toAnn!.text ?? '', /^Hallo Ann,\s+mit deinen qualifizierten Empfehlungen \(1 Freund\) bist du Nr\. 1 in der Bestenliste von Acme Notes, die die besten 2 zeigt/);
      assert.equal(header(toAnn!, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
      const toBob = (await mailbox.to(people.bob, 3)).find((m) => m.subject?.includes('leaderboard'));
      assert.equal(toBob?.subject, 'You are #2 on the Acme Notes leaderboard');
      assert.deepEqual(await boardNews(), [people.ann, people.bob], 'Cy, third on a board of two, hears nothing');

      // A new month is a new board: the first to climb it hears again, though last month's board had them third.
      clock.offset += 35 * DAY_MS;
      await refer(cy);
      await settled();
      const cyNews = (await mailbox.to(people.cy, 2)).find((m) => m.subject?.includes('leaderboard'));
      assert.equal(cyNews?.subject, 'You are #1 on the Acme Notes leaderboard');
      assert.deepEqual(await boardNews(), [people.ann, people.bob, people.cy]);

      await s.admin.updateEmailSettings({ id, leaderboard_top: false });
      await refer(bob); // Bob is #2 on this month's board, but the email is off
      await settled();
      assert.deepEqual(await boardNews(), [people.ann, people.bob, people.cy], 'none written for the email turned off');
    });

    it('hostile campaign texts are escaped in the HTML and cannot break the subject', async () => {
      const id = await campaign({ campaignName: '<script>alert(1)</script> & Co' });
      await s.admin.putEmailText({
        id,
        kind: 'welcome',
        locale: 'en',
        subject: 'Hi {firstName} <img src=x onerror=alert(2)>',
        body: 'Hello {firstName}!\n\n<a href="https://evil.example">click</a> {shareLink} @@LINK@@ {unknown}',
      });
      const email = `h-${tag}@example.com`;
      await s.admin.addParticipant({ id, email, firstName: '<b onmouseover=x>Zed</b>' });
      const [mail] = await mailbox.to(email);
      const html = mail!.html || '';
      assert.doesNotMatch(html, /<script>|<img src=x|<a href="https:\/\/evil|<b onmouseover/);
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; Co/);
      assert.match(html, /&lt;a href=&quot;https:\/\/evil.example&quot;&gt;click&lt;\/a&gt;/);
      // An owner's "@@LINK@@" stays text, and an unknown variable stays as written.
      assert.match(html, /@@LINK@@ \{unknown\}/);
      assert.equal(mail!.subject, 'Hi <b onmouseover=x>Zed</b> <img src=x onerror=alert(2)>');
      // A line break would start a header: a subject is one line, refused otherwise.
      await rejects(() => s.admin.putEmailText({ id, kind: 'welcome', locale: 'en', subject: 'a\r\nBcc: x@example.com', body: 'b' }), 400, 'invalid_request');
    });

    it("a friend whose first name reads as a link or an address is named by their masked address in the referrer's email", async () => {
      const id = await campaign();
      await s.admin.putEmailText({ id, kind: 'friend_joined', locale: 'en', subject: '{friend} joined', body: '{friend} joined through your link.' });
      const referrer = `r-${tag}@example.com`;
      const { referralCode } = await s.admin.addParticipant({ id, email: referrer });
      const friends = ['evil.example/win', 'https://evil.example', 'win@evil.example', 'Zoë'];
      for (const [i, firstName] of friends.entries()) await s.admin.addParticipant({ id, email: `f${i}-${tag}@example.com`, firstName, referredByCode: referralCode! });
      const subjects = (await mailbox.to(referrer, 5)).map((m) => m.subject).filter((subject) => subject?.endsWith(' joined')).sort();
      assert.deepEqual(subjects, ['Zoë joined', 'f***@example.com joined', 'f***@example.com joined', 'f***@example.com joined']);
    });

    it('unsubscribing (one-click POST, or the page) is honoured at once, for that campaign only', async () => {
      const id = await campaign();
      const other = await campaign({ campaignName: 'Other' });
      const email = `u-${tag}@example.com`;
      const ann = await s.admin.addParticipant({ id, email }, 'de');
      await s.admin.addParticipant({ id: other, email });
      const [welcome] = await mailbox.to(email);
      const url = unsubscribeUrlOf(welcome!);

      // GET asks, and changes nothing (mail scanners fetch links).
      const page = await fetch(url);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<html lang="de" dir="ltr">/);
      assert.match(html, /Keine E-Mails mehr zum Empfehlungsprogramm von Acme Notes erhalten\?/);
      assert.match(html, /<form method="post"/);
      assert.equal((await s.ctx.store.db.selectFrom('email_unsubscribes').selectAll().execute()).length, 0);

      // A forged or altered link is refused.
      const forged = new URL(url);
      forged.searchParams.set('p', String(Number(forged.searchParams.get('p')) + 1));
      assert.equal((await fetch(forged, { method: 'POST' })).status, 404);
      forged.searchParams.set('t', 'x'.repeat(43));
      assert.equal((await fetch(forged)).status, 404);
      assert.equal((await fetch(`${s.url}/email/unsubscribe?c=${id}&p=abc&t=x`)).status, 400);

      // RFC 8058: the mail client's one-click POST.
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /Du bist abgemeldet/);
      // Again: the same answer, nothing more.
      assert.equal((await fetch(url, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n' })).status, 200);

      // At once: the friend's sign-up right after writes the email, and the sender skips it.
      await s.admin.addParticipant({ id, email: `f-${tag}@example.com`, referredByCode: ann.referralCode! });
      await mailbox.to(`f-${tag}@example.com`);
      await settled();
      const rows = await outbox(s);
      const friendJoined = rows.find((r) => r.kind === 'friend_joined')!;
      assert.equal(friendJoined.status, 'skipped');
      assert.equal(friendJoined.last_error, 'unsubscribed');
      assert.equal((await mailbox.to(email)).length, 2, 'the welcome of each campaign, and nothing after');
      const log = await s.admin.listEmails({ id });
      assert.equal(log.items.find((i) => i.kind === 'friend_joined')?.status, 'skipped');
    });

    it('an email the SMTP server refuses is retried until it goes, then failed once the schedule runs out', async () => {
      const id = await campaign();
      mailbox.refuse(2);
      const email = `r-${tag}@example.com`;
      await s.admin.addParticipant({ id, email });
      const [mail] = await mailbox.to(email);
      assert.equal(mail!.subject, 'Welcome to Acme Notes');
      await settled();
      let [row] = await outbox(s);
      assert.equal(row!.status, 'sent');
      assert.equal(row!.attempt_count, 3);
      assert.equal(mailbox.turnedAway(), 2);

      mailbox.refuse(100);
      await s.admin.addParticipant({ id, email: `never-${tag}@example.com` });
      await settled();
      row = (await outbox(s)).find((r) => r.kind === 'welcome' && r.status !== 'sent');
      assert.equal(row!.status, 'failed');
      assert.equal(row!.attempt_count, 4, 'the first attempt and the three retries');
      assert.match(row!.last_error ?? '', /Try again later/);
      const log = await s.admin.listEmails({ id, status: 'failed' });
      assert.equal(log.items.length, 1);
      assert.equal(log.items[0]!.to, `never-${tag}@example.com`);
      assert.match(log.items[0]!.lastError ?? '', /Try again later/);
      mailbox.refuse(0);
    });

    it('emails to one domain are throttled: at most so many a window, the rest after', async () => {
      await s.close();
      await start({ mail: { ...FAST, perDomain: 2, domainWindowMs: 1_000 } });
      const id = await campaign();
      const domain = `throttle-${tag}.example`;
      for (let i = 0; i < 5; i++) await s.admin.addParticipant({ id, email: `t${i}@${domain}` });
      for (let i = 0; i < 5; i++) await mailbox.to(`t${i}@${domain}`);
      await settled();
      // Judged by the service's own record of when each went (its clock, which the limit reads), not by
      // when they arrived: a busy machine only delays a send, so no third may go within a window of two.
      const sent = (await outbox(s)).filter((r) => r.domain === domain && r.status === 'sent').map((r) => Number(r.sent_on)).sort((a, b) => a - b);
      assert.equal(sent.length, 5);
      for (let i = 2; i < sent.length; i++) assert.ok(sent[i]! - sent[i - 2]! >= 1_000, `sends ${i - 2} and ${i} to one domain ${sent[i]! - sent[i - 2]!} ms apart`);
    });

    it('emails the campaign turned off are not written; nothing is written without SMTP_URL, and the settings say so', async () => {
      const id = await campaign();
      const view = await s.admin.updateEmailSettings({ id, welcome: false, postalAddress: '  1 Main St, Springfield  ' });
      assert.equal(view.settings.welcome, false);
      assert.equal(view.settings.friend_joined, true);
      assert.equal(view.settings.postalAddress, '1 Main St, Springfield');
      assert.equal(view.smtpConfigured, true);
      const ann = await s.admin.addParticipant({ id, email: `off-${tag}@example.com` });
      await s.admin.addParticipant({ id, email: `f-${tag}@example.com`, referredByCode: ann.referralCode! });
      const [joined] = await mailbox.to(`off-${tag}@example.com`);
      assert.match(joined!.text ?? '', /1 Main St, Springfield/, "the owner's address is in the footer");
      assert.deepEqual((await outbox(s)).map((r) => r.kind), ['friend_joined']);
      await rejects(() => s.admin.updateEmailSettings({ id, welcome: 'yes' } as never), 400, 'invalid_request');
      // Changes of different fields at once all land, as in some serial order.
      await Promise.all([
        s.admin.updateEmailSettings({ id, milestone: false }),
        s.admin.updateEmailSettings({ id, reward_available: false }),
        s.admin.updateEmailSettings({ id, reminderDays: 30 }),
        s.admin.updateEmailSettings({ id, reward_earned: false }),
      ]);
      const both = (await s.admin.getEmailSettings(id)).settings;
      assert.deepEqual([both.welcome, both.milestone, both.reward_available, both.reward_earned, both.reminderDays, both.postalAddress], [false, false, false, false, 30, '1 Main St, Springfield']);
      await s.admin.updateEmailSettings({ id, milestone: true, reward_available: true, reward_earned: true });
      await rejects(() => s.admin.updateEmailSettings({ id: 'cmp_nope', welcome: true }), 404, 'campaign_not_found');

      await s.close();
      s = await startService(kind, {});
      const quiet = await campaign();
      await s.admin.addParticipant({ id: quiet, email: `q-${tag}@example.com` });
      assert.equal((await outbox(s)).length, 0);
      assert.equal((await s.admin.getEmailSettings(quiet)).smtpConfigured, false);
      await rejects(() => s.admin.sendTestEmail({ id: quiet, kind: 'welcome', locale: 'en', to: 'me@example.com' }), 503, 'unavailable');
    });

    it('owners edit texts per email and language, preview drafts, send a test, and page through the log', async () => {
      const id = await campaign();
      let view = await s.admin.getEmailSettings(id);
      assert.equal(view.texts.length, 55, 'eleven emails in five languages');
      assert.ok(view.variables.includes('shareLink'));
      view = await s.admin.putEmailText({ id, kind: 'welcome', locale: 'fr', subject: 'Salut {firstName} !', body: 'Voici {shareLink}' });
      assert.deepEqual(
        view.texts.filter((t) => t.custom).map((t) => [t.kind, t.locale, t.subject]),
        [['welcome', 'fr', 'Salut {firstName} !']],
      );
      await rejects(() => s.admin.putEmailText({ id, kind: 'welcome', locale: 'it' as never, subject: 'x', body: 'y' }), 400, 'invalid_request');
      await rejects(() => s.admin.putEmailText({ id, kind: 'nope' as never, locale: 'fr', subject: 'x', body: 'y' }), 400, 'invalid_request');
      await rejects(() => s.admin.putEmailText({ id, kind: 'welcome', locale: 'fr', subject: 'x', body: '   ' }), 400, 'invalid_request', 'body');

      // The preview shows the saved text, or a draft, without saving it.
      let preview = await s.admin.previewEmail({ id, kind: 'welcome', locale: 'fr' });
      assert.equal(preview.subject, 'Salut Alex !');
      assert.match(preview.html, /<html[^>]* lang="fr"/);
      preview = await s.admin.previewEmail({ id, kind: 'reward_earned', locale: 'ar', subject: 'مسودة {reward}' });
      assert.match(preview.subject, /^مسودة /);
      assert.match(preview.html, /dir="rtl"/);
      // The sample shows a reward code only where the campaign has a pool to give one.
      assert.doesNotMatch(preview.text, /SAMPLE-CODE-123/);
      await s.admin.addRewardCodes({ id, kind: 'referral', codes: ['C1'] });
      assert.match((await s.admin.previewEmail({ id, kind: 'reward_earned', locale: 'en' })).text, /Your reward code: SAMPLE-CODE-123/);
      // A welcome's QR code is inline in a preview (a page shows no cid: image).
      assert.match((await s.admin.previewEmail({ id, kind: 'welcome', locale: 'en' })).html, /<img src="data:image\/png;base64,/);
      // The leaderboard news shows a sample place among as many as the campaign's board shows.
      await s.admin.updateCampaign({ id, leaderboard: { period: 'all', size: 25 } });
      assert.match((await s.admin.previewEmail({ id, kind: 'leaderboard_top', locale: 'en' })).text, /you are #3 on the Acme Notes leaderboard, which shows the top 25\./);
      assert.equal((await s.admin.getEmailSettings(id)).texts.filter((t) => t.custom).length, 1);

      // To a member of the team only: the owner's own address, not a stranger's.
      await createOwner(s.ctx, `owner-${tag}@example.com`, 'correct horse battery');
      await s.admin.sendTestEmail({ id, kind: 'welcome', locale: 'fr', to: `owner-${tag}@example.com` });
      const [test] = await mailbox.to(`owner-${tag}@example.com`);
      assert.equal(test!.subject, 'Salut Alex !');
      await rejects(() => s.admin.sendTestEmail({ id, kind: 'welcome', locale: 'fr', to: 'not an address' }), 400, 'invalid_request', 'to');
      await rejects(() => s.admin.sendTestEmail({ id, kind: 'welcome', locale: 'fr', to: `stranger-${tag}@example.com` }), 400, 'invalid_request', 'to');
      // At most TEST_EMAILS_PER_HOUR an hour: the refusals above used none.
      for (let i = 1; i < TEST_EMAILS_PER_HOUR; i++) await s.admin.sendTestEmail({ id, kind: 'welcome', locale: 'en', to: `owner-${tag}@example.com` });
      await rejects(() => s.admin.sendTestEmail({ id, kind: 'welcome', locale: 'en', to: `owner-${tag}@example.com` }), 429, 'rate_limited');
      assert.equal((await mailbox.to(`owner-${tag}@example.com`, TEST_EMAILS_PER_HOUR)).length, TEST_EMAILS_PER_HOUR);
      // Nothing reached the stranger (every test email sent was taken before the last one was answered).
      assert.deepEqual(mailbox.messages.filter((m) => JSON.stringify(m.to).includes(`stranger-${tag}`)), []);

      view = await s.admin.resetEmailText({ id, kind: 'welcome', locale: 'fr' });
      assert.equal(view.texts.filter((t) => t.custom).length, 0);

      // The log, a page at a time, newest first.
      for (let i = 0; i < 5; i++) {
        clock.offset += 1;
        await s.admin.addParticipant({ id, email: `p${i}-${tag}@example.com` });
      }
      const first = await s.admin.listEmails({ id, limit: 2 });
      assert.deepEqual(first.items.map((i) => i.to), [`p4-${tag}@example.com`, `p3-${tag}@example.com`]);
      const second = await s.admin.listEmails({ id, limit: 2, cursor: first.nextCursor! });
      const third = await s.admin.listEmails({ id, limit: 2, cursor: second.nextCursor! });
      assert.deepEqual(
        [...second.items, ...third.items].map((i) => i.to),
        [2, 1, 0].map((n) => `p${n}-${tag}@example.com`),
      );
      assert.equal(third.nextCursor, undefined);
      await rejects(() => s.admin.listEmails({ id, cursor: 'bm9wZQ' }), 400, 'invalid_request', 'cursor');

      // Another account's key sees none of it.
      const stranger = new RefkitClient({ baseUrl: s.url, secretKey: 'sk_not_a_key_of_this_service_000000' });
      await rejects(() => stranger.getEmailSettings(id), 401, 'unauthorized');
    });
  });
}
