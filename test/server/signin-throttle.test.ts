/**
 * The sign-in throttle under attack, on both databases: parallel bursts get no more password checks than
 * serial calls would, a stranger hammering an owner's email delays only themselves, and the per-email
 * and per-client counts hold back only those they are meant for.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createOwner, resetOwner } from '../../src/server/accounts/domain/owners.js';
import { delayAfter, FREE_TRIES, MAX_FAILURES_PER_EMAIL, MAX_FAILURES_PER_IP, THROTTLE_WINDOW_MS } from '../../src/server/accounts/domain/signin-throttle.js';
import { statuses } from './helpers/bursts.js';
import { databaseKinds } from './helpers/databases.js';
import { OWNER } from './helpers/owner.js';
import { startService, type TestService } from './helpers/service.js';

/**
 * A sign-in as if from `client`, behind the one proxy the services trust (the test, on loopback), from a
 * browser with these cookies (`name=value; ...`) if given.
 */
const signIn = (s: TestService, client: string, body: { email: string; password: string }, cookies?: string) =>
  fetch(`${s.url}/api/v1/auth/signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client, ...(cookies !== undefined && { cookie: cookies }) },
    body: JSON.stringify(body),
  });

/** The trusted-device cookie an answer sets, as `name=value`. */
function deviceCookie(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('refkit_device='));
  assert.ok(set, `a device cookie among ${JSON.stringify(res.headers.getSetCookie())}`);
  return set.split(';')[0]!;
}

const SECOND = { email: 'second@example.com', password: 'another good password' };

for (const kind of await databaseKinds()) {
  const test = (name: string, fn: (s: TestService, clock: { now: number }) => Promise<void>) =>
    it(`[${kind.name}] ${name}`, { skip: kind.skip }, async () => {
      const clock = { now: Date.parse('2026-03-01T10:00:00Z') };
      const s = await startService(kind, { now: () => clock.now, trustProxy: 1 });
      try {
        await createOwner(s.ctx, OWNER.email, OWNER.password);
        await createOwner(s.ctx, SECOND.email, SECOND.password);
        await fn(s, clock);
      } finally {
        await s.close();
      }
    });

  test('300 wrong passwords at once from one client: only the free tries are checked, and another owner signs in meanwhile', async (s) => {
    const burst = Array.from({ length: 300 }, (_, i) => signIn(s, '203.0.113.66', { email: OWNER.email, password: `wrong ${i}` }));
    const other = signIn(s, '198.51.100.7', SECOND);
    assert.deepEqual(await statuses(burst), { 401: FREE_TRIES, 429: 300 - FREE_TRIES });
    assert.equal((await other).status, 200);
  });

  test('a browser the owner signed in from signs in while strangers at the same address hammer their email and others', async (s, clock) => {
    // Every caller is one address, as behind a proxy the service is not told to trust.
    const proxy = '203.0.113.80';
    const first = await signIn(s, proxy, OWNER);
    assert.equal(first.status, 200);
    const device = deviceCookie(first);
    const burst = [
      ...Array.from({ length: 200 }, (_, i) => signIn(s, proxy, { email: OWNER.email, password: `wrong ${i}` })),
      ...Array.from({ length: 100 }, (_, i) => signIn(s, proxy, { email: `guess${i}@example.com`, password: `wrong ${i}` })),
    ];
    const counts = await statuses(burst);
    // As in any serial order of these calls: the address's failures fill exactly to its limit.
    assert.deepEqual(counts, { 401: MAX_FAILURES_PER_IP, 429: burst.length - MAX_FAILURES_PER_IP });
    assert.equal((await signIn(s, proxy, OWNER)).status, 429, 'a browser the owner never used meets the throttle');
    const again = await signIn(s, proxy, OWNER, device);
    assert.equal(again.status, 200, 'the trusted browser is let in');
    // The trusted browser has its own few tries and growing waits: wrong passwords from it count on it alone.
    for (let i = 0; i < FREE_TRIES; i++) assert.equal((await signIn(s, proxy, { ...OWNER, password: `mine ${i}` }, device)).status, 401);
    assert.equal((await signIn(s, proxy, OWNER, device)).status, 429);
    clock.now += delayAfter(FREE_TRIES);
    assert.equal((await signIn(s, proxy, OWNER, device)).status, 200);
    // A forged token, or another owner's, is no trusted device: the throttle of the address applies.
    const [name, value] = device.split('=') as [string, string];
    assert.equal((await signIn(s, proxy, OWNER, `${name}=${value.slice(0, -2)}xx`)).status, 429);
    assert.equal((await signIn(s, proxy, SECOND, device)).status, 429);
    // A new password (here the CLI's reset) ends the trust of every browser.
    await resetOwner(s.ctx, OWNER.email, 'a brand new passphrase');
    assert.equal((await signIn(s, proxy, { ...OWNER, password: 'a brand new passphrase' }, device)).status, 429);
  });

  test('300 wrong passwords at once over many emails from one client: no more checks than its limit', async (s) => {
    const burst = Array.from({ length: 300 }, (_, i) => signIn(s, '203.0.113.66', { email: `guess${i % 50}@example.com`, password: `wrong ${i}` }));
    assert.deepEqual(await statuses(burst), { 401: MAX_FAILURES_PER_IP, 429: 300 - MAX_FAILURES_PER_IP });
  });

  test('a stranger hammering an owner’s email delays only themselves: growing waits, never a lock, and the owner signs in', async (s, clock) => {
    const stranger = '203.0.113.66';
    for (let i = 0; i < FREE_TRIES; i++) assert.equal((await signIn(s, stranger, { ...OWNER, password: `wrong ${i}` })).status, 401);
    // Then each try waits longer than the one before, and a try too early is refused without a check.
    for (let n = FREE_TRIES; n < FREE_TRIES + 4; n++) {
      const early = await signIn(s, stranger, { ...OWNER, password: 'too early' });
      assert.equal(early.status, 429);
      assert.equal(((await early.json()) as { error: { code: string } }).error.code, 'rate_limited');
      assert.equal(early.headers.get('retry-after'), String(delayAfter(n) / 1000));
      clock.now += delayAfter(n);
      assert.equal((await signIn(s, stranger, { ...OWNER, password: `wrong ${n}` })).status, 401);
    }
    assert.equal((await signIn(s, stranger, OWNER)).status, 429, 'even the right password waits its turn');
    // The owner, from where they are, was never held back.
    assert.equal((await signIn(s, '198.51.100.7', OWNER)).status, 200);
    // Once the wait is over the right password signs in, and this client's failures are forgotten.
    clock.now += delayAfter(FREE_TRIES + 4);
    assert.equal((await signIn(s, stranger, OWNER)).status, 200);
    for (let i = 0; i < FREE_TRIES; i++) assert.equal((await signIn(s, stranger, { ...OWNER, password: `again ${i}` })).status, 401);
  });

  test('guessing one email from many clients: past the per-email count, clients that failed wait for the window; a client with no failures signs in', async (s, clock) => {
    const clients = Array.from({ length: MAX_FAILURES_PER_EMAIL }, (_, i) => `203.0.113.${i + 1}`);
    // All at once, one wrong password from each.
    assert.deepEqual(await statuses(clients.map((c) => signIn(s, c, { ...OWNER, password: 'wrong' }))), { 401: MAX_FAILURES_PER_EMAIL });
    const again = await signIn(s, clients[0]!, { ...OWNER, password: 'wrong again' });
    assert.equal(again.status, 429);
    assert.equal(again.headers.get('retry-after'), String(THROTTLE_WINDOW_MS / 1000));
    assert.equal((await signIn(s, clients[0]!, OWNER)).status, 429, 'a client that guessed does not get a check past the count');
    assert.equal((await signIn(s, '198.51.100.7', OWNER)).status, 200, 'the owner, who has not failed');
    clock.now += THROTTLE_WINDOW_MS;
    assert.equal((await signIn(s, clients[0]!, OWNER)).status, 200);
  });

  test('per client: failures over many emails hold back every sign-in from that client for the window; others are unaffected', async (s, clock) => {
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) assert.equal((await signIn(s, '203.0.113.66', { email: `guess${i}@example.com`, password: 'guess' })).status, 401);
    const refused = await signIn(s, '203.0.113.66', SECOND);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), String(THROTTLE_WINDOW_MS / 1000));
    assert.equal((await signIn(s, '198.51.100.7', SECOND)).status, 200);
    clock.now += THROTTLE_WINDOW_MS;
    assert.equal((await signIn(s, '203.0.113.66', SECOND)).status, 200);
  });

  test('right passwords give their attempts back: an owner signing in often is never throttled', async (s) => {
    for (let i = 0; i < MAX_FAILURES_PER_IP + 5; i++) assert.equal((await signIn(s, '198.51.100.7', i % 2 ? OWNER : SECOND)).status, 200);
    // Nothing was kept: this client still has all of its free tries.
    for (let i = 0; i < FREE_TRIES; i++) assert.equal((await signIn(s, '198.51.100.7', { ...OWNER, password: `wrong ${i}` })).status, 401);
  });
}
