/**
 * The referrer's portal (/api/v1/portal/*) over real HTTP, on each database, with a real SMTP server on
 * loopback read as a mailbox: sign-in always answers 202 and only the first request within the throttle
 * sends; a link signs in once, within 15 minutes; the cookie's attributes; the CSRF token on every POST; a
 * session reads its own participant of its own campaign and nothing else; what a participant sets of their
 * payouts is checked as the owner's routes check it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import type { PortalMe } from '../../src/api/portal-schemas.js';
import { Sealer } from '../../src/server/kernel/sealed.js';
import { portalLinksSettled } from '../../src/server/portal/domain/portal-links.js';
import { DEFAULT_RATE_LIMITS } from '../../src/server/http/rate-limit.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';
import { startMailbox, type Mailbox } from './helpers/smtp.js';

const MINUTE = 60_000;
/** The service's limits but the ones the tests' one client would reach (helpers/service.ts says which). */
const LIMITS = { ...DEFAULT_RATE_LIMITS, keyFailuresPerIp: 0, signupsPerIp: 0, redisUrl: undefined };
const PUBLIC_URL = 'https://refkit.example';

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; field?: string } };
  setCookie: string | null;
}

/** A session as a browser holds it: the cookie's value and the CSRF token. */
interface Session {
  cookie: string;
  csrf: string;
}

/** A client address of its own for each call (the service trusts one proxy hop), unless `ip` says which. */
const anyIp = () => `10.${randomBytes(3).join('.')}`;

async function call(s: TestService, method: 'GET' | 'POST', path: string, body?: unknown, session?: Partial<Session>, ip = anyIp()): Promise<Answer> {
  const headers: Record<string, string> = { 'x-forwarded-for': ip };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (session?.cookie) headers.cookie = `refkit_portal=${session.cookie}`;
  if (session?.csrf) headers['x-csrf-token'] = session.csrf;
  const res = await fetch(`${s.url}/api/v1/portal/${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Answer['body'], setCookie: res.headers.get('set-cookie') };
}

const me = async (s: TestService, id: string, session?: Partial<Session>) => call(s, 'GET', `me?id=${encodeURIComponent(id)}`, undefined, session);

/** The portal link of an email: its address and token. */
function portalLink(mail: ParsedMail): { url: URL; token: string } {
  const m = /https?:\/\/\S+\/portal\/\S+\?token=\S+/.exec(mail.text ?? '');
  if (!m) throw new Error(`no portal link in: ${mail.text}`);
  const url = new URL(m[0]);
  return { url, token: url.searchParams.get('token') ?? '' };
}

function expectError(a: Answer, status: number, code: string, field?: string): void {
  assert.equal(a.status, status, JSON.stringify(a.body));
  assert.equal(a.body.error?.code, code);
  if (field !== undefined) assert.equal(a.body.error?.field, field);
}

for (const kind of await databaseKinds()) {
  describe(`referrer's portal [${kind.name}]`, { skip: kind.skip }, () => {
    // One service for the block (each test has campaigns and addresses of its own), whose clock the tests
    // only move forward; it trusts one proxy hop, so that each call comes from a client address of its own.
    let mailbox: Mailbox;
    let s: TestService;
    let now = Date.now();
    before(async () => {
      mailbox = await startMailbox();
      s = await startService(kind, { smtpUrl: mailbox.url, now: () => now, trustProxy: 1, rateLimits: { ...LIMITS, portalSignInsPerIp: 2 } });
    });
    after(async () => {
      await s?.close();
      await mailbox?.close();
    });
    beforeEach(() => {
      s.ctx.payouts = { publicUrl: PUBLIC_URL };
    });

    /** A fresh address per test and database: the mailbox is the file's. */
    const address = (name: string) => `${name}-${kind.name}-${randomBytes(3).toString('hex')}@example.com`;

    async function signIn(id: string, email: string, ip?: string): Promise<Answer> {
      const a = await call(s, 'POST', 'signIn', { id, email }, undefined, ip);
      await portalLinksSettled(s.ctx);
      return a;
    }

    /** Signs `email` in to campaign `id` as its browser would: the emailed link's token, then verify. */
    async function session(id: string, email: string): Promise<Session> {
      const sent = (await mailbox.to(email, 0)).length;
      await signIn(id, email);
      const mails = await mailbox.to(email, sent + 1);
      const verified = await call(s, 'POST', 'verify', { id, token: portalLink(mails.at(-1)!).token });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      return { cookie: /^refkit_portal=([^;]+)/.exec(verified.setCookie!)![1]!, csrf: String(verified.body.csrfToken) };
    }

    it('sign-in always answers 202; only the first within the throttle sends, in the participant\'s language; a link works once, within 15 minutes; the cookie', async () => {
      const id = await s.campaign({ campaignName: 'Acme Notes' });
      const ann = address('ann');
      const dirk = address('dirk');
      await s.admin.addParticipant({ id, email: ann, firstName: 'Ann' });
      await s.admin.addParticipant({ id, email: dirk }, 'de');

      // A participant three times at once, an unknown address, an unknown campaign: the same answer.
      const answers = await Promise.all([
        call(s, 'POST', 'signIn', { id, email: ann }),
        call(s, 'POST', 'signIn', { id, email: ann.toUpperCase() }),
        call(s, 'POST', 'signIn', { id, email: ann }),
        call(s, 'POST', 'signIn', { id, email: address('nobody') }),
        call(s, 'POST', 'signIn', { id: 'no-such-campaign', email: ann }),
      ]);
      for (const a of answers) assert.deepEqual([a.status, a.body, a.setCookie], [202, { sent: true }, null]);
      await portalLinksSettled(s.ctx);
      const [mail, ...more] = await mailbox.to(ann);
      assert.deepEqual(more, [], 'one link for three requests within the minute');
      assert.equal(mail!.subject, 'Your sign-in link to Acme Notes');
      const link = portalLink(mail!);
      assert.equal(link.url.origin + link.url.pathname, `${PUBLIC_URL}/portal/${id}`);
      assert.match(link.token, /^pl_[A-Za-z0-9_-]{32}$/);

      // The participant's language (their emails'), English for everyone else.
      await signIn(id, dirk);
      assert.equal((await mailbox.to(dirk))[0]!.subject, 'Ihr Anmeldelink für Acme Notes');

      // Unknown fields and malformed bodies are refused, naming the field.
      expectError(await call(s, 'POST', 'signIn', { id, email: ann, remember: true }), 400, 'invalid_request', 'remember');
      expectError(await call(s, 'POST', 'verify', { id, token: link.token, extra: 1 }), 400, 'invalid_request', 'extra');

      // A wrong token, another campaign's: 401. The right one: the cookie and the CSRF token; then never again.
      const other = await s.campaign();
      expectError(await call(s, 'POST', 'verify', { id, token: 'pl_not_a_link' }), 401, 'link_not_found', 'token');
      expectError(await call(s, 'POST', 'verify', { id: other, token: link.token }), 401, 'link_not_found');
      const verified = await call(s, 'POST', 'verify', { id, token: link.token });
      assert.equal(verified.status, 200);
      assert.deepEqual(Object.keys(verified.body), ['csrfToken']);
      const cookie = verified.setCookie!;
      assert.match(cookie, /^refkit_portal=ps_[A-Za-z0-9_-]{32};/);
      const attributes = cookie.split('; ').slice(1).sort();
      assert.deepEqual(attributes, ['HttpOnly', 'Max-Age=86400', 'Path=/api/v1/portal', 'SameSite=Lax', 'Secure']);
      expectError(await call(s, 'POST', 'verify', { id, token: link.token }), 401, 'link_not_found');

      // A minute later a new link goes out; unused for 15 minutes, it no longer signs in.
      now += MINUTE + 1;
      await signIn(id, ann);
      const late = portalLink((await mailbox.to(ann, 2))[1]!);
      now += 15 * MINUTE;
      expectError(await call(s, 'POST', 'verify', { id, token: late.token }), 401, 'link_not_found');

      // Five links an hour at most, however spaced: the sixth waits for the hour to pass.
      for (let i = 0; i < 3; i++) {
        now += MINUTE + 1;
        await signIn(id, ann);
      }
      assert.equal((await mailbox.to(ann, 5)).length, 5);
      now += MINUTE + 1;
      assert.equal((await signIn(id, ann)).status, 202);
      assert.equal((await mailbox.to(ann)).length, 5, 'the hour holds five');
      now += 60 * MINUTE;
      await signIn(id, ann);
      assert.equal((await mailbox.to(ann, 6)).length, 6);

      // A service on plain http (development): the cookie is not Secure there.
      s.ctx.payouts = { publicUrl: 'http://localhost:8787' };
      now += 2 * MINUTE;
      await signIn(id, ann);
      const plain = await call(s, 'POST', 'verify', { id, token: portalLink((await mailbox.to(ann, 7))[6]!).token });
      assert.doesNotMatch(plain.setCookie!, /Secure/);
    });

    it('past the per-client limit, sign-in still answers 202 and sends nothing', async () => {
      const id = await s.campaign();
      const people = [address('p1'), address('p2'), address('p3')];
      for (const email of people) await s.admin.addParticipant({ id, email });
      // This service's limit is 2 a minute (the default is 10).
      for (const email of people) assert.equal((await signIn(id, email, '203.0.113.9')).status, 202);
      assert.deepEqual(await Promise.all(people.map(async (email) => (await mailbox.to(email, 0)).length)), [1, 1, 0]);
    });

    it('a session reads its own participant of its own campaign only; every POST needs its CSRF token; sign-out ends it', async () => {
      const id = await s.campaign({ referrerRewardValue: 10 });
      const otherCampaign = await s.campaign();
      const ann = address('ann');
      const bob = address('bob');
      const annP = await s.admin.addParticipant({ id, email: ann, firstName: 'Ann' });
      const bobP = await s.admin.addParticipant({ id, email: bob, firstName: 'Bob' });
      await s.admin.addParticipant({ id: otherCampaign, email: ann });
      await s.admin.addParticipant({ id, email: address('cleo'), firstName: 'Cleo', referredByCode: annP.referralCode! });
      await s.admin.addParticipant({ id, email: address('dan'), referredByCode: bobP.referralCode! });
      // A payout of each (rows of the payouts' outbox, as a run writes them), to see that each reads only their own.
      for (const [p, dest] of [[annP, ann], [bobP, bob]] as const) {
        const participant = (await s.ctx.store.findParticipantByEmail(id, p.email!))!;
        await s.ctx.store.db
          .insertInto('cash_payouts')
          .values({ campaign_id: id, participant_id: participant.id, run_id: 'run_1', referral_amount: 10, referee_amount: 0, currency: 'USD', method: 'paypal', destination: dest, status: 'sent', reason: null, idempotency_key: randomBytes(8).toString('hex'), batch_key: null, provider_batch_id: null, provider_id: null, next_attempt_on: null, claimed_until: null, created_on: now, updated_on: now, sent_on: now, settled_on: null })
          .execute();
      }

      expectError(await me(s, id), 401, 'unauthorized');
      expectError(await me(s, id, { cookie: 'ps_made_up' }), 401, 'unauthorized');
      const annSession = await session(id, ann);
      const read = await me(s, id, annSession);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      const view = read.body as unknown as PortalMe;
      assert.equal(view.csrfToken, annSession.csrf);
      assert.equal(view.participant.email, ann);
      assert.equal(view.participant.referralCode, annP.referralCode);
      assert.match(view.participant.shareLink!, new RegExp(annP.referralCode!));
      assert.deepEqual(view.referrals.map((r) => [r.name, r.status]), [['Cleo', 'joined']]);
      assert.deepEqual(view.payouts.map((p) => p.destination), [ann]);
      assert.equal(view.campaign.campaignId, id);
      // Nothing of Bob, nor of Bob's friend: not his address, code, payout or referral.
      const text = JSON.stringify(view);
      for (const secret of [bob, bobP.referralCode!, 'dan-']) assert.ok(!text.includes(secret), `${secret} is not in Ann's portal`);

      // The session is Ann's of this campaign: another campaign (where Ann is a participant too) is 401.
      expectError(await me(s, otherCampaign, annSession), 401, 'unauthorized');
      expectError(await call(s, 'POST', 'setPayoutMethod', { id: otherCampaign, method: 'paypal', paypalEmail: ann }, annSession), 401, 'unauthorized');
      // Bob's session reads Bob.
      const bobSession = await session(id, bob);
      assert.equal(((await me(s, id, bobSession)).body as unknown as PortalMe).participant.email, bob);

      // Every POST made with the cookie needs the session's CSRF token.
      const body = { id, method: 'paypal', paypalEmail: 'ann.paypal@example.com' };
      expectError(await call(s, 'POST', 'setPayoutMethod', body, { cookie: annSession.cookie }), 403, 'csrf_failed');
      expectError(await call(s, 'POST', 'setPayoutMethod', body, { cookie: annSession.cookie, csrf: bobSession.csrf }), 403, 'csrf_failed');
      expectError(await call(s, 'POST', 'signOut', { id }, { cookie: annSession.cookie }), 403, 'csrf_failed');
      expectError(await call(s, 'POST', 'setPayoutMethod', body, { csrf: annSession.csrf }), 401, 'unauthorized');

      // Ann chooses her code (vanity-codes.test.ts has the rules): with the CSRF token only; Bob's stays his.
      expectError(await call(s, 'POST', 'setReferralCode', { id, code: 'ann-notes' }, { cookie: annSession.cookie }), 403, 'csrf_failed');
      const vanity = `ANN-${kind.name.toUpperCase()}-${randomBytes(2).toString('hex').toUpperCase()}`;
      const chosen = await call(s, 'POST', 'setReferralCode', { id, code: vanity.toLowerCase() }, annSession);
      assert.equal(chosen.status, 200, JSON.stringify(chosen.body));
      assert.deepEqual([chosen.body.referralCode, chosen.body.email], [vanity, ann]);
      expectError(await call(s, 'POST', 'setReferralCode', { id, code: vanity }, bobSession), 409, 'code_taken', 'code');
      assert.equal(((await me(s, id, annSession)).body as unknown as PortalMe).participant.referralCode, vanity);

      const out = await call(s, 'POST', 'signOut', { id }, annSession);
      assert.deepEqual([out.status, out.body], [200, { ok: true }]);
      assert.match(out.setCookie!, /^refkit_portal=;.*Path=\/api\/v1\/portal.*Expires=Thu, 01 Jan 1970/);
      expectError(await me(s, id, annSession), 401, 'unauthorized');
      assert.equal((await me(s, id, bobSession)).status, 200, "Bob's session goes on");
      // A session ends after a day.
      now += 24 * 60 * MINUTE;
      expectError(await me(s, id, bobSession), 401, 'unauthorized');
    });

    it('payout method and tax details: the campaign\'s methods, 400 naming the field, 409 when cash or the key is missing, masked', async () => {
      const id = await s.campaign();
      const ann = address('ann');
      await s.admin.addParticipant({ id, email: ann });
      const annSession = await session(id, ann);
      const post = (path: string, body: object) => call(s, 'POST', path, { id, ...body }, annSession);

      expectError(await post('setPayoutMethod', { method: 'paypal', paypalEmail: 'ann.pp@example.com' }), 409, 'cash_payouts_off');
      await s.admin.updateCampaign({ id, cashPayouts: { methods: ['paypal'], minimum: 5, schedule: 'manual', approval: true } });
      expectError(await post('setPayoutMethod', { method: 'stripe_connect' }), 400, 'invalid_request', 'method');
      expectError(await post('setPayoutMethod', { method: 'paypal' }), 400, 'invalid_request', 'paypalEmail');
      expectError(await post('setPayoutMethod', { method: 'paypal', paypalEmail: 'not an address' }), 400, 'invalid_request', 'paypalEmail');
      expectError(await post('setPayoutMethod', { method: 'paypal', paypalEmail: 'ann.pp@example.com', iban: 'DE00' }), 400, 'invalid_request', 'iban');
      expectError(await post('connectStripe', {}), 400, 'invalid_request', 'method');
      const set = await post('setPayoutMethod', { method: 'paypal', paypalEmail: 'Ann.PP@example.com' });
      assert.deepEqual(set.body, { method: 'paypal', paypalEmail: 'ann.pp@example.com', stripeAccount: null, stripePayoutsEnabled: false });

      const w9 = { form: 'w9', legalName: 'Ann Example', tin: '123-45-6789', address: '1 Main St, Springfield', country: 'US' };
      s.ctx.sealer = undefined;
      expectError(await post('setTaxDetails', w9), 409, 'encryption_key_missing');
      s.ctx.sealer = new Sealer(randomBytes(32));
      expectError(await post('setTaxDetails', { ...w9, country: 'DE' }), 400, 'invalid_request', 'country');
      expectError(await post('setTaxDetails', { ...w9, tin: '12345' }), 400, 'invalid_request', 'tin');
      expectError(await post('setTaxDetails', { ...w9, form: 'w2' }), 400, 'invalid_request', 'form');
      expectError(await post('setTaxDetails', { ...w9, ssn: '1' }), 400, 'invalid_request', 'ssn');
      const tax = await post('setTaxDetails', w9);
      assert.equal(tax.status, 200, JSON.stringify(tax.body));
      assert.equal(tax.body.tin, '•••••6789');

      const view = (await me(s, id, annSession)).body as unknown as PortalMe;
      assert.deepEqual(view.cashPayouts, { methods: ['paypal'], minimum: 5 });
      assert.equal(view.payoutMethod.paypalEmail, 'ann.pp@example.com');
      assert.deepEqual([view.taxDetails?.form, view.taxDetails?.legalName, view.taxDetails?.tin], ['w9', 'Ann Example', '•••••6789']);
      assert.ok(!JSON.stringify(view).includes('45-6789'), 'the TIN is never shown whole');

      // A friend qualifies and a run takes Ann's $10: the tiles and the share card agree that none is left.
      const annCode = (await s.admin.getParticipant(id, ann)).referralCode!;
      const ben = address('ben');
      await s.admin.addParticipant({ id, email: ben, referredByCode: annCode });
      await s.admin.qualifyParticipant({ id, email: ben });
      assert.deepEqual((await s.admin.createPayouts(id)).payouts.map((p) => p.amount), [10]);
      const held = (await me(s, id, annSession)).body as unknown as PortalMe;
      assert.deepEqual([held.ledger.available, held.ledger.inPayouts, held.participant.referralRewardBalance], [0, 10, 0]);
      assert.deepEqual(held.payouts.map((p) => [p.status, p.amount]), [['pending_approval', 10]]);
    });

    it('me: the ledger shows pending credits with their dates, available ones and reversals, and the balances', async () => {
      // A fixed reward and a commission of 10%: a refund takes the commission back, a reversal.
      const id = await s.campaign({ referrerRewardValue: 10, referrerRewardPercent: 10 });
      const ann = address('ann');
      const annP = await s.admin.addParticipant({ id, email: ann });
      const friends = [address('f1'), address('f2')];
      for (const f of friends) await s.admin.addParticipant({ id, email: f, referredByCode: annP.referralCode! });
      await s.admin.qualifyParticipant({ id, email: friends[0]!, amountPaid: '100.00' });
      await s.admin.refundPayment({ id, email: friends[0]!, amount: '100.00' });
      // Then a hold of a week: the next friend's reward waits, dated.
      await s.admin.updateCampaign({ id, holdDays: 7 });
      await s.admin.qualifyParticipant({ id, email: friends[1]! });
      const view = (await me(s, id, await session(id, ann))).body as unknown as PortalMe;
      const [pending, ...rest] = view.ledger.entries;
      assert.deepEqual([pending!.state, pending!.amount, pending!.kind], ['pending', 10, 'referral']);
      assert.equal(Date.parse(pending!.availableOn) - Date.parse(pending!.createdOn), 7 * 24 * 60 * MINUTE);
      assert.deepEqual(rest.map((e) => `${e.state} ${e.kind} ${e.amount}`).sort(), ['available commission 10', 'available referral 10', 'reversed reversal -10']);
      assert.deepEqual([view.ledger.pending, view.ledger.available, view.ledger.inPayouts, view.ledger.more], [10, 10, 0, false]);
      assert.deepEqual(view.referrals.map((r) => r.status).sort(), ['pending', 'qualified']);
      assert.ok(!JSON.stringify(view).includes(friends[0]!), "a friend's address is not shown");
    });
  });
}
