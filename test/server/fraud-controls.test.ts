/**
 * The fraud controls an owner sets, on both databases: blocklists (the campaign's and the account's; by
 * email, domain, IP range and country, from a trusted header or geoip-lite), the auto-approval limits,
 * self-referral by payment (a Stripe customer or card shared with the referrer, against the loopback
 * stand-in of Stripe's API) and duplicate payout methods. Each refuses or holds exactly what it should; a
 * keyless caller is never told which rule matched; the owner's approval releases what was held.
 */
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';
import { event, invoice, checkoutSession, send, SECRET } from './helpers/stripe.js';
import { DAY_MS } from '../../src/server/kernel/time.js';
import { dayStart } from '../../src/server/fraud/domain/reward-limits.js';

let offset = 0;
const now = () => Date.now() + offset;

/** A keyless (browser) sign-up from `ip`, with a country header when given. */
async function browserSignup(s: TestService, body: Record<string, unknown>, ip = '198.51.100.7', country?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': ip, ...(country && { 'cf-ipcountry': country }) };
  const res = await fetch(`${s.url}/api/v1/addParticipant`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string }; referralCode?: string } };
}

const settingsOf = async (s: TestService, id: string) => (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
const participants = async (s: TestService, id: string) => (await s.admin.getCampaign(id)).participants;
const earned = async (s: TestService, id: string, email: string) => (await s.admin.getParticipant(id, email)).referralReward;

eachDatabase(
  'Fraud controls',
  (service) => {
    beforeEach(() => (offset = 0));

    it('a blocklist at its limits (1,000 entries in each list, long ones) goes in one request: createCampaign, updateCampaign, updateAccountSettings', async () => {
      const s = service();
      const n = 1_000;
      const letters = (i: number) => String.fromCharCode(97 + ((i / 26) | 0) % 26, 97 + (i % 26));
      const full = {
        emails: Array.from({ length: n }, (_, i) => `${'a'.repeat(60)}${i}@${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.example`),
        domains: Array.from({ length: n }, (_, i) => `${'x'.repeat(60)}${i}.${'y'.repeat(60)}.${'z'.repeat(60)}.example`),
        ips: Array.from({ length: n }, (_, i) => `2001:db8:${i.toString(16)}::/48`),
        countries: Array.from({ length: n }, (_, i) => letters(i % 676)),
      };
      assert.ok(JSON.stringify(full).length > 400_000, 'well past the 16 KB every other body is held to');
      const lengths = (b: { emails?: string[]; domains?: string[]; ips?: string[]; countries?: string[] } | null) => [b?.emails?.length, b?.domains?.length, b?.ips?.length, b?.countries?.length];
      const id = await s.campaign({ blocklist: full });
      assert.deepEqual(lengths((await settingsOf(s, id)).blocklist), [n, n, n, 676]);
      const other = await s.campaign();
      assert.deepEqual(lengths((await s.admin.updateCampaign({ id: other, blocklist: full })).blocklist), [n, n, n, 676]);
      assert.deepEqual(lengths((await s.admin.updateAccountSettings({ blocklist: full })).blocklist), [n, n, n, 676]);
      // One entry past the limit is the schema's 400, naming the list.
      await rejects(() => s.admin.updateCampaign({ id: other, blocklist: { emails: [...full.emails, 'one@more.example'] } }), 400, 'invalid_request', 'blocklist.emails');
    });

    it('a blocklist refuses a browser with one message whatever the rule, holds a keyed sign-up with the rule, and its referral pays only after approval', async () => {
      const s = service();
      const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, blocklist: { emails: ['Mallory+promo@Example.com'], domains: ['@spam.test'], ips: ['203.0.113.0/24', '2001:db8::/32'], countries: ['kp'] } });
      await s.admin.updateAccountSettings({ blocklist: { emails: ['eve@example.com'] } });
      const before = await participants(s, id);
      const refusals = [
        await browserSignup(s, { id, email: 'mallory@example.com' }), // the list's address, without its +tag
        await browserSignup(s, { id, email: 'someone@mail.spam.test' }), // a subdomain of a blocked domain
        await browserSignup(s, { id, email: 'carol@example.com' }, '203.0.113.77'), // in a blocked range
        await browserSignup(s, { id, email: 'dave@example.com' }, '2001:db8::5'),
        await browserSignup(s, { id, email: 'erin@example.com' }, '198.51.100.8', 'KP'), // the trusted header's country
        await browserSignup(s, { id, email: 'eve@example.com' }), // the account's list
      ];
      for (const r of refusals) assert.deepEqual([r.status, r.body.error?.code, r.body.error?.message], [403, 'blocked', 'This sign-up is not accepted']);
      assert.equal(await participants(s, id), before, 'a refused sign-up writes nobody');
      // Nothing beyond the rules: a neighbouring range, another domain, another country.
      for (const [email, ip, country] of [['frank@notspam.test', '203.0.114.1', 'US'], ['grace@example.com', '198.51.100.9', 'kr']] as const) {
        assert.equal((await browserSignup(s, { id, email }, ip, country)).status, 200, email);
      }
      // A backend's sign-up of a blocked address is held with the rule, and earns its referrer nothing until approved.
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      const held = await s.admin.addParticipant({ id, email: 'mallory@example.com', referredByCode: ann.referralCode! });
      assert.equal(held.held, true);
      assert.match(held.heldReason!, /held for review: Blocked email address mallory@example\.com/);
      assert.doesNotMatch(held.heldReason!, /fraud score/);
      await s.admin.qualifyParticipant({ id, email: 'mallory@example.com' });
      assert.equal(await earned(s, id, 'ann@example.com'), 0);
      await s.admin.approveParticipant(id, 'mallory@example.com');
      assert.equal(await earned(s, id, 'ann@example.com'), 10, 'approved: the referral is credited once');
      assert.equal((await s.admin.getParticipant(id, 'mallory@example.com')).refereeReward, 5);
      const detail = await s.admin.getParticipantDetail(id, 'mallory@example.com');
      assert.equal(detail.signals[0], 'Blocked email address mallory@example.com');
    });

    it('blocklists are checked and normalised, a bad entry is a 400 naming it that changes nothing, and null removes one', async () => {
      const s = service();
      const id = await s.campaign({ blocklist: { domains: ['@Spam.TEST', 'spam.test'], countries: ['kp'], ips: ['2001:DB8:0:0::1'] } });
      const settings = async () => (await settingsOf(s, id)).blocklist;
      assert.deepEqual(await settings(), { domains: ['spam.test'], ips: ['2001:db8::1'], countries: ['KP'] });
      await rejects(() => s.admin.updateCampaign({ id, blocklist: { ips: ['10.0.0.0/33'] } }), 400, 'invalid_request', 'blocklist.ips.0');
      await rejects(() => s.admin.updateCampaign({ id, blocklist: { domains: ['not a domain'] } }), 400, 'invalid_request', 'blocklist.domains.0');
      await rejects(() => s.admin.updateCampaign({ id, blocklist: { emails: ['nobody'] } }), 400, 'invalid_request', 'blocklist.emails.0');
      const unknown = await rejects(() => s.admin.updateCampaign({ id, blocklist: { phones: ['1'] } } as never), 400, 'invalid_request');
      assert.match(unknown.message, /phones/);
      await rejects(() => s.admin.updateAccountSettings({ blocklist: { countries: ['KPX'] } }), 400, 'invalid_request');
      assert.deepEqual(await settings(), { domains: ['spam.test'], ips: ['2001:db8::1'], countries: ['KP'] }, 'refused: unchanged');
      assert.equal((await s.admin.getAccountSettings()).blocklist, null);
      await s.admin.updateCampaign({ id, blocklist: {} });
      assert.equal(await settings(), null, 'an empty list is none');
      await s.admin.updateAccountSettings({ blocklist: { ips: ['203.0.113.0/24'] } });
      assert.deepEqual((await s.admin.getAccountSettings()).blocklist, { ips: ['203.0.113.0/24'] });
      assert.equal((await browserSignup(s, { id, email: 'x@example.com' }, '203.0.113.1')).status, 403);
      await s.admin.updateAccountSettings({ blocklist: null });
      assert.equal((await browserSignup(s, { id, email: 'x@example.com' }, '203.0.113.1')).status, 200, 'removed: the same sign-up is taken');
    });

    it('the auto-approval limits hold the credit past them for review with the reason; approval credits it, and a new day starts a new count', async () => {
      const s = service();
      const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 0, autoApprove: { maxRewardsPerDay: 2, maxRewardsPerReferrer: 3 }, timeZone: 'Pacific/Auckland' });
      assert.deepEqual((await settingsOf(s, id)).autoApprove, { maxRewardsPerDay: 2, maxRewardsPerReferrer: 3 });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      const refer = async (email: string) => {
        await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
        return s.admin.qualifyParticipant({ id, email });
      };
      // Start just after the campaign's midnight, so that the day does not turn during the test.
      offset = dayStart('Pacific/Auckland', Date.now()) + DAY_MS + 60_000 - Date.now();
      assert.equal((await refer('r1@example.com')).held, undefined);
      await refer('r2@example.com');
      const third = await refer('r3@example.com');
      assert.equal(third.held, true);
      assert.match(third.heldReason!, /Over the limit of 2 credited referrals per referrer a day \(autoApprove\.maxRewardsPerDay\)/);
      assert.equal(await earned(s, id, 'ann@example.com'), 20);
      await s.admin.approveParticipant(id, 'r3@example.com');
      assert.equal(await earned(s, id, 'ann@example.com'), 30, "the owner's approval credits it");
      // The next day, in the campaign's time zone: the daily count starts again, the total limit (3) holds the next.
      offset += DAY_MS;
      const fourth = await refer('r4@example.com');
      assert.match(fourth.heldReason!, /Over the limit of 3 credited referrals per referrer \(autoApprove\.maxRewardsPerReferrer\)/);
      assert.equal(await earned(s, id, 'ann@example.com'), 30);
      await s.admin.updateCampaign({ id, autoApprove: null });
      assert.equal((await refer('r5@example.com')).held, undefined, 'no limits: credited at once');
      assert.equal(await earned(s, id, 'ann@example.com'), 40);
      await rejects(() => s.admin.updateCampaign({ id, autoApprove: { maxRewardsPerDay: 0 } }), 400, 'invalid_request');
    });

    it('a referee paying with their referrer\'s Stripe customer or card is held as a self-referral; another card pays as usual', async () => {
      const s = service();
      const KEY = 'rk_test_refkitFraud0123456789';
      const stripe = await new FakeStripe().allowKey(KEY).start();
      try {
        s.ctx.payouts = { publicUrl: s.url, stripeApiUrl: `http://${stripe.api.host}:${stripe.api.port}` };
        const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 0, stripeWebhookSecret: SECRET, stripeRewardKey: KEY });
        const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
        const code = async (email: string) => (await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! })).referralCode!;
        const [ben, cy, dan] = [await code('ben@example.com'), await code('cy@example.com'), await code('dan@example.com')];
        // Ann pays for herself (she was referred by nobody: nothing to credit, but what she paid with is kept).
        stripe.charges.addCharge({ id: 'ch_ann', amount: 2000, currency: 'usd', payment_intent: 'pi_ann', settled: { amount: 2000, currency: 'usd' }, fingerprint: 'fp_ann_card' });
        await send(s, id, event('checkout.session.completed', checkoutSession(ann.referralCode!, 'ann@example.com', 2000, { payment_intent: 'pi_ann', customer: 'cus_ann' })));
        // Ben pays as Ann's customer; Cy with Ann's card under another customer; Dan with his own card.
        await send(s, id, event('invoice.paid', invoice('cus_ann', 2000, { metadata: { refkit_code: ben } })));
        stripe.charges.addCharge({ id: 'ch_cy', amount: 2000, currency: 'usd', payment_intent: 'pi_cy', settled: { amount: 2000, currency: 'usd' }, fingerprint: 'fp_ann_card' });
        await send(s, id, event('checkout.session.completed', checkoutSession(cy, 'cy@example.com', 2000, { payment_intent: 'pi_cy', customer: 'cus_cy' })));
        stripe.charges.addCharge({ id: 'ch_dan', amount: 2000, currency: 'usd', payment_intent: 'pi_dan', settled: { amount: 2000, currency: 'usd' }, fingerprint: 'fp_dan_card' });
        await send(s, id, event('checkout.session.completed', checkoutSession(dan, 'dan@example.com', 2000, { payment_intent: 'pi_dan', customer: 'cus_dan' })));
        assert.equal(await earned(s, id, 'ann@example.com'), 10, "only Dan's payment earned Ann anything");
        const reason = async (email: string) => (await s.admin.addParticipant({ id, email })).heldReason ?? '';
        assert.match(await reason('ben@example.com'), /Paid with the same customer \(customer:cus_ann\) as their referrer/);
        assert.match(await reason('cy@example.com'), /Paid with the same card \(fingerprint fp_ann_card\) as their referrer/);
        assert.equal(await reason('dan@example.com'), '');
        // The card was read with the campaign's restricted key.
        assert.ok(stripe.requests.some((r) => r.path === '/v1/payment_intents/pi_cy' && r.key === KEY));
        await s.admin.approveParticipant(id, 'cy@example.com');
        assert.equal(await earned(s, id, 'ann@example.com'), 20, 'approved by the owner: credited');
      } finally {
        await stripe.stop();
      }
    });

    it('two participants with one PayPal address are both held before their next payout, and paid once approved', async () => {
      const s = service();
      const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit', rewardCurrency: 'USD' });
      await s.admin.updateCampaign({ id, cashPayouts: { methods: ['paypal'], minimum: 5, schedule: 'manual', approval: true } });
      await s.admin.updateAccountSettings({ paypal: { clientId: 'refkit-live-client', clientSecret: 'refkit-live-secret', webhookId: 'WH-1' } });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      for (const email of ['ben@example.com', 'cy@example.com']) {
        await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
        await s.admin.qualifyParticipant({ id, email });
      }
      await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'shared@example.com' });
      await s.admin.setPayoutMethod({ id, email: 'ben@example.com', method: 'paypal', paypalEmail: 'Shared@Example.com' });
      await s.admin.setPayoutMethod({ id, email: 'cy@example.com', method: 'paypal', paypalEmail: 'cy@example.com' });
      const run = await s.admin.createPayouts(id);
      assert.deepEqual(run.payouts.map((p) => p.email), ['cy@example.com']);
      assert.deepEqual(run.skipped.map((k) => [k.email, k.reason]).sort(), [['ann@example.com', 'held for review'], ['ben@example.com', 'held for review']]);
      assert.match((await s.admin.addParticipant({ id, email: 'ben@example.com' })).heldReason!, /Same PayPal address shared@example\.com as ann@example\.com/);
      await s.admin.approveParticipant(id, 'ann@example.com');
      await s.admin.approveParticipant(id, 'ben@example.com');
      const again = await s.admin.createPayouts(id);
      assert.deepEqual(again.payouts.map((p) => [p.email, p.amount]).sort(), [['ann@example.com', 20], ['ben@example.com', 5]], 'approved: the same match holds them no more');
    });
  },
  { trustProxy: 1, now, fraud: { trustedCountryHeader: 'cf-ipcountry' } },
);

eachDatabase(
  'Fraud controls: country from geoip-lite',
  (service) => {
    it('GEOIP=geoip-lite finds the country of an address; a country header is not believed unless it is the trusted one', async () => {
      const s = service();
      const id = await s.campaign({ blocklist: { countries: ['US'] } });
      assert.equal((await browserSignup(s, { id, email: 'a@example.com' }, '8.8.8.8')).status, 403, "geoip-lite's US address");
      assert.equal((await browserSignup(s, { id, email: 'b@example.com' }, '198.51.100.10', 'US')).status, 200, 'CF-IPCountry is not the trusted header here');
      assert.equal((await browserSignup(s, { id, email: 'c@example.com' }, '127.0.0.2')).status, 200, 'no country known: not blocked');
    });
  },
  { trustProxy: 1, fraud: { geoip: true } },
);
