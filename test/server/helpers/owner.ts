/** A dashboard owner for tests: created in the database, signed in over HTTP, and a client that sends the cookie. */
import assert from 'node:assert/strict';
import { RefkitClient } from '../../../src/api/client.js';
import { createOwner } from '../../../src/server/accounts/domain/owners.js';
import type { TestService } from './service.js';

export const OWNER = { email: 'owner@example.com', password: 'correct horse battery' };

export interface SignedIn {
  cookie: string;
  csrfToken: string;
  /** Sends the session cookie and the CSRF token, as the dashboard does. */
  client: RefkitClient;
  /** Sends the session cookie only: no CSRF token. */
  cookieOnly: RefkitClient;
}

/** A fetch that adds the cookie, as a browser on the service's origin would. */
export const withCookie = (cookie: string): typeof fetch => (input, init) =>
  fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie } });

export async function signIn(s: TestService, who = OWNER): Promise<SignedIn> {
  const res = await fetch(`${s.url}/api/v1/auth/signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  return {
    cookie,
    csrfToken,
    client: new RefkitClient({ baseUrl: s.url, csrfToken, fetch: withCookie(cookie) }),
    cookieOnly: new RefkitClient({ baseUrl: s.url, fetch: withCookie(cookie) }),
  };
}

export async function ownerSignedIn(s: TestService, who = OWNER): Promise<SignedIn> {
  await createOwner(s.ctx, who.email, who.password);
  return signIn(s, who);
}
