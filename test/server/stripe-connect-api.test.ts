/**
 * The Stripe Connect requests of cash payouts (src/server/payouts/domain/stripe-connect-api.ts) against the
 * local stand-in for Stripe's API (./helpers/fake-stripe.ts and its Connect part), and the verification of
 * the Connect endpoint's signed events. No database: each test makes its requests and reads the stand-in.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Stripe from 'stripe';
import { accountState, StripeConnectApi, verifyConnectEvent } from '../../src/server/payouts/domain/stripe-connect-api.js';
import { describeStripeError, stripeApiTarget, transientStripeError } from '../../src/server/kernel/stripe-clients.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import { stripe as signer } from './helpers/stripe.js';

const KEY = 'sk_test_refkitConnect0123456789';
const CONNECT_SECRET = 'whsec_test_refkit_connect_0123456789';
const META = { refkit_campaign: 'cmp_1', refkit_participant: '42' };

let fake: FakeStripe;
let api: StripeConnectApi;
before(async () => {
  fake = await new FakeStripe().allowKey(KEY).start();
  api = new StripeConnectApi({ api: fake.api, timeoutMs: 2000 });
});
after(() => fake.stop());

/** What a call threw (it must throw). */
async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  assert.fail('expected the call to throw');
}

const newAccount = (key: string, email = 'ann@example.com') => api.createExpressAccount(KEY, { email, idempotencyKey: key, metadata: META });
const transfer = (destination: string, idempotencyKey: string, amountMinor = 1000) =>
  api.createTransfer(KEY, { amountMinor, currency: 'USD', destination, description: 'Spring referrals: 2 referrals', idempotencyKey, metadata: { ...META, refkit_payout: '7' } });

describe('Stripe Connect API', () => {
  beforeEach(() => {
    fake.requests.length = 0;
  });

  it('an Express account: controller properties, the transfers capability, email and metadata; one account per key', async () => {
    const first = await newAccount('acct-key-1');
    const again = await newAccount('acct-key-1');
    assert.equal(again.id, first.id, 'the same key answers the account made the first time');
    assert.match(first.id, /^acct_[A-Z0-9]{16}$/);
    assert.deepEqual(fake.requests.map((r) => [r.method, r.path, r.replayed]), [['POST', '/v1/accounts', false], ['POST', '/v1/accounts', true]]);
    assert.deepEqual(fake.requests[0]!.fields, {
      'controller[stripe_dashboard][type]': 'express',
      'controller[requirement_collection]': 'stripe',
      'controller[fees][payer]': 'application',
      'controller[losses][payments]': 'application',
      'capabilities[transfers][requested]': 'true',
      email: 'ann@example.com',
      'metadata[refkit_campaign]': 'cmp_1',
      'metadata[refkit_participant]': '42',
    });
    const made = fake.connect.accounts.get(first.id)!;
    assert.deepEqual([made.type, made.capabilities, made.payouts_enabled, made.charges_enabled, made.details_submitted], ['express', { transfers: 'inactive' }, false, false, false]);
    assert.deepEqual(await api.retrieveAccount(KEY, first.id), { id: first.id, payoutsEnabled: false, transfersActive: false, detailsSubmitted: false });
    // Another key is another account; the same key with other fields is Stripe's idempotency error.
    assert.notEqual((await newAccount('acct-key-2')).id, first.id);
    const reused = await thrown(() => newAccount('acct-key-1', 'someone-else@example.com'));
    assert.ok(reused instanceof Stripe.errors.StripeError && reused.statusCode === 400 && reused.type === 'StripeIdempotencyError', String(reused));
    assert.equal(transientStripeError(reused), false);
    // A recipient agreement in another country (cross-border payouts).
    const abroad = await api.createExpressAccount(KEY, { email: 'bo@example.com', country: 'gb', serviceAgreement: 'recipient', idempotencyKey: 'acct-key-3', metadata: META });
    const bo = fake.connect.accounts.get(abroad.id)!;
    assert.deepEqual([bo.country, bo.default_currency, bo.tos_acceptance.service_agreement], ['GB', 'gbp', 'recipient']);
  });

  it('the stand-in refuses what the reference does not document or forbids', async () => {
    const client = new Stripe(KEY, { maxNetworkRetries: 0, telemetry: false, ...fake.api });
    const accounts = fake.connect.accounts.size;
    const refused = async (params: Stripe.AccountCreateParams, pattern: RegExp) => {
      const err = await thrown(() => client.accounts.create(params));
      assert.ok(err instanceof Stripe.errors.StripeError && err.statusCode === 400, String(err));
      assert.match(err.message, pattern);
    };
    await refused({ type: 'express', controller: { stripe_dashboard: { type: 'express' } } }, /both `type` and `controller`/);
    await refused({ controller: { stripe_dashboard: { type: 'express' }, fees: { payer: 'application' } } }, /losses\]\[payments\]=application/);
    await refused({ controller: { losses: { payments: 'application' }, stripe_dashboard: { type: 'express' } } }, /requires controller\[fees\]\[payer\]=application/);
    await refused({ controller: { stripe_dashboard: { type: 'none' }, fees: { payer: 'application' }, losses: { payments: 'application' } } }, /capabilities is required/);
    await refused({ type: 'express', email: 'not an address' }, /Invalid email address/);
    await refused({ type: 'express', metadata: { ['k'.repeat(41)]: 'v' } }, /at most 40 characters/);
    await refused({ type: 'express', tos_acceptance: { service_agreement: 'recipient' }, capabilities: { card_payments: { requested: true } } }, /card_payments/);
    const unknown = await thrown(() => client.accounts.create({ type: 'express', nickname: 'x' } as Stripe.AccountCreateParams));
    assert.ok(unknown instanceof Stripe.errors.StripeError && unknown.code === 'parameter_unknown');
    assert.equal(fake.connect.accounts.size, accounts, 'nothing made');
  });

  it('an onboarding link: single-use, to Stripe\'s form; done, the account can be paid', async () => {
    const { id } = await newAccount('acct-onboard');
    const link = await api.createOnboardingLink(KEY, { account: id, refreshUrl: 'http://refkit.test/connect/refresh', returnUrl: 'http://refkit.test/connect/return' });
    assert.equal(link.url, `http://127.0.0.1:${fake.port}/connect/onboard/${id}`);
    assert.ok(Math.abs(link.expiresAt - (Date.now() + 300_000)) < 5000, 'expires in 5 minutes, in milliseconds');
    assert.deepEqual(fake.requests.at(-1)!.fields, { account: id, type: 'account_onboarding', refresh_url: 'http://refkit.test/connect/refresh', return_url: 'http://refkit.test/connect/return' });
    // The referrer's browser: the form done, back to return_url; the used link again goes to refresh_url.
    const visit = async () => (await fetch(link.url, { redirect: 'manual' })).headers.get('location');
    assert.equal(await visit(), 'http://refkit.test/connect/return');
    assert.equal(await visit(), 'http://refkit.test/connect/refresh');
    assert.deepEqual(await api.retrieveAccount(KEY, id), { id, payoutsEnabled: true, transfersActive: true, detailsSubmitted: true });
    assert.equal(fake.connect.events.at(-1)!.account, id, 'the account.updated event Stripe would send');
    // Unknown accounts: the link is 400, the account 403; neither passes by retrying.
    for (const call of [
      () => api.createOnboardingLink(KEY, { account: 'acct_NOSUCH', refreshUrl: 'http://refkit.test/r', returnUrl: 'http://refkit.test/r' }),
      () => api.retrieveAccount(KEY, 'acct_NOSUCH'),
    ]) {
      const err = await thrown(call);
      assert.equal(transientStripeError(err), false, describeStripeError(err));
    }
    assert.match(describeStripeError(await thrown(() => api.retrieveAccount(KEY, 'acct_NOSUCH'))), /^Stripe answered 403: The provided key does not have access to account 'acct_NOSUCH'/);
  });

  it('a transfer is refused before onboarding and made after, in minor units, with its metadata', async () => {
    const { id } = await newAccount('acct-transfer');
    const early = await thrown(() => transfer(id, 'payout-1-1'));
    assert.ok(early instanceof Stripe.errors.StripeError);
    assert.deepEqual([early.statusCode, early.code, transientStripeError(early)], [400, 'insufficient_capabilities_for_transfer', false]);
    const event = fake.completeOnboarding(id);
    assert.equal(event.data.object.payouts_enabled, true);
    // A new attempt is a new key (Stripe keeps the 400 under the old one).
    const made = await transfer(id, 'payout-1-2');
    const stored = fake.connect.transfers.get(made.id)!;
    assert.match(made.id, /^tr_/);
    assert.deepEqual(
      [stored.amount, stored.currency, stored.destination, stored.description, stored.metadata],
      [1000, 'usd', id, 'Spring referrals: 2 referrals', { refkit_campaign: 'cmp_1', refkit_participant: '42', refkit_payout: '7' }],
    );
    // The platform's balance, when a test sets one, must cover it.
    fake.connect.setBalance('usd', 500);
    const poor = await thrown(() => transfer(id, 'payout-2-1'));
    assert.ok(poor instanceof Stripe.errors.StripeError && poor.code === 'balance_insufficient');
    fake.connect.setBalance('usd', 1_000_000);
    // Stripe took the account's transfers away (a requirement past due): refused again.
    fake.connect.restrictAccount(id);
    assert.equal(((await thrown(() => transfer(id, 'payout-3-1'))) as Stripe.errors.StripeError).code, 'insufficient_capabilities_for_transfer');
    assert.deepEqual(await api.retrieveAccount(KEY, id), { id, payoutsEnabled: false, transfersActive: false, detailsSubmitted: true });
  });

  it('a lost answer: the retry under the same key gets the transfer made the first time, never a second', async () => {
    const { id } = await newAccount('acct-lost');
    fake.completeOnboarding(id);
    const before = fake.connect.transfers.size;
    // The answer is lost and so is the package's own second try (it retries a closed connection once).
    fake.fail({ kind: 'lost-answer' }, { kind: 'drop' });
    const lost = await thrown(() => transfer(id, 'payout-9-1'));
    assert.equal(transientStripeError(lost), true);
    assert.match(describeStripeError(lost), /^Stripe could not be reached/);
    assert.equal(fake.connect.transfers.size, before + 1, 'Stripe made it');
    const retried = await transfer(id, 'payout-9-1');
    assert.equal(fake.connect.transfers.size, before + 1, 'no second transfer');
    assert.equal(retried.id, (fake.made.at(-1)!.body as { id: string }).id);
    assert.equal(fake.requests.at(-1)!.replayed, true);
    // Lost once only: the package's own retry gets the answer, still one transfer.
    fake.fail({ kind: 'lost-answer' });
    const once = await transfer(id, 'payout-10-1');
    assert.equal(fake.connect.transfers.size, before + 2);
    assert.deepEqual(fake.requests.slice(-2).map((r) => [r.idempotencyKey, r.replayed]), [['payout-10-1', false], ['payout-10-1', true]]);
    assert.equal(fake.connect.transfers.get(once.id)!.amount, 1000);
  });

  it('transient or not: network, timeout, 5xx, 429 and 409 are; other 4xx are not', async () => {
    const { id } = await newAccount('acct-errors');
    fake.completeOnboarding(id);
    const impatient = new StripeConnectApi({ api: fake.api, timeoutMs: 150 });
    const cases: [string, () => void, () => Promise<unknown>, boolean, RegExp][] = [
      ['500', () => fake.fail({ kind: '500' }), () => transfer(id, 'e-1'), true, /^Stripe answered 500: /],
      ['429', () => fake.fail({ kind: '429' }), () => transfer(id, 'e-2'), true, /^Stripe answered 429: /],
      ['drop', () => fake.fail({ kind: 'drop' }, { kind: 'drop' }), () => api.retrieveAccount(KEY, id), true, /^Stripe could not be reached/],
      // A timeout is not retried by the package (a closed connection is).
      ['timeout', () => fake.fail({ kind: 'slow', ms: 400 }), () => impatient.retrieveAccount(KEY, id), true, /timeout/],
      ['400', () => fake.fail({ kind: '400', message: 'Amount must convert to at least 50 cents.' }), () => transfer(id, 'e-3'), false, /^Stripe answered 400: Amount/],
      ['401', () => {}, () => api.retrieveAccount('sk_test_notGivenToTheFake0', id), false, /^Stripe answered 401: Invalid API Key/],
    ];
    for (const [name, arrange, call, transient, described] of cases) {
      assert.equal(fake.pendingFailures, 0, 'each case uses up its failures');
      arrange();
      const err = await thrown(call);
      assert.equal(transientStripeError(err), transient, `${name}: ${describeStripeError(err)}`);
      assert.match(describeStripeError(err), described, name);
    }
    assert.equal(transientStripeError(new Stripe.errors.StripeIdempotencyError({ statusCode: 409, message: 'key in use' })), true, '409: the same key in flight');
    assert.equal(transientStripeError(new Error('not Stripe\'s')), true, 'as the credit sender: never given up by accident');
  });

  it('Connect events: a signed account.updated verifies; a bad, missing or future signature does not', async () => {
    const { id } = await newAccount('acct-events');
    fake.completeOnboarding(id);
    const payload = JSON.stringify(fake.connect.restrictAccount(id));
    const header = (secret: string, timestamp?: number) => signer.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp && { timestamp }) });
    const event = verifyConnectEvent(Buffer.from(payload), header(CONNECT_SECRET), CONNECT_SECRET);
    assert.deepEqual([event.type, event.account], ['account.updated', id]);
    assert.equal(event.type === 'account.updated' && accountState(event.data.object).payoutsEnabled, false);
    assert.deepEqual(Object.keys(event.data.previous_attributes ?? {}).sort(), ['capabilities', 'payouts_enabled', 'requirements']);
    assert.throws(() => verifyConnectEvent(payload, header('whsec_test_someOtherEndpoint'), CONNECT_SECRET), Stripe.errors.StripeSignatureVerificationError);
    assert.throws(() => verifyConnectEvent(payload.replace('"livemode":false', '"livemode":true'), header(CONNECT_SECRET), CONNECT_SECRET), Stripe.errors.StripeSignatureVerificationError);
    assert.throws(() => verifyConnectEvent(payload, undefined, CONNECT_SECRET), /Stripe-Signature header is missing/);
    assert.throws(() => verifyConnectEvent(payload, header(CONNECT_SECRET), ''), /No Connect webhook signing secret/);
    const now = Math.floor(Date.now() / 1000);
    assert.throws(() => verifyConnectEvent(payload, header(CONNECT_SECRET, now - 600), CONNECT_SECRET), /Timestamp outside the tolerance zone/);
    assert.throws(() => verifyConnectEvent(payload, header(CONNECT_SECRET, now + 600), CONNECT_SECRET), /ahead of this server's clock/);
  });

  it('STRIPE_API_URL: an origin, or Stripe itself', () => {
    assert.equal(stripeApiTarget(undefined), undefined);
    assert.equal(stripeApiTarget(' '), undefined);
    assert.deepEqual(stripeApiTarget('http://127.0.0.1:12111'), { host: '127.0.0.1', port: 12111, protocol: 'http' });
    assert.deepEqual(stripeApiTarget('https://stripe.internal/'), { host: 'stripe.internal', port: 443, protocol: 'https' });
    assert.deepEqual(stripeApiTarget('http://[::1]:8080'), { host: '::1', port: 8080, protocol: 'http' });
    for (const bad of ['127.0.0.1:12111', 'ftp://stripe.test', 'http://stripe.test/v1', 'http://u:p@stripe.test', 'http://stripe.test/?x=1']) {
      assert.throws(() => stripeApiTarget(bad), /STRIPE_API_URL/, bad);
    }
  });
});
