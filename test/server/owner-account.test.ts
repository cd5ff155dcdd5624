/**
 * An owner's own account: changing the password, signing out everywhere (API and CLI), the CLI reset of
 * a locked-out owner, and the session cookie behind TLS (Secure, __Host-).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { FREE_TRIES } from '../../src/server/accounts/domain/signin-throttle.js';
import { rejects } from './helpers/assert.js';
import { cli } from './helpers/cli.js';
import { OWNER, ownerSignedIn, signIn, withCookie } from './helpers/owner.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const NEW_PASSWORD = 'a brand new passphrase';
const OTHER = { email: 'other@example.com', password: 'another long password' };

const signInStatus = async (s: TestService, who: { email: string; password: string }) =>
  (await fetch(`${s.url}/api/v1/auth/signIn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(who) })).status;

eachDatabase('owner account', (service) => {
  it('changing the password needs the current one; other sessions end, this one goes on; bad input changes nothing', async () => {
    const s = service();
    const owner = await ownerSignedIn(s);
    const elsewhere = await signIn(s);
    await createOwner(s.ctx, OTHER.email, OTHER.password);
    const other = await signIn(s, OTHER);

    await rejects(() => owner.client.changePassword('not the password', NEW_PASSWORD), 403, 'wrong_password', 'currentPassword');
    await rejects(() => owner.client.changePassword(OWNER.password, 'short'), 400, 'invalid_request', 'newPassword');
    await rejects(() => owner.cookieOnly.changePassword(OWNER.password, NEW_PASSWORD), 403, 'csrf_failed');
    // A secret key is no owner: there is no password to change.
    await rejects(() => s.admin.changePassword(OWNER.password, NEW_PASSWORD), 401, 'unauthorized');
    assert.equal(await signInStatus(s, OWNER), 200, 'the old password still works after every refusal');
    assert.equal((await elsewhere.client.getSession()).email, OWNER.email);

    assert.deepEqual(await owner.client.changePassword(OWNER.password, NEW_PASSWORD), { ok: true, sessionsEnded: 2 });
    assert.equal((await owner.client.getSession()).email, OWNER.email, 'the session that changed it goes on');
    await rejects(() => elsewhere.client.listCampaigns(), 401, 'unauthorized');
    assert.equal((await other.client.getSession()).email, OTHER.email, "another owner's sessions are not touched");
    assert.equal(await signInStatus(s, OWNER), 401);
    assert.equal(await signInStatus(s, { email: OWNER.email, password: NEW_PASSWORD }), 200);
  });

  it('wrong current passwords count as failed sign-ins: a borrowed session cannot guess the password', async () => {
    const s = service();
    const owner = await ownerSignedIn(s);
    for (let i = 0; i < FREE_TRIES; i++) {
      await rejects(() => owner.client.changePassword(`guess ${i}`, NEW_PASSWORD), 403, 'wrong_password');
    }
    await rejects(() => owner.client.changePassword(OWNER.password, NEW_PASSWORD), 429, 'rate_limited');
    assert.equal(await signInStatus(s, { email: OWNER.email, password: NEW_PASSWORD }), 429);
  });

  it("signing out everywhere ends every session of the owner, this one included, and no one else's", async () => {
    const s = service();
    const owner = await ownerSignedIn(s);
    const elsewhere = await signIn(s);
    await createOwner(s.ctx, OTHER.email, OTHER.password);
    const other = await signIn(s, OTHER);
    await rejects(() => owner.cookieOnly.signOutEverywhere(), 403, 'csrf_failed');
    await rejects(() => s.browser.signOutEverywhere(), 401, 'unauthorized');

    const res = await fetch(`${s.url}/api/v1/auth/signOutEverywhere`, { method: 'POST', headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrfToken } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, sessionsEnded: 2 });
    assert.match(res.headers.get('set-cookie')!, /^refkit_session=;.*Expires=Thu, 01 Jan 1970/);
    await rejects(() => owner.client.getSession(), 401, 'unauthorized');
    await rejects(() => elsewhere.client.listCampaigns(), 401, 'unauthorized');
    assert.equal((await other.client.getSession()).email, OTHER.email);
    assert.equal(await signInStatus(s, OWNER), 200, 'the password still works');
  });

  it('refkit user reset-password: a new password, the throttle of the email cleared, every session ended', async () => {
    const s = service();
    const env = { DATABASE_URL: s.database.url };
    const owner = await ownerSignedIn(s);
    await createOwner(s.ctx, OTHER.email, OTHER.password);
    const other = await signIn(s, OTHER);
    for (let i = 0; i < FREE_TRIES; i++) assert.equal(await signInStatus(s, { email: OWNER.email, password: `wrong ${i}` }), 401);
    assert.equal(await signInStatus(s, OWNER), 429, 'held back: this client must wait before its next try');

    const short = await cli(['user', 'reset-password', '--email', OWNER.email, '--password', 'short'], env);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 10 characters \(invalid_request, password\)/);
    const unknown = await cli(['user', 'reset-password', '--email', 'nobody@example.com', '--password', NEW_PASSWORD], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /owner_not_found/);
    assert.equal((await owner.client.getSession()).email, OWNER.email, 'refused resets change nothing');

    const reset = await cli(['user', 'reset-password', '--email', 'Owner@Example.com', '--password-stdin', '--json'], env, `${NEW_PASSWORD}\n`);
    assert.equal(reset.code, 0, reset.stderr);
    assert.deepEqual(JSON.parse(reset.stdout), { email: OWNER.email, sessionsEnded: 1 });
    await rejects(() => owner.client.getSession(), 401, 'unauthorized');
    assert.equal((await other.client.getSession()).email, OTHER.email);
    assert.equal(await signInStatus(s, OWNER), 401, 'the old password is gone');
    assert.equal(await signInStatus(s, { email: OWNER.email, password: NEW_PASSWORD }), 200, 'and the throttle with it');
  });

  it('refkit user sign-out ends every session of one owner', async () => {
    const s = service();
    const env = { DATABASE_URL: s.database.url };
    const owner = await ownerSignedIn(s);
    const elsewhere = await signIn(s);
    await createOwner(s.ctx, OTHER.email, OTHER.password);
    const other = await signIn(s, OTHER);
    const unknown = await cli(['user', 'sign-out', '--email', 'nobody@example.com'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /owner_not_found/);

    const out = await cli(['user', 'sign-out', '--email', OWNER.email], env);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, `email: ${OWNER.email}\nsessionsEnded: 2\n`);
    await rejects(() => owner.client.getSession(), 401, 'unauthorized');
    await rejects(() => elsewhere.client.getSession(), 401, 'unauthorized');
    assert.equal((await other.client.getSession()).email, OTHER.email);
    assert.equal(await signInStatus(s, OWNER), 200);
  });
});

eachDatabase(
  'owner session cookie behind TLS',
  (service) => {
    it('with an https PUBLIC_URL the cookie is Secure and __Host- named, without TRUST_PROXY; only that name is read', async () => {
      const s = service();
      const owner = await ownerSignedIn(s);
      assert.match(owner.cookie, /^__Host-refkit_session=[A-Za-z0-9_-]{43}$/);
      const res = await fetch(`${s.url}/api/v1/auth/signIn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) });
      const setCookie = res.headers.get('set-cookie')!;
      // What browsers require of a __Host- cookie: Secure, Path=/, no Domain.
      assert.match(setCookie, /; Secure/);
      assert.match(setCookie, /; Path=\/(;|$)/);
      assert.doesNotMatch(setCookie, /Domain=/i);
      assert.equal((await owner.client.getSession()).email, OWNER.email);
      // The same token under the plain name (as a plain-http page or a sibling subdomain could set it) is no session.
      const token = owner.cookie.split('=')[1]!;
      await rejects(() => new RefkitClient({ baseUrl: s.url, fetch: withCookie(`refkit_session=${token}`) }).getSession(), 401, 'unauthorized');

      const out = await fetch(`${s.url}/api/v1/auth/signOut`, { method: 'POST', headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrfToken } });
      assert.match(out.headers.get('set-cookie')!, /^__Host-refkit_session=;.*; Secure/);
    });
  },
  { publicUrl: 'https://refkit.example' },
);
