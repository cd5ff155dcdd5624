/**
 * Stripe in, on both databases: events shaped as Stripe documents them, signed by the official `stripe`
 * package (generateTestHeaderString) with the campaign's signing secret, sent to the campaign's
 * endpoint. The first payment qualifies, later invoices earn commissions, refunds reverse, disputes hold or reverse,
 * replays change nothing, bad signatures change nothing, unmatched events wait to be matched by hand.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import type { TestService } from './helpers/service.js';
import { charge, checkoutSession, event, invoice, SECRET, send, stripe } from './helpers/stripe.js';
import { eachDatabase } from './helpers/suite.js';

/** A campaign taking Stripe's events, Ann and her referee Ben. */
async function program(s: TestService, rules: Record<string, unknown> = {}) {
  const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, referrerRewardPercent: 10, ...rules });
  await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return { id, ben: ben.referralCode! };
}

const balance = async (s: TestService, id: string, email: string) => (await s.admin.getParticipant(id, email)).referralRewardBalance;

eachDatabase('Stripe in', (service) => {
  it("the first payment qualifies (checkout's client_reference_id), later invoices of the customer earn commissions, a replay changes nothing", async () => {
    const s = service();
    const { id, ben } = await program(s);
    const first = event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', 4999));
    assert.deepEqual((await send(s, id, first)).body, { received: true, outcome: 'applied' });
    let b = await s.admin.getParticipant(id, 'ben@example.com');
    assert.equal(b.rewardEventCompleted, true);
    assert.equal(b.refereeReward, 5);
    assert.equal(await balance(s, id, 'ann@example.com'), 10 + 4);
    // Stripe sends it again (a retry, or twice at once): nothing changes.
    const replays = await Promise.all([send(s, id, first), send(s, id, first)]);
    assert.deepEqual(replays.map((r) => r.body.outcome), ['duplicate', 'duplicate']);
    assert.equal(await balance(s, id, 'ann@example.com'), 14);
    // The next invoice names no code and another email: the customer the checkout linked is Ben's.
    assert.equal((await send(s, id, event('invoice.paid', invoice('cus_ben', 12_000)))).body.outcome, 'applied');
    assert.equal(await balance(s, id, 'ann@example.com'), 14 + 12);
    b = await s.admin.getParticipant(id, 'ben@example.com');
    assert.equal((await s.admin.getParticipantDetail(id, 'ben@example.com')).participant.paymentCount, 2);
    assert.equal((await s.admin.getParticipantDetail(id, 'ben@example.com')).participant.amountPaid, '169.99');
    // A $0 invoice (a trial) pays nothing.
    assert.equal((await send(s, id, event('invoice.paid', invoice('cus_ben', 0)))).body.outcome, 'ignored');
    await assertCountersAreTheLedger(s, id);
  });

  it('invoice.paid finds its participant by metadata.refkit_code (invoice or subscription), else by the customer email; another currency is held', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const viaSubscription = invoice('cus_new', 2000, { parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: { refkit_code: ben }, subscription: 'sub_1' } } });
    assert.equal((await send(s, id, event('invoice.paid', viaSubscription))).body.outcome, 'applied');
    assert.equal(await balance(s, id, 'ann@example.com'), 10 + 2);
    const ann = await s.admin.getParticipant(id, 'ann@example.com');
    await s.admin.addParticipant({ id, email: 'cy@example.com', referredByCode: ann.referralCode! });
    assert.equal((await send(s, id, event('invoice.paid', invoice('cus_cy', 1000, { customer_email: 'CY@example.com' })))).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipant(id, 'cy@example.com')).rewardEventCompleted, true);
    // ¥5,000 (about $33) on this USD campaign is held with its reason, never taken as 5000.00.
    const yen = event('invoice.paid', invoice('cus_cy', 5000, { currency: 'jpy' }));
    const held = await send(s, id, yen);
    assert.equal(held.status, 200);
    assert.equal(held.body.outcome, 'held');
    assert.match((held.body as { reason?: string }).reason ?? '', /JPY.*USD/);
    assert.equal((await s.admin.getParticipantDetail(id, 'cy@example.com')).participant.amountPaid, '10.00');
    assert.equal(await balance(s, id, 'ann@example.com'), 10 + 2 + 10 + 1);
    const [listed] = await s.admin.listStripeEvents(id, 'held');
    assert.deepEqual([listed!.id, listed!.status, listed!.amount, listed!.currency, listed!.participantEmail], [yen.id, 'held', '5000.00', 'JPY', 'cy@example.com']);
    assert.match(listed!.reason!, /held/);
    assert.equal((await send(s, id, yen)).body.outcome, 'duplicate');
    // A refund or a dispute in another currency is held too.
    const refund = await send(s, id, event('charge.refunded', charge('ch_eur', 500, { currency: 'eur', customer: 'cus_cy' })));
    assert.equal(refund.body.outcome, 'held');
    await assertCountersAreTheLedger(s, id);
  });

  it("a campaign whose rewards are in a zero-decimal currency counts Stripe's whole units", async () => {
    const s = service();
    const { id, ben } = await program(s, { rewardCurrency: 'JPY' });
    // ¥5,000 is 5000.00 in amountPaid, 10% of it 500.
    assert.equal((await send(s, id, event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', 5000, { currency: 'jpy' })))).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipantDetail(id, 'ben@example.com')).participant.amountPaid, '5000.00');
    assert.equal(await balance(s, id, 'ann@example.com'), 10 + 500);
  });

  it('signed events with no object, a negative or fractional amount or no currency are kept ignored with a reason, answered 200', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const odd = [
      event('checkout.session.completed', null as never),
      event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', -5000)),
      event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', 12.5)),
      event('invoice.paid', invoice('cus_ben', 1000, { currency: null })),
      event('charge.refunded', charge('ch_odd', 2.25)),
    ];
    for (const e of odd) {
      const r = await send(s, id, e);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.outcome, 'ignored', e.id);
      assert.ok((r.body as { reason?: string }).reason, `${e.id} says why`);
    }
    const kept = await s.admin.listStripeEvents(id, 'ignored');
    assert.deepEqual(kept.map((e) => e.id).sort(), odd.map((e) => e.id).sort());
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, false);
    assert.equal(await balance(s, id, 'ann@example.com'), 0);
  });

  it("a refund refused before its payment was applied does not count against the charge: the charge's next refund takes it", async () => {
    const s = service();
    const { id, ben } = await program(s, { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 20 });
    // Ben has paid nothing yet: the refund of $25 of ch_early is refused (nothing to refund) and ignored.
    const early = await send(s, id, event('charge.refunded', charge('ch_early', 2500, { customer: 'cus_ben', metadata: { refkit_code: ben } })));
    assert.equal(early.body.outcome, 'ignored');
    await send(s, id, event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', 10_000, { payment_intent: 'pi_early' })));
    assert.equal(await balance(s, id, 'ann@example.com'), 20);
    // Stripe's next charge.refunded says $50 refunded in all: both refunds are taken now.
    assert.equal((await send(s, id, event('charge.refunded', charge('ch_early', 5000, { customer: 'cus_ben' })))).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipantDetail(id, 'ben@example.com')).participant.amountPaid, '50.00');
    assert.equal(await balance(s, id, 'ann@example.com'), 10);
    await assertCountersAreTheLedger(s, id);
  });

  it('charge.refunded takes back what was refunded since the last one; charge.dispute.created takes back the commission on the disputed amount, no refund until lost', async () => {
    const s = service();
    const { id, ben } = await program(s, { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 20 });
    await send(s, id, event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', 10_000, { payment_intent: 'pi_big' })));
    assert.equal(await balance(s, id, 'ann@example.com'), 20);
    // Two partial refunds of one charge: Stripe's amount_refunded is the running total (25, then 50).
    assert.equal((await send(s, id, event('charge.refunded', charge('ch_big', 2500, { payment_intent: 'pi_big' })))).body.outcome, 'applied');
    assert.equal(await balance(s, id, 'ann@example.com'), 15);
    assert.equal((await send(s, id, event('charge.refunded', charge('ch_big', 5000, { payment_intent: 'pi_big' })))).body.outcome, 'applied');
    assert.equal(await balance(s, id, 'ann@example.com'), 10);
    // A dispute names only its charge (linked by the refunds above).
    const dispute = { id: 'dp_1', object: 'dispute', amount: 2500, currency: 'usd', charge: 'ch_big', payment_intent: 'pi_big', reason: 'fraudulent', status: 'needs_response', metadata: {} };
    assert.equal((await send(s, id, event('charge.dispute.created', dispute))).body.outcome, 'applied');
    assert.equal(await balance(s, id, 'ann@example.com'), 5);
    // Open, the dispute is no refund: what Ben paid stands (test/server/disputes.test.ts closes them).
    assert.equal((await s.admin.getParticipantDetail(id, 'ben@example.com')).participant.amountPaid, '50.00');
    await assertCountersAreTheLedger(s, id);
  });

  it('a bad or missing signature, another secret, or a campaign without one is 400 and changes nothing; other event types are 200 and ignored', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const paid = event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', 5000));
    for (const r of [await send(s, id, paid, null), await send(s, id, paid, 'whsec_another_secret_000000')]) {
      assert.equal(r.status, 400);
      assert.equal(r.body.error!.code, 'invalid_signature');
    }
    const payload = JSON.stringify(paid);
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    // Signed more than five minutes ahead of the server's clock, or behind it: refused both ways.
    for (const skew of [+400, -400]) {
      const dated = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: Math.floor(Date.now() / 1000) + skew });
      const res = await fetch(`${s.url}/api/v1/integrations/stripe/${id}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': dated }, body: payload });
      assert.equal(res.status, 400, `skew ${skew} s`);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_signature');
    }
    const tampered = await fetch(`${s.url}/api/v1/integrations/stripe/${id}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: payload.replace('5000', '9000') });
    assert.equal(tampered.status, 400);
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, false);
    assert.deepEqual(await s.admin.listStripeEvents(id), []);
    assert.deepEqual((await send(s, id, event('customer.created', { id: 'cus_x', object: 'customer' }))).body, { received: true, outcome: 'ignored' });
    assert.equal((await send(s, 'cmp_nope', paid)).status, 404);
    const bare = await s.campaign();
    assert.equal((await send(s, bare, paid)).status, 400);
    // The secret is write-only: settings say it is set, never what it is; '' removes it.
    const settings = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
    assert.equal(settings.stripeWebhookConfigured, true);
    assert.ok(!JSON.stringify(settings).includes(SECRET));
    await rejects(() => s.admin.updateCampaign({ id, stripeWebhookSecret: 'not-a-secret' }), 400, 'invalid_request', 'stripeWebhookSecret');
    await s.admin.updateCampaign({ id, stripeWebhookSecret: '' });
    assert.equal((await s.admin.listCampaigns()).find((c) => c.campaignId === id)!.stripeWebhookConfigured, false);
  });

  it('an event for nobody is kept unmatched (200), listed, and applied once matched by hand', async () => {
    const s = service();
    const { id } = await program(s);
    const stray = event('checkout.session.completed', checkoutSession('NOSUCHCODE', 'ben.personal@example.com', 3000, { customer: 'cus_other' }));
    assert.deepEqual((await send(s, id, stray)).body, { received: true, outcome: 'unmatched' });
    const [listed] = await s.admin.listStripeEvents(id, 'unmatched');
    assert.equal(listed!.id, stray.id);
    assert.equal(listed!.amount, '30.00');
    assert.equal(listed!.email, 'ben.personal@example.com');
    await rejects(() => s.admin.matchStripeEvent(id, stray.id, 'nobody@example.com'), 404, 'participant_not_found');
    const matched = await s.admin.matchStripeEvent(id, stray.id, 'ben@example.com');
    assert.deepEqual([matched.status, matched.participantEmail], ['applied', 'ben@example.com']);
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, true);
    await rejects(() => s.admin.matchStripeEvent(id, stray.id, 'ben@example.com'), 409, 'invalid_transition');
    assert.deepEqual(await s.admin.listStripeEvents(id, 'unmatched'), []);
    // The customer is Ben's from now on.
    assert.equal((await send(s, id, event('invoice.paid', invoice('cus_other', 1000)))).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipantDetail(id, 'ben@example.com')).participant.paymentCount, 2);
  });

  it('a payment of a participant nobody referred is ignored with the reason; a paused campaign answers 409 so that Stripe retries', async () => {
    const s = service();
    const { id } = await program(s);
    const ann = await s.admin.getParticipant(id, 'ann@example.com');
    const own = await send(s, id, event('checkout.session.completed', checkoutSession(ann.referralCode!, 'ann@example.com', 1000)));
    assert.equal(own.body.outcome, 'ignored');
    assert.match((await s.admin.listStripeEvents(id, 'ignored'))[0]!.reason!, /referred/);
    await s.admin.setCampaignStatus(id, 'Pause');
    const ben = await s.admin.getParticipant(id, 'ben@example.com');
    const paused = event('checkout.session.completed', checkoutSession(ben.referralCode!, 'ben@example.com', 1000));
    assert.equal((await send(s, id, paused)).status, 409);
    await s.admin.setCampaignStatus(id, 'Active');
    assert.equal((await send(s, id, paused)).body.outcome, 'applied', 'the retry after the resume is applied: the 409 kept nothing');
  });
});
