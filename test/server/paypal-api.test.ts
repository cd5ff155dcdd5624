/**
 * The PayPal client (src/server/payouts/domain/paypal-api.ts) against the local stand-in of PayPal's API
 * (./helpers/fake-paypal.ts): tokens, amounts, a batch made and read, a retry after a lost answer, the
 * duplicate sender_batch_id, which failures may pass, and webhook verification. No database.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { PayPalApi, PayPalError, paypalBaseUrl, PAYPAL_LIVE, PAYPAL_SANDBOX, type PayPalCredentials, type PayPalItem } from '../../src/server/payouts/domain/paypal-api.js';
import { minorFromPayPalValue, paypalMinorUnits, paypalValue } from '../../src/server/payouts/domain/paypal-wire.js';
import { FakePayPal } from './helpers/fake-paypal.js';

let fake: FakePayPal;
let api: PayPalApi;
let creds: PayPalCredentials;
/** The client's clock: real time plus what a test moved it by. */
let offset = 0;

beforeEach(async () => {
  offset = 0;
  fake = await new FakePayPal().allowClient('AcmeClient1', 'acme-secret').start();
  creds = { clientId: 'AcmeClient1', clientSecret: 'acme-secret', webhookId: fake.webhookId };
  api = new PayPalApi({ baseUrl: fake.baseUrl, timeoutMs: 10_000, now: () => Date.now() + offset });
});
afterEach(() => fake.stop());

const item = (n: number, over: Partial<PayPalItem> = {}): PayPalItem => ({ senderItemId: `payout-${n}`, receiver: `ann${n}@example.com`, amountMinor: 1005, currency: 'USD', note: 'Your referral reward', ...over });
const batch = (senderBatchId: string, items: PayPalItem[] = [item(1), item(2)]) => ({ senderBatchId, emailSubject: 'You have a reward', emailMessage: 'Thanks for referring your friends', items });
const tokenRequests = () => fake.requests.filter((r) => r.path === '/v1/oauth2/token');

async function refusal(promise: Promise<unknown>): Promise<PayPalError> {
  const err = await promise.then(
    () => assert.fail('expected a PayPalError'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof PayPalError, String(err));
  return err;
}

describe('tokens', () => {
  it('fetches one token with Basic auth and a form body, and keeps it for later calls', async () => {
    await api.createBatch(creds, batch('run-1'));
    await api.getBatch(creds, fake.batchOf('run-1')!.batchId);
    assert.equal(tokenRequests().length, 1);
    assert.deepEqual(tokenRequests()[0]!.body, { grant_type: 'client_credentials' });
    assert.equal(tokenRequests()[0]!.clientId, 'AcmeClient1');
  });

  it('fetches a new token once after a 401, and makes the call again with the same PayPal-Request-Id', async () => {
    await api.getBatch(creds, (await api.createBatch(creds, batch('run-1'))).batchId);
    fake.expireTokens();
    const created = await api.createBatch(creds, batch('run-2'));
    assert.equal(tokenRequests().length, 2);
    const creates = fake.requests.filter((r) => r.path === '/v1/payments/payouts');
    assert.deepEqual(creates.slice(-2).map((r) => [r.status, r.requestId]), [[401, 'run-2'], [201, 'run-2']]);
    assert.equal(fake.batchOf('run-2')!.batchId, created.batchId);
  });

  it('shares one token request among concurrent calls', async () => {
    await Promise.all([api.createBatch(creds, batch('run-1')), api.createBatch(creds, batch('run-2')), api.createBatch(creds, batch('run-3'))]);
    assert.equal(tokenRequests().length, 1);
    assert.equal(fake.batches.size, 3);
  });

  it('refreshes a token shortly before it expires', async () => {
    const id = (await api.createBatch(creds, batch('run-1'))).batchId;
    offset = (32_400 - 60) * 1000;
    await api.getBatch(creds, id);
    assert.equal(tokenRequests().length, 2);
  });

  it('refuses wrong credentials without retrying: invalid_client, not transient', async () => {
    const err = await refusal(api.getBatch({ ...creds, clientSecret: 'wrong' }, 'X'));
    assert.deepEqual([err.status, err.name, err.transient], [401, 'invalid_client', false]);
    assert.equal(tokenRequests().length, 1);
  });
});

describe('amounts', () => {
  it('writes USD in cents with two decimals and JPY, HUF, TWD in whole units', async () => {
    assert.deepEqual(['USD', 'EUR', 'JPY', 'HUF', 'TWD'].map((c) => paypalValue(1005, c)), ['10.05', '10.05', '1005', '1005', '1005']);
    assert.deepEqual([paypalValue(5, 'USD'), paypalValue(100, 'usd'), paypalValue(123456789, 'GBP')], ['0.05', '1.00', '1234567.89']);
    assert.deepEqual([paypalValue(0, 'USD'), paypalValue(-1, 'USD'), paypalValue(1.5, 'USD'), paypalValue(100, 'KWD')], [undefined, undefined, undefined, undefined]);
    assert.deepEqual([paypalMinorUnits(10, 'USD'), paypalMinorUnits(10, 'JPY'), paypalMinorUnits(500, 'HUF')], [1000, 10, 500]);
    assert.deepEqual([minorFromPayPalValue('1.0', 'USD'), minorFromPayPalValue('10.05', 'USD'), minorFromPayPalValue('1000', 'JPY'), minorFromPayPalValue('1.5', 'JPY')], [100, 1005, 1000, undefined]);

    await api.createBatch(creds, batch('run-1', [item(1, { amountMinor: 1005 }), item(2, { amountMinor: 5 })]));
    await api.createBatch(creds, batch('run-2', [item(3, { amountMinor: 1000, currency: 'JPY' }), item(4, { amountMinor: 500, currency: 'huf' })]));
    const sent = fake.made.map((r) => ((r.body as { items: { amount: unknown }[] }).items).map((i) => i.amount));
    assert.deepEqual(sent, [
      [{ value: '10.05', currency: 'USD' }, { value: '0.05', currency: 'USD' }],
      [{ value: '1000', currency: 'JPY' }, { value: '500', currency: 'HUF' }],
    ]);
  });

  it('refuses a currency PayPal does not take, or an amount it cannot pay, before any request', async () => {
    for (const [over, name] of [[{ currency: 'KWD' }, 'UNSUPPORTED_CURRENCY'], [{ currency: 'XYZ' }, 'UNSUPPORTED_CURRENCY'], [{ amountMinor: 0 }, 'INVALID_AMOUNT'], [{ amountMinor: 10.5 }, 'INVALID_AMOUNT']] as const) {
      const err = await refusal(api.createBatch(creds, batch('run-x', [item(1), item(2, over)])));
      assert.deepEqual([err.name, err.transient, err.status, err.duplicateBatch], [name, false, undefined, false]);
    }
    assert.equal(fake.requests.length, 0);
  });
});

describe('batches', () => {
  it('creates a batch (PENDING) and reads it back settled, with each item as PayPal reports it', async () => {
    fake.setItemStatus('payout-2', 'UNCLAIMED');
    const created = await api.createBatch(creds, batch('run-1', [item(1), item(2), item(3)]));
    assert.equal(created.batchStatus, 'PENDING');
    const request = fake.made[0]!;
    assert.equal(request.requestId, 'run-1');
    assert.deepEqual((request.body as { sender_batch_header: unknown }).sender_batch_header, { sender_batch_id: 'run-1', email_subject: 'You have a reward', email_message: 'Thanks for referring your friends' });
    assert.deepEqual((request.body as { items: unknown[] }).items[0], { recipient_type: 'EMAIL', amount: { value: '10.05', currency: 'USD' }, note: 'Your referral reward', receiver: 'ann1@example.com', sender_item_id: 'payout-1' });

    const read = await api.getBatch(creds, created.batchId);
    const stored = fake.batches.get(created.batchId)!;
    assert.deepEqual(read, {
      batchId: created.batchId,
      batchStatus: 'SUCCESS',
      items: [
        { payoutItemId: stored.items[0]!.payoutItemId, senderItemId: 'payout-1', transactionStatus: 'SUCCESS' },
        { payoutItemId: stored.items[1]!.payoutItemId, senderItemId: 'payout-2', transactionStatus: 'UNCLAIMED', error: 'RECEIVER_UNREGISTERED: Receiver is unregistered' },
        { payoutItemId: stored.items[2]!.payoutItemId, senderItemId: 'payout-3', transactionStatus: 'SUCCESS' },
      ],
    });
    fake.setItemStatus('payout-2', 'RETURNED');
    assert.equal((await api.getBatch(creds, created.batchId)).items[1]!.transactionStatus, 'RETURNED');
  });

  it('reads every page of a batch of more than 1000 items', async () => {
    const many = Array.from({ length: 1001 }, (_, n) => item(n));
    const { batchId } = await api.createBatch(creds, batch('run-big', many));
    const read = await api.getBatch(creds, batchId);
    assert.equal(read.items.length, 1001);
    assert.deepEqual(fake.requests.filter((r) => r.method === 'GET').map((r) => r.query.page), ['1', '2']);
  });

  it('a retry after a lost answer (same PayPal-Request-Id) gets the first batch, not a second one', async () => {
    fake.fail({ kind: 'lost-answer' });
    const lost = await refusal(api.createBatch(creds, batch('run-1')));
    assert.deepEqual([lost.name, lost.transient, lost.status], ['network', true, undefined]);
    assert.equal(fake.batches.size, 1);
    const retried = await api.createBatch(creds, batch('run-1'));
    assert.equal(retried.batchId, fake.batchOf('run-1')!.batchId);
    assert.equal(fake.batches.size, 1);
    assert.equal(fake.made.length, 1);
    assert.equal(fake.requests.at(-1)!.replayed, true);
  });

  it('flags a sender_batch_id PayPal has seen under another request id as a duplicate batch, with its id', async () => {
    const first = await api.createBatch(creds, batch('run-1'));
    fake.forgetRequestIds();
    const err = await refusal(api.createBatch(creds, batch('run-1')));
    assert.deepEqual([err.status, err.name, err.transient, err.duplicateBatch, err.existingBatchId], [400, 'USER_BUSINESS_ERROR', false, true, first.batchId]);
    assert.match(err.message, /SENDER_BATCH_ID: Batch with given sender_batch_id already exists/);
    assert.ok(err.debugId);
    assert.equal(fake.batches.size, 1);
  });
});

describe('failures', () => {
  it('no answer, a timeout, 5xx and 429 may pass; 400, 404, 409 and 422 will not', async () => {
    const { batchId } = await api.createBatch(creds, batch('run-1'));
    const cases: [Parameters<FakePayPal['fail']>[0], number | undefined, string, boolean][] = [
      [{ kind: '500' }, 500, 'INTERNAL_SERVER_ERROR', true],
      [{ kind: '503' }, 503, 'SERVICE_UNAVAILABLE', true],
      [{ kind: '429' }, 429, 'RATE_LIMIT_REACHED', true],
      [{ kind: 'drop' }, undefined, 'network', true],
      [{ kind: 'error', status: 409, name: 'RESOURCE_CONFLICT' }, 409, 'RESOURCE_CONFLICT', false],
      [{ kind: 'error', status: 422, name: 'UNPROCESSABLE_ENTITY' }, 422, 'UNPROCESSABLE_ENTITY', false],
      [{ kind: 'error', status: 403, name: 'NOT_AUTHORIZED' }, 403, 'NOT_AUTHORIZED', false],
    ];
    for (const [failure, status, name, transient] of cases) {
      fake.fail(failure);
      const err = await refusal(api.getBatch(creds, batchId));
      assert.deepEqual([err.status, err.name, err.transient, err.duplicateBatch], [status, name, transient, false], JSON.stringify(failure));
      if (status !== undefined) assert.ok(err.debugId, 'debug_id');
    }
    // A timeout: the answer comes after 1.5 s, past a client that waits 300 ms.
    fake.fail({ kind: 'slow', ms: 1500 });
    const impatient = new PayPalApi({ baseUrl: fake.baseUrl, timeoutMs: 300 });
    const late = await refusal(impatient.getBatch(creds, batchId));
    assert.deepEqual([late.status, late.name, late.transient], [undefined, 'network', true]);
    assert.match(late.message, /did not answer .* within 300 ms/);
    const missing = await refusal(api.getBatch(creds, 'NOSUCHBATCH'));
    assert.deepEqual([missing.status, missing.name, missing.transient], [404, 'RESOURCE_NOT_FOUND', false]);
    const invalid = await refusal(api.createBatch(creds, batch('run-2', [item(1, { receiver: 'not-an-email' })])));
    assert.deepEqual([invalid.status, invalid.name, invalid.transient], [400, 'VALIDATION_ERROR', false]);
    assert.match(invalid.message, /items\[0\]\.receiver/);
  });

  it('a failed token request is the call failing, as transient as the failure', async () => {
    fake.failToken({ kind: '500' });
    const err = await refusal(api.createBatch(creds, batch('run-1')));
    assert.deepEqual([err.status, err.transient], [500, true]);
    assert.equal(fake.batches.size, 0);
    await api.createBatch(creds, batch('run-1'));
    assert.equal(fake.batches.size, 1);
  });
});

describe('webhooks', () => {
  it('PayPal verifies an event the stand-in signed (parsed or raw), and not a tampered one', async () => {
    await api.getBatch(creds, (await api.createBatch(creds, batch('run-1'))).batchId);
    const delivery = fake.itemEvent('payout-1', 'RETURNED');
    assert.equal(delivery.event.event_type, 'PAYMENT.PAYOUTS-ITEM.RETURNED');
    assert.equal(delivery.event.resource_type, 'payouts_item');
    const resource = delivery.event.resource as Record<string, unknown>;
    assert.deepEqual([resource.transaction_status, (resource.payout_item as Record<string, unknown>).sender_item_id], ['RETURNED', 'payout-1']);

    assert.equal(await api.verifyWebhook(creds, delivery.headers, JSON.parse(delivery.body)), true);
    assert.equal(await api.verifyWebhook(creds, delivery.headers, delivery.body), true);
    const sent = fake.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.webhook_id, fake.webhookId);
    assert.equal(sent.transmission_id, delivery.headers['paypal-transmission-id']);

    const tampered = delivery.body.replace('"RETURNED"', '"SUCCESS"');
    assert.equal(await api.verifyWebhook(creds, delivery.headers, tampered), false);
    assert.equal(await api.verifyWebhook({ ...creds, webhookId: 'OTHERWEBHOOK1' }, delivery.headers, delivery.body), false);
    const batchDelivery = fake.batchEvent(fake.batchOf('run-1')!.batchId);
    assert.equal(batchDelivery.event.event_type, 'PAYMENT.PAYOUTSBATCH.SUCCESS');
    assert.equal(await api.verifyWebhook(creds, batchDelivery.headers, delivery.body), false);
    assert.equal(await api.verifyWebhook(creds, batchDelivery.headers, batchDelivery.body), true);
  });

  it('cannot verify without a webhook id or the transmission headers, and asks PayPal nothing then', async () => {
    const delivery = fake.signedEvent('PAYMENT.PAYOUTS-ITEM.SUCCEEDED', { payout_item_id: 'X', transaction_status: 'SUCCESS' });
    const { 'paypal-transmission-sig': _sig, ...unsigned } = delivery.headers;
    assert.equal(await api.verifyWebhook({ ...creds, webhookId: null }, delivery.headers, delivery.body), false);
    assert.equal(await api.verifyWebhook(creds, unsigned, delivery.body), false);
    assert.equal(await api.verifyWebhook(creds, delivery.headers, 'not json'), false);
    assert.equal(fake.requests.length, 0);
  });
});

describe('paypalBaseUrl', () => {
  it('is live, sandbox, or the PAYPAL_API_URL origin', () => {
    assert.equal(paypalBaseUrl(false), PAYPAL_LIVE);
    assert.equal(paypalBaseUrl(true, ''), PAYPAL_SANDBOX);
    assert.equal(paypalBaseUrl(false, 'http://127.0.0.1:9999/'), 'http://127.0.0.1:9999');
    assert.throws(() => paypalBaseUrl(false, 'ftp://example.com'), TypeError);
    assert.throws(() => paypalBaseUrl(false, 'not a url'), TypeError);
  });
});
