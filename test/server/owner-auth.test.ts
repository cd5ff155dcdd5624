/** Dashboard sign-in: passwords, sessions in the database, the cookie, CSRF, sign-out. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createHash } from 'node:crypto';
import { RefkitClient } from '../../src/api/client.js';
import { SESSION_TTL_MS } from '../../src/server/accounts/domain/sessions.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { PASSWORD_COST } from '../../src/server/accounts/domain/passwords.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { OWNER, ownerSignedIn, signIn, withCookie } from './helpers/owner.js';
import { startService, type TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';
import { cli } from './helpers/cli.js';

const signInRaw = (s: TestService, body: unknown) =>
  fetch(`${s.url}/api/v1/auth/signIn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const count = async (s: TestService, table: 'campaigns' | 'sessions') =>
  Number((await s.ctx.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

eachDatabase('owner sign-in', (service) => {
  it('signs in with a cookie that is httpOnly, SameSite=Strict, and stored only as a hash; the password only as scrypt', async () => {
    const s = service();
    // With the service's own scrypt cost (the tests' services use a cheaper one), which is what is checked below.
    await createOwner({ ...s.ctx, passwordCost: PASSWORD_COST }, 'Owner@Example.com ', OWNER.password);
    const res = await signInRaw(s, { email: 'OWNER@example.com', password: OWNER.password });
    assert.equal(res.status, 200);
    const setCookie = res.headers.get('set-cookie')!;
    assert.match(setCookie, /^refkit_session=[A-Za-z0-9_-]{43};/);
    assert.match(setCookie, /; HttpOnly/);
    assert.match(setCookie, /; SameSite=Strict/);
    assert.match(setCookie, /; Path=\//);
    const body = (await res.json()) as { email: string; csrfToken: string; expiresOn: string };
    assert.equal(body.email, 'owner@example.com');
    assert.ok(body.csrfToken.length >= 32);
    const token = /^refkit_session=([^;]+)/.exec(setCookie)![1]!;
    const sessions = await s.ctx.store.db.selectFrom('sessions').selectAll().execute();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.id, createHash('sha256').update(token).digest('hex'));
    assert.ok(!JSON.stringify(sessions).includes(token));
    const user = await s.ctx.store.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    assert.match(user.password_hash, /^scrypt\$32768\$8\$3\$/);
    assert.ok(!user.password_hash.includes(OWNER.password));

    const session = await new RefkitClient({ baseUrl: s.url, fetch: withCookie(`refkit_session=${token}`) }).getSession();
    assert.deepEqual(session, body);
  });

  it('the session cookie is a credential for the admin routes, acting for the default account as a key does', async () => {
    const s = service();
    const owner = await ownerSignedIn(s);
    const created = await owner.client.createCampaign({ campaignName: 'From the dashboard', hostURL: 'https://shop.example/' });
    assert.equal((await s.admin.getCampaign(created.campaignId!)).campaignName, 'From the dashboard');
    const id = await s.campaign({ campaignName: 'From a key' });
    assert.deepEqual((await owner.client.listCampaigns()).map((c) => c.campaignId).sort(), [created.campaignId, id].sort());
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    assert.equal((await owner.client.getAllParticipants(id)).length, 1);
    const key = await owner.client.createApiKey('made in the dashboard');
    assert.equal((await new RefkitClient({ baseUrl: s.url, secretKey: key.key }).listCampaigns()).length, 2);
  });

  it('every change made with the cookie needs the session’s CSRF token; reads do not; nothing changes without it', async () => {
    const s = service();
    const owner = await ownerSignedIn(s);
    const other = await signIn(s);
    await rejects(() => owner.cookieOnly.createCampaign({ campaignName: 'x', hostURL: 'https://x.example/' }), 403, 'csrf_failed');
    const wrong = new RefkitClient({ baseUrl: s.url, csrfToken: other.csrfToken, fetch: withCookie(owner.cookie) });
    await rejects(() => wrong.createCampaign({ campaignName: 'x', hostURL: 'https://x.example/' }), 403, 'csrf_failed');
    await rejects(() => owner.cookieOnly.createApiKey('x'), 403, 'csrf_failed');
    await rejects(() => owner.cookieOnly.signOut(), 403, 'csrf_failed');
    assert.equal(await count(s, 'campaigns'), 0);
    assert.deepEqual(await owner.cookieOnly.listCampaigns(), []);
    assert.equal((await owner.client.createCampaign({ campaignName: 'ok', hostURL: 'https://x.example/' })).campaignName, 'ok');
  });

  it('wrong passwords and unknown emails get the same 401; bad bodies a 400', async () => {
    const s = service();
    await createOwner(s.ctx, OWNER.email, OWNER.password);
    for (const body of [
      { email: OWNER.email, password: 'not the password' },
      { email: 'nobody@example.com', password: OWNER.password },
    ]) {
      const res = await signInRaw(s, body);
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: { code: 'invalid_credentials', message: 'The email or the password is wrong' } });
      assert.equal(res.headers.get('set-cookie'), null);
    }
    for (const body of [{ email: OWNER.email }, { email: OWNER.email, password: '' }, { email: OWNER.email, password: 'x', extra: 1 }]) {
      const res = await signInRaw(s, body);
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_request');
    }
    assert.equal(await count(s, 'sessions'), 0);
  });

  it("sign-in sets the session cookie (HttpOnly) and a readable companion that says only that a session may be open", async () => {
    const s = service();
    await createOwner(s.ctx, OWNER.email, OWNER.password);
    const res = await signInRaw(s, { email: OWNER.email, password: OWNER.password });
    assert.equal(res.status, 200);
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('refkit_session='))!;
    const companion = cookies.find((c) => c.startsWith('refkit_signed_in='))!;
    assert.match(session, /HttpOnly/);
    assert.match(companion, /^refkit_signed_in=1; Max-Age=\d+; Path=\/; SameSite=Strict$/);
    assert.doesNotMatch(companion, /HttpOnly/);
  });

  it('sign-out ends the session on the server and clears the cookie', async () => {
    const s = service();
    const owner = await ownerSignedIn(s);
    const res = await fetch(`${s.url}/api/v1/auth/signOut`, { method: 'POST', headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrfToken } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('set-cookie')!, /^refkit_session=;.*Expires=Thu, 01 Jan 1970/);
    // Its readable companion, which tells the dashboard's script a session may be open, goes with it.
    assert.ok(res.headers.getSetCookie().some((c) => /^refkit_signed_in=;.*Expires=Thu, 01 Jan 1970/.test(c)), res.headers.getSetCookie().join(' | '));
    // The old cookie, replayed, is worth nothing.
    await rejects(() => owner.client.listCampaigns(), 401, 'unauthorized');
    await rejects(() => owner.client.getSession(), 401, 'unauthorized');
    await rejects(() => owner.client.signOut(), 401, 'unauthorized');
    assert.ok((await s.ctx.store.db.selectFrom('sessions').select('revoked_on').executeTakeFirstOrThrow()).revoked_on);
  });

  it('a cookie that names no session, and no cookie, are 401 on the admin routes; a cookie is ignored on the public ones', async () => {
    const s = service();
    await rejects(() => new RefkitClient({ baseUrl: s.url, fetch: withCookie('refkit_session=forged') }).listCampaigns(), 401, 'unauthorized');
    await rejects(() => s.browser.listCampaigns(), 401, 'unauthorized');
    await rejects(() => s.browser.getSession(), 401, 'unauthorized');
    const owner = await ownerSignedIn(s);
    const id = await s.campaign();
    // A signed-in owner's browser visiting a landing page is still a browser sign-up (scored), not an API one.
    await owner.client.addParticipant({ id, email: 'visitor@example.com' });
    assert.equal((await s.admin.getParticipant(id, 'visitor@example.com')).fraudScore, 'low');
  });

  it('a secret key still works, and wins over a cookie sent with it', async () => {
    const s = service();
    const owner = await ownerSignedIn(s);
    const both = new RefkitClient({ baseUrl: s.url, secretKey: s.secretKey, fetch: withCookie(owner.cookie) });
    // No CSRF token needed: the key, not the cookie, is the credential.
    assert.equal((await both.createCampaign({ campaignName: 'k', hostURL: 'https://k.example/' })).campaignName, 'k');
    const wrongKey = new RefkitClient({ baseUrl: s.url, secretKey: 'sk_wrong', csrfToken: owner.csrfToken, fetch: withCookie(owner.cookie) });
    await rejects(() => wrongKey.listCampaigns(), 401, 'unauthorized');
  });
});

// Each of these gets its own service with a clock the test moves.
for (const kind of await databaseKinds()) {
  it(`[${kind.name}] sessions expire (the sign-in throttle: signin-throttle.test.ts)`, { skip: kind.skip }, async () => {
    let now = Date.parse('2026-03-01T10:00:00Z');
    const s = await startService(kind, { now: () => now });
    try {
      const owner = await ownerSignedIn(s);
      now += SESSION_TTL_MS - 1000;
      assert.equal((await owner.client.getSession()).email, OWNER.email);
      now += 2000;
      await rejects(() => owner.client.listCampaigns(), 401, 'unauthorized');
    } finally {
      await s.close();
    }
  });
}

it('refkit user create makes an owner who can sign in; duplicates and short passwords are refused', async () => {
  const [sqlite] = await databaseKinds();
  const db = await sqlite!.create();
  const env = { DATABASE_URL: db.url };
  try {
    const made = await cli(['user', 'create', '--email', 'Boss@Example.com', '--password-stdin', '--json'], env, `${OWNER.password}\n`);
    assert.equal(made.code, 0, made.stderr);
    assert.equal((JSON.parse(made.stdout) as { email: string }).email, 'boss@example.com');
    const again = await cli(['user', 'create', '--email', 'boss@example.com', '--password-stdin'], env, OWNER.password);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /owner_exists/);
    const short = await cli(['user', 'create', '--email', 'b@example.com', '--password-stdin'], env, 'short\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 10 characters \(invalid_request, password\)/);
    const s = await startService(sqlite!, { database: db });
    try {
      assert.equal((await signIn(s, { email: 'boss@example.com', password: OWNER.password })).client instanceof RefkitClient, true);
    } finally {
      await s.stop();
    }
  } finally {
    await db.drop();
  }
});
