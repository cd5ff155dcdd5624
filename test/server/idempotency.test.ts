/**
 * The Idempotency-Key header on both databases: a retry with the same key and body gets the first answer
 * again and changes nothing, even 50 at once; another body is 409 idempotency_conflict; keys are per
 * account, last 24 hours, and refuse junk; keyless (browser) calls ignore them; and every admin POST of
 * the OpenAPI document honours them.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { createApiKey } from '../../src/server/accounts/domain/keys.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { ABANDONED_AFTER_MS, IDEMPOTENCY_WINDOW_MS } from '../../src/server/http/idempotency.js';
import { listOperations, validFields, type Operation } from './helpers/operations.js';
import { OWNER, signIn } from './helpers/owner.js';
import { databaseKinds } from './helpers/databases.js';
import { statementsSent } from './helpers/pg-statements.js';
import { startService, type TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

interface Answer {
  status: number;
  text: string;
  body: { error?: { code: string; field?: string } } & Record<string, unknown>;
  replayed: string | null;
  headers: Headers;
}

/** POSTs JSON with the default account's secret key (or `auth`'s headers), and the key when given. */
async function post(s: TestService, path: string, body: unknown, key?: string, auth: Record<string, string> = { authorization: `Bearer ${s.secretKey}` }): Promise<Answer> {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...(key !== undefined && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Answer['body'], replayed: res.headers.get('idempotent-replayed'), headers: res.headers };
}

const QUALIFY = '/api/v1/qualifyParticipant';

/** Ann refers Ben (rewards 10 and 5); returns the campaign id. */
async function referral(s: TestService): Promise<string> {
  const id = await s.campaign();
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return id;
}

async function payments(s: TestService, id: string, email = 'ben@example.com') {
  const row = await s.ctx.store.findParticipantByEmail(id, email);
  return { count: row!.payment_count, cents: row!.amount_paid_cents };
}

const storedKeys = async (s: TestService) => (await s.ctx.store.db.selectFrom('idempotency_keys').select('key').execute()).map((r) => r.key);

// Through PgBouncer too: a key's claim and its answer are written in transactions on pooled server sessions.
eachDatabase('Idempotency-Key', (service) => {
  it('a retried qualifyParticipant with the same key counts the payment once and replays the same body, marked Idempotent-Replayed', async () => {
    const s = service();
    const id = await referral(s);
    const body = { id, email: 'ben@example.com', amountPaid: '20.00' };
    const first = await post(s, QUALIFY, body, 'pay-1');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.replayed, null);
    const again = await post(s, QUALIFY, body, 'pay-1');
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.replayed, 'true');
    assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await payments(s, id), { count: 1, cents: 2000 });
    // Without a key, a second call is a second payment, as before.
    await post(s, QUALIFY, body);
    assert.deepEqual(await payments(s, id), { count: 2, cents: 4000 });
  });

  it('50 parallel duplicates of one key: one payment; every answer is the one 200 body or 409 idempotency_in_progress with Retry-After', async () => {
    const s = service();
    const id = await referral(s);
    const body = { id, email: 'ben@example.com', amountPaid: '3.00' };
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(s, QUALIFY, body, 'burst')));
    const ok = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status !== 200);
    assert.ok(ok.length >= 1);
    for (const a of ok) assert.equal(a.text, ok[0]!.text);
    for (const a of busy) {
      assert.equal(a.status, 409, a.text);
      assert.equal(a.body.error!.code, 'idempotency_in_progress');
      assert.equal(a.headers.get('retry-after'), '1');
    }
    assert.deepEqual(await payments(s, id), { count: 1, cents: 300 });
    const later = await post(s, QUALIFY, body, 'burst');
    assert.equal(later.text, ok[0]!.text);
    assert.equal(later.replayed, 'true');
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
  });

  it('the same key with another body, or at another route, is 409 idempotency_conflict and changes nothing', async () => {
    const s = service();
    const id = await referral(s);
    await post(s, QUALIFY, { id, email: 'ben@example.com', amountPaid: '20.00' }, 'k');
    const other = await post(s, QUALIFY, { id, email: 'ben@example.com', amountPaid: '21.00' }, 'k');
    assert.equal(other.status, 409);
    assert.deepEqual(other.body.error, {
      code: 'idempotency_conflict',
      message: 'This Idempotency-Key was used with another request; use a new key for a different request',
      field: 'Idempotency-Key',
    });
    const elsewhere = await post(s, '/api/v1/admin/redeemReward', { id, email: 'ben@example.com', kind: 'referee', amount: 1 }, 'k');
    assert.equal(elsewhere.status, 409);
    assert.equal(elsewhere.body.error!.code, 'idempotency_conflict');
    assert.deepEqual(await payments(s, id), { count: 1, cents: 2000 });
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).refereeRewardRedeemed, 0);
    // The same body in another key order is the same request.
    const reordered = await post(s, QUALIFY, { amountPaid: '20.00', email: 'ben@example.com', id }, 'k');
    assert.equal(reordered.replayed, 'true');
  });

  it('keys are per account: another account using the same key runs its own request; the owner session shares its account\'s keys', async () => {
    const s = service();
    const [account] = await s.ctx.store.db.insertInto('accounts').values({ name: 'other', created_on: Date.now() }).returning('id').execute();
    const other = await createApiKey(s.ctx, { accountId: Number(account!.id) }, 'other');
    const body = { campaignName: 'Spring', hostURL: 'https://shop.example/join' };
    const mine = await post(s, '/api/v1/admin/createCampaign', body, 'create-spring');
    const theirs = await post(s, '/api/v1/admin/createCampaign', body, 'create-spring', { authorization: `Bearer ${other.key}` });
    assert.equal(mine.status, 200, mine.text);
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(theirs.replayed, null);
    assert.notEqual(theirs.body.campaignId, mine.body.campaignId);

    // The dashboard's owner acts for the default account: its retry of the key replays the key's answer.
    await createOwner(s.ctx, OWNER.email, OWNER.password);
    const session = await signIn(s);
    const fromDashboard = await post(s, '/api/v1/admin/createCampaign', body, 'create-spring', { cookie: session.cookie, 'x-csrf-token': session.csrfToken });
    assert.equal(fromDashboard.replayed, 'true');
    assert.equal(fromDashboard.text, mine.text);
    const names = (await s.admin.listCampaigns()).filter((c) => c.campaignName === 'Spring');
    assert.equal(names.length, 1);
  });

  it('a 4xx answer is stored and replayed, even once the request would succeed; a 5xx-free new key runs', async () => {
    const s = service();
    const id = await referral(s);
    const redeem = { id, email: 'ben@example.com', kind: 'referee', amount: 5 };
    const refused = await post(s, '/api/v1/admin/redeemReward', redeem, 'redeem-1');
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error!.code, 'insufficient_balance');
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
    const replayed = await post(s, '/api/v1/admin/redeemReward', redeem, 'redeem-1');
    assert.equal(replayed.status, 409);
    assert.equal(replayed.text, refused.text);
    assert.equal(replayed.replayed, 'true');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).refereeRewardRedeemed, 0);
    const fresh = await post(s, '/api/v1/admin/redeemReward', redeem, 'redeem-2');
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.refereeRewardRedeemed, 5);
  });

  it('a refusal that asks to be sent again later (409 campaign_paused) is not replayed: the same key runs once the campaign is resumed', async () => {
    const s = service();
    const id = await referral(s);
    const body = { id, email: 'ben@example.com', amountPaid: '9.00' };
    await s.admin.setCampaignStatus(id, 'Pause');
    const paused = await post(s, QUALIFY, body, 'queued');
    assert.equal(paused.status, 409);
    assert.equal(paused.body.error!.code, 'campaign_paused');
    assert.equal((await post(s, QUALIFY, body, 'queued')).body.error!.code, 'campaign_paused');
    await s.admin.setCampaignStatus(id, 'Active');
    const resumed = await post(s, QUALIFY, body, 'queued');
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal(resumed.replayed, null);
    assert.equal(resumed.body.refereeReward, 5);
    assert.deepEqual(await payments(s, id), { count: 1, cents: 900 });
  });

  it('a bad key (256 characters, a control character, non-ASCII, empty) is 400 invalid_request on Idempotency-Key and changes nothing; 255 printable characters are a key', async () => {
    const s = service();
    const id = await referral(s);
    const body = { id, email: 'ben@example.com', amountPaid: '1.00' };
    for (const key of ['k'.repeat(256), 'a\tb', 'caf\u00e9', '']) {
      const res = await post(s, QUALIFY, body, key);
      assert.equal(res.status, 400, `${JSON.stringify(key)}: ${res.text}`);
      assert.deepEqual(res.body.error, { code: 'invalid_request', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters', field: 'Idempotency-Key' });
    }
    assert.deepEqual(await payments(s, id), { count: 0, cents: 0 });
    assert.deepEqual(await storedKeys(s), []);
    const longest = ' !~'.repeat(85);
    assert.equal((await post(s, QUALIFY, body, longest)).status, 200);
    assert.equal((await post(s, QUALIFY, body, longest)).replayed, 'true');
    assert.deepEqual(await payments(s, id), { count: 1, cents: 100 });
  });

  it('keyless (browser) calls ignore the header, even a bad one; addParticipant with a secret key replays its answer and Refkit-Signup', async () => {
    const s = service();
    const id = await s.campaign();
    for (const [email, key] of [['a@example.com', 'same'], ['b@example.com', 'same'], ['c@example.com', 'x'.repeat(300)]] as const) {
      const res = await post(s, '/api/v1/addParticipant', { id, email }, key, {});
      assert.equal(res.status, 200, res.text);
      assert.equal(res.replayed, null);
      assert.equal(res.headers.get('refkit-signup'), 'created');
    }
    assert.deepEqual(await storedKeys(s), []);

    const keyed = await post(s, '/api/v1/addParticipant', { id, email: 'd@example.com' }, 'signup-d');
    const retried = await post(s, '/api/v1/addParticipant', { id, email: 'd@example.com' }, 'signup-d');
    assert.equal(keyed.headers.get('refkit-signup'), 'created');
    assert.equal(retried.headers.get('refkit-signup'), 'created');
    assert.equal(retried.replayed, 'true');
    assert.equal(retried.text, keyed.text);
  });

  it('createApiKey ignores the header: its answer, the only copy of the new key, is never stored', async () => {
    const s = service();
    const first = await post(s, '/api/v1/admin/createApiKey', { name: 'ci' }, 'new-key');
    const second = await post(s, '/api/v1/admin/createApiKey', { name: 'ci' }, 'new-key');
    assert.equal(second.replayed, null);
    assert.notEqual(first.body.key, second.body.key);
    assert.deepEqual(await storedKeys(s), []);
  });

  it('a 5xx answer releases the key: the retry runs', async () => {
    const s = service();
    const id = await referral(s);
    const body = { id, email: 'ben@example.com', amountPaid: '7.00' };
    mock.method(s.ctx.store, 'transaction', () => Promise.reject(new Error('the database went away')), { times: 1 });
    const failed = await post(s, QUALIFY, body, 'flaky');
    assert.equal(failed.status, 500, failed.text);
    assert.deepEqual(await storedKeys(s), []);
    const retried = await post(s, QUALIFY, body, 'flaky');
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.replayed, null);
    assert.deepEqual(await payments(s, id), { count: 1, cents: 700 });
  });

  it('every admin POST of the OpenAPI document documents and honours the header: a retry is replayed', async () => {
    const s = service();
    const id = await referral(s);
    const ops = (await listOperations(s.url)).filter((op) => op.method === 'POST' && op.path.startsWith('/api/v1/admin/'));
    const doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as { paths: Record<string, { post: { parameters?: { in: string; name: string }[] } }> };
    // Not keyed, and why: a retried import already changes nothing (existing emails, or codes, are skipped,
    // all or nothing), and its body is a stream the handler reads once; createApiKey's answer holds the new
    // key, which a stored answer would keep in the clear; previewEmail and backtestRules change nothing (a render, a replay), and a
    // test email is an owner's button: pressed again, it is meant to send again.
    const exempt = new Set(['/api/v1/admin/importParticipants', '/api/v1/admin/importRewardCodes', '/api/v1/admin/createApiKey', '/api/v1/admin/previewEmail', '/api/v1/admin/backtestRules', '/api/v1/admin/sendTestEmail']);
    assert.ok(ops.length >= 12, `admin POST operations: ${ops.length}`);
    for (const op of ops) {
      const documented = (doc.paths[op.path]!.post.parameters ?? []).some((p) => p.in === 'header' && p.name === 'idempotency-key');
      assert.equal(documented, !exempt.has(op.path), `${op.path} documents Idempotency-Key unless exempt`);
      if (exempt.has(op.path)) continue;
      const fields = fieldsFor(op, id);
      const key = `loop ${op.path}`;
      const first = await post(s, op.path, fields, key);
      assert.ok(first.status < 500, `${op.path}: ${first.status} ${first.text}`);
      const again = await post(s, op.path, fields, key);
      assert.equal(again.replayed, 'true', `${op.path} replays`);
      assert.equal(again.status, first.status, op.path);
      assert.equal(again.text, first.text, op.path);
    }
  });
}, { pgbouncer: true });

/** Valid fields for an operation, naming the test's campaign and referee where it asks for them. */
function fieldsFor(op: Operation, campaignId: string): Record<string, unknown> {
  const fields = validFields(op);
  if ('id' in fields && 'email' in op.fields) Object.assign(fields, { id: campaignId, email: 'ben@example.com' });
  return fields;
}

let clock = Date.now();
// Through PgBouncer too: a key's claim and its answer are written in transactions on pooled server sessions.
eachDatabase(
  'Idempotency-Key expiry',
  (service) => {
    it('a key is replayed for 24 hours; after them the same request runs again, and expired keys are purged', async () => {
      const s = service();
      clock = Date.now();
      const id = await referral(s);
      const body = { id, email: 'ben@example.com', amountPaid: '5.00' };
      await post(s, QUALIFY, body, 'daily');
      clock += IDEMPOTENCY_WINDOW_MS - 1;
      assert.equal((await post(s, QUALIFY, body, 'daily')).replayed, 'true');
      assert.deepEqual(await payments(s, id), { count: 1, cents: 500 });
      clock += 1;
      const again = await post(s, QUALIFY, body, 'daily');
      assert.equal(again.status, 200);
      assert.equal(again.replayed, null);
      assert.deepEqual(await payments(s, id), { count: 2, cents: 1000 });
      // A day later still, another key's call purges the expired one.
      clock += IDEMPOTENCY_WINDOW_MS;
      await post(s, QUALIFY, body, 'next');
      assert.deepEqual(await storedKeys(s), ['next']);
    });

    it('a claim left unanswered (its process died mid-request) answers 409 idempotency_in_progress, and after 5 minutes a retry runs', async () => {
      const s = service();
      clock = Date.now();
      const id = await referral(s);
      const body = { id, email: 'ben@example.com', amountPaid: '5.00' };
      // What a request leaves when its process dies before answering: the claim, and no answer.
      await post(s, QUALIFY, body, 'orphan');
      await s.ctx.store.db.updateTable('idempotency_keys').set({ status: null, headers: null, body: null }).execute();
      const busy = await post(s, QUALIFY, body, 'orphan');
      assert.equal(busy.status, 409, busy.text);
      assert.equal(busy.body.error!.code, 'idempotency_in_progress');
      clock += ABANDONED_AFTER_MS;
      const taken = await post(s, QUALIFY, body, 'orphan');
      assert.equal(taken.status, 200, taken.text);
      assert.equal(taken.replayed, null);
      assert.equal((await post(s, QUALIFY, body, 'orphan')).replayed, 'true');
      assert.deepEqual(await payments(s, id), { count: 2, cents: 1000 });
    });
  },
  { now: () => clock, pgbouncer: true },
);

const postgres = (await databaseKinds()).find((k) => k.name === 'postgres')!;

describe('Idempotency-Key costs nothing without the header [postgres]', { skip: postgres.skip }, () => {
  let s: TestService;
  beforeEach(async () => {
    s = await startService(postgres);
  });
  afterEach(() => s.close());

  it('a sign-up and a payment without the header send no statement of it; with it, the claim and the answer are written in the payment\'s transaction', async () => {
    const id = await referral(s);
    // The first keyed call of the process also purges expired keys: out of the way before counting.
    await post(s, QUALIFY, { id, email: 'ben@example.com', amountPaid: '1.00' }, 'first');
    const signup = await statementsSent(() => s.admin.addParticipant({ id, email: 'cy@example.com' }));
    assert.deepEqual(signup.filter((t) => t.includes('idempotency_keys')), []);
    const plain = await statementsSent(() => post(s, QUALIFY, { id, email: 'ben@example.com', amountPaid: '2.00' }));
    assert.deepEqual(plain.filter((t) => t.includes('idempotency_keys')), []);
    const keyed = await statementsSent(() => post(s, QUALIFY, { id, email: 'ben@example.com', amountPaid: '2.00' }, 'second'));
    const extra = keyed.filter((t) => t.includes('idempotency_keys'));
    assert.equal(extra.length, 2, extra.join('\n'));
    assert.match(extra[0]!, /^insert into "idempotency_keys"/);
    assert.match(extra[1]!, /^update "idempotency_keys"/);
    // One transaction (../../src/server/http/change-unit.ts): begin, the claim, the payment, its answer, commit.
    assert.equal(keyed.length, plain.length + 4, keyed.join('\n'));
    assert.equal(keyed[0], 'begin');
    assert.equal(keyed.at(-1), 'commit');
    assert.equal(keyed.at(-2), extra[1]);
    assert.equal(keyed[1], extra[0]);
  });
});
