/** The admin routes the dashboard adds: campaign list, participant search and detail, review, analytics, CSV. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RefkitClient } from '../../src/api/client.js';
import { browserAt } from './helpers/addresses.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { ownerSignedIn } from './helpers/owner.js';
import { cli } from './helpers/cli.js';
import { startService, type TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const NEW_ROUTES: [string, string, unknown?][] = [
  ['GET', '/api/v1/admin/listCampaigns'],
  ['GET', '/api/v1/admin/searchParticipants?id=x'],
  ['GET', '/api/v1/admin/getParticipantDetail?id=x&email=a@example.com'],
  ['POST', '/api/v1/admin/rejectParticipant', { id: 'x', email: 'a@example.com' }],
  ['GET', '/api/v1/admin/getCampaignAnalytics?id=x'],
  ['GET', '/api/v1/admin/exportParticipants?id=x'],
  ['POST', '/api/v1/admin/importParticipants?id=x', 'email\na@example.com\n'],
];

/** All pages of a search, following nextCursor. */
async function allPages(client: RefkitClient, query: Parameters<RefkitClient['searchParticipants']>[0]): Promise<string[]> {
  const emails: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.searchParticipants({ ...query, ...(cursor && { cursor }) });
    emails.push(...page.participants.map((p) => p.email!));
    cursor = page.nextCursor;
  } while (cursor);
  return emails;
}

/** Ann refers Ben and Cy; Ben refers Dee; plus eight without referrals, each a millisecond apart. */
async function people(s: TestService, id: string): Promise<void> {
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  await s.admin.addParticipant({ id, email: 'cy@example.com', referredByCode: ann.referralCode! });
  await s.admin.addParticipant({ id, email: 'dee@example.com', referredByCode: ben.referralCode! });
  for (let i = 0; i < 8; i++) await s.admin.addParticipant({ id, email: `user${i}@other.example` });
}

eachDatabase('dashboard admin routes', (service) => {
  it('each new route needs a key or a session', async () => {
    const s = service();
    for (const [method, path, body] of NEW_ROUTES) {
      const res = await fetch(s.url + path, {
        method,
        headers: body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/csv' : 'application/json' },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      assert.equal(res.status, 401, `${method} ${path}`);
    }
  });

  it('listCampaigns: the account’s campaigns, newest first, with their participant counts', async () => {
    const s = service();
    const a = await s.campaign({ campaignName: 'A' });
    const b = await s.campaign({ campaignName: 'B' });
    await s.admin.addParticipant({ id: a, email: 'ann@example.com' });
    const list = await s.admin.listCampaigns();
    assert.deepEqual(new Set(list.map((c) => c.campaignId)), new Set([a, b]));
    assert.equal(list.find((c) => c.campaignId === a)!.participants, 1);
    // Another account's campaign is not listed, and not readable.
    await s.ctx.store.db.insertInto('accounts').values({ name: 'other', created_on: Date.now() }).execute();
    await s.ctx.store.insertCampaign({ id: 'cmp_theirs', account_id: 2, name: 'Theirs', host_url: 'https://t.example/', status: 'Active', end_on: null, allowed_origins: null, created_on: 1, updated_on: 1 });
    assert.equal((await s.admin.listCampaigns()).length, 2);
    await rejects(() => s.admin.searchParticipants({ id: 'cmp_theirs' }), 404, 'campaign_not_found');
    await rejects(() => s.admin.getCampaignAnalytics('cmp_theirs'), 404, 'campaign_not_found');
  });

  it('searchParticipants: every order pages through each participant exactly once, in order', async () => {
    const s = service();
    const id = await s.campaign();
    await people(s, id);
    const all = (await s.admin.getAllParticipants(id, { pageSize: 100 })).map((p) => p.email!);
    assert.equal(all.length, 12);
    assert.deepEqual(await allPages(s.admin, { id, pageSize: 5 }), [...all].reverse());
    assert.deepEqual(await allPages(s.admin, { id, pageSize: 5, order: 'asc' }), all);
    assert.deepEqual(await allPages(s.admin, { id, pageSize: 3, sort: 'email', order: 'asc' }), [...all].sort());
    assert.deepEqual(await allPages(s.admin, { id, pageSize: 3, sort: 'email', order: 'desc' }), [...all].sort().reverse());
    const byReferrals = await allPages(s.admin, { id, pageSize: 2, sort: 'totalReferrals' });
    assert.deepEqual(byReferrals.slice(0, 2), ['ann@example.com', 'ben@example.com']);
    assert.equal(new Set(byReferrals).size, 12);
    const first = await s.admin.searchParticipants({ id, pageSize: 100 });
    assert.equal(first.nextCursor, undefined);
    assert.equal(first.participants[0]!.approval, true);
    assert.equal(first.participants[0]!.amountPaid, '0.00');
  });

  it('searchParticipants: q finds by email prefix (any case) or by whole code; wildcards are literal', async () => {
    const s = service();
    const id = await s.campaign();
    await people(s, id);
    const emails = async (q: string) => (await s.admin.searchParticipants({ id, q, sort: 'email', order: 'asc' })).participants.map((p) => p.email);
    assert.deepEqual(await emails('USER1'), ['user1@other.example']);
    assert.deepEqual(await emails('user'), [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `user${i}@other.example`));
    assert.deepEqual(await emails('ben@'), ['ben@example.com']);
    assert.deepEqual(await emails('%'), []);
    assert.deepEqual(await emails('_en'), []);
    assert.deepEqual(await emails('*'), []);
    const ben = await s.admin.getParticipant(id, 'ben@example.com');
    assert.deepEqual(await emails(ben.referralCode!.toLowerCase()), ['ben@example.com']);
  });

  it('searchParticipants: bad cursors, sizes and orders are 400', async () => {
    const s = service();
    const id = await s.campaign();
    await people(s, id);
    const { nextCursor } = await s.admin.searchParticipants({ id, pageSize: 2 });
    await rejects(() => s.admin.searchParticipants({ id, sort: 'email', cursor: nextCursor! }), 400, 'invalid_request');
    await rejects(() => s.admin.searchParticipants({ id, cursor: 'garbage' }), 400, 'invalid_request');
    await rejects(() => s.admin.searchParticipants({ id, pageSize: 101 }), 400, 'invalid_request');
    const res = await fetch(`${s.url}/api/v1/admin/searchParticipants?id=${id}&sort=name`, { headers: { authorization: `Bearer ${s.secretKey}` } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { field: string } }).error.field, 'sort');
  });

  it('review queue: held sign-ups are listed, rejected ones leave it, approved ones too; detail explains the score', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@gmail.com' });
    // Browser sign-ups (keyless) are scored: the referrer's own mailbox under an alias is `high`.
    await s.browser.addParticipant({ id, email: 'a.n.n+1@gmail.com', referredByCode: ann.referralCode! });
    await s.browser.addParticipant({ id, email: 'ann+2@gmail.com', referredByCode: ann.referralCode! });
    // From another network: two referees from one network are not yet a squatting pattern, three would be.
    await browserAt(s.url, '127.0.0.3').addParticipant({ id, email: 'friend@example.com', referredByCode: ann.referralCode! });
    const held = async () => (await s.admin.searchParticipants({ id, filter: 'held', order: 'asc' })).participants.map((p) => p.email);
    assert.deepEqual(await held(), ['a.n.n+1@gmail.com', 'ann+2@gmail.com']);

    const detail = await s.admin.getParticipantDetail(id, 'a.n.n+1@gmail.com');
    assert.equal(detail.participant.fraudScore, 'high');
    assert.equal(detail.participant.approval, false);
    assert.equal(detail.referrer!.email, 'ann@gmail.com');
    assert.equal(detail.signupSource, 'browser');
    assert.ok(detail.signals.includes('Same mailbox as the referrer ann@gmail.com'), detail.signals.join('; '));
    assert.deepEqual((await s.admin.getParticipantDetail(id, 'ann@gmail.com')).signals, ['Added with a secret key by your backend: not scored']);
    // A sentence that ends: how many sign-ups came from the network since an hour before this one.
    const second = (await s.admin.getParticipantDetail(id, 'ann+2@gmail.com')).signals;
    assert.ok(second.some((x) => /^2 sign-ups from the network \S+ since an hour before this one$/.test(x)), second.join('; '));

    const rejected = await s.admin.rejectParticipant(id, 'a.n.n+1@gmail.com');
    assert.equal(rejected.rejected, true);
    assert.deepEqual(await held(), ['ann+2@gmail.com']);
    assert.deepEqual((await s.admin.searchParticipants({ id, filter: 'rejected' })).participants.map((p) => p.email), ['a.n.n+1@gmail.com']);
    await s.admin.approveParticipant(id, 'ann+2@gmail.com');
    assert.deepEqual(await held(), []);
    await rejects(() => s.admin.rejectParticipant(id, 'friend@example.com'), 409, 'not_held');
    await rejects(() => s.admin.rejectParticipant(id, 'nobody@example.com'), 404, 'participant_not_found');
    await rejects(() => s.admin.getParticipantDetail(id, 'nobody@example.com'), 404, 'participant_not_found');
  });

  it('analytics: funnel, sign-ups per day, top referrers, referred revenue and viral coefficient', async () => {
    const s = service();
    const id = await s.campaign();
    await people(s, id);
    const ann = await s.admin.getParticipant(id, 'ann@example.com');
    // Three visitors (an impression counts once per visitor and day).
    for (let i = 0; i < 3; i++) assert.equal(await browserAt(s.url, `127.0.0.${10 + i}`).validateCode(id, ann.referralCode!), true);
    await s.ctx.store.flushImpressions();
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '12.34' });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '0.66' });
    await s.admin.qualifyParticipant({ id, email: 'cy@example.com' });
    const a = await s.admin.getCampaignAnalytics(id);
    assert.deepEqual(a.funnel, { impressions: 3, signups: 12, referredSignups: 3, qualified: 2 });
    assert.equal(a.referredRevenue, '13.00');
    assert.equal(a.viralCoefficient, 0.25);
    assert.deepEqual(a.topReferrers.map((p) => [p.email, p.totalReferrals]), [['ann@example.com', 2], ['ben@example.com', 1]]);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(a.daily.at(-1), { day: today, signups: 12, referredSignups: 3 });
    const empty = await s.admin.getCampaignAnalytics(await s.campaign());
    assert.deepEqual(empty.funnel, { impressions: 0, signups: 0, referredSignups: 0, qualified: 0 });
    assert.equal(empty.viralCoefficient, 0);
    assert.deepEqual(empty.daily, [{ day: today, signups: 0, referredSignups: 0 }]);
    assert.deepEqual([empty.channels, empty.sources], [[], []]);
  });

  it('analytics by channel: sign-ups and qualified referees by the utm_medium and utm_source they came with', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = (await s.admin.addParticipant({ id, email: 'ann@example.com', utm: { source: 'newsletter', medium: 'email', campaign: 'launch' } })).referralCode!;
    const viaShare = (email: string, medium: string) => s.browser.addParticipant({ id, email, referredByCode: ann, utm: { source: 'refkit', medium } });
    await viaShare('ben@example.com', 'whatsapp');
    await viaShare('cy@example.com', 'whatsapp');
    await viaShare('dee@example.com', 'qr');
    // Blank values are no channel; a sign-up without utm_* is not listed.
    await s.admin.addParticipant({ id, email: 'eve@example.com', utm: { source: '  ', medium: ' ' } });
    await s.admin.addParticipant({ id, email: 'fay@example.com' });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
    const a = await s.admin.getCampaignAnalytics(id);
    assert.deepEqual(a.channels, [
      { value: 'whatsapp', signups: 2, qualified: 1 },
      { value: 'email', signups: 1, qualified: 0 },
      { value: 'qr', signups: 1, qualified: 0 },
    ]);
    assert.deepEqual(a.sources, [
      { value: 'refkit', signups: 3, qualified: 1 },
      { value: 'newsletter', signups: 1, qualified: 0 },
    ]);
    // Kept as given, trimmed: the campaign field too.
    const kept = await s.ctx.store.db.selectFrom('participant_channels').selectAll().where('campaign_id', '=', id).orderBy('participant_id').execute();
    assert.deepEqual(kept.map((c) => [c.source, c.medium, c.campaign]), [['newsletter', 'email', 'launch'], ['refkit', 'whatsapp', null], ['refkit', 'whatsapp', null], ['refkit', 'qr', null]]);
    await rejects(() => s.admin.addParticipant({ id, email: 'gus@example.com', utm: { medium: 'x'.repeat(201) } }), 400, 'invalid_request');
    await rejects(() => s.admin.addParticipant({ id, email: 'gus@example.com', utm: { channel: 'x' } as never }), 400, 'invalid_request');
    assert.equal((await s.admin.getCampaignAnalytics(id)).funnel.signups, 6);
  });

  it('CSV: export every participant, import them into another campaign (referrals kept), re-import skips, bad rows are reported', async () => {
    const s = service();
    const id = await s.campaign();
    await people(s, id);
    const res = await fetch(`${s.url}/api/v1/admin/exportParticipants?id=${id}`, { headers: { authorization: `Bearer ${s.secretKey}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/csv/);
    assert.match(res.headers.get('content-disposition')!, new RegExp(`attachment; filename="participants-${id}.csv"`));
    const csv = await res.text();
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, 12);
    const ben = rows.find((r) => r.email === 'ben@example.com')!;
    assert.equal(ben.referredByCode, rows.find((r) => r.email === 'ann@example.com')!.referralCode);

    const copy = await s.campaign({ campaignName: 'Copy' });
    assert.deepEqual(await s.admin.importParticipants(copy, csv), { created: 12, skipped: 0 });
    const copied = await s.admin.getParticipant(copy, 'ann@example.com');
    assert.equal(copied.totalReferrals, 2);
    assert.equal(copied.referralCode, rows.find((r) => r.email === 'ann@example.com')!.referralCode);
    assert.equal((await s.admin.getCampaignAnalytics(copy)).funnel.signups, 12);
    assert.deepEqual(await s.admin.importParticipants(copy, csv), { created: 0, skipped: 12 });

    const bad = 'email,firstName,referredByCode,createdOn\nnot-an-email,X,,\nzed@example.com,Zed,NOSUCHCODE,\nyan@example.com,Yan,,yesterday\nxu@example.com,Xu,,2025-01-02T03:04:05Z\n';
    // All or nothing: three refused rows, so the good one is not imported either.
    const refused = await rejects(() => s.admin.importParticipants(copy, bad), 400, 'invalid_request', 'file');
    assert.deepEqual(refused.rows?.map((e) => [e.line, e.field]), [[2, 'email'], [3, 'referredByCode'], [4, 'createdOn']]);
    assert.match(refused.rows![1]!.message, /NOSUCHCODE/);
    await rejects(() => s.admin.getParticipant(copy, 'xu@example.com'), 404, 'participant_not_found');
    assert.deepEqual(await s.admin.importParticipants(copy, 'email,createdOn\nxu@example.com,2025-01-02T03:04:05Z\n'), { created: 1, skipped: 0 });
    assert.equal((await s.admin.getParticipant(copy, 'xu@example.com')).createdOn, '2025-01-02T03:04:05.000Z');
  });

  it('CSV import: a malformed file or a JSON body is 400; an unknown campaign 404', async () => {
    const s = service();
    const id = await s.campaign();
    await rejects(() => s.admin.importParticipants(id, 'email,name\n"unclosed,x\n'), 400, 'invalid_request');
    const json = await fetch(`${s.url}/api/v1/admin/importParticipants?id=${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json' },
      body: '{"email":"a@example.com"}',
    });
    assert.equal(json.status, 400);
    await rejects(() => s.admin.importParticipants('cmp_nope', 'email\na@example.com\n'), 404, 'campaign_not_found');
  });

  it('the dashboard’s session reaches the new routes; import and reject need its CSRF token', async () => {
    const s = service();
    const id = await s.campaign();
    const owner = await ownerSignedIn(s);
    await rejects(() => owner.cookieOnly.importParticipants(id, 'email\na@example.com\n'), 403, 'csrf_failed');
    assert.equal((await owner.client.importParticipants(id, 'email\na@example.com\n')).created, 1);
    assert.equal((await owner.cookieOnly.searchParticipants({ id })).participants.length, 1);
  });
});

it('refkit participants import streams a file into a campaign with a progress bar', async () => {
  const [sqlite] = await databaseKinds();
  const s = await startService(sqlite!);
  const dir = mkdtempSync(join(tmpdir(), 'refkit-import-'));
  try {
    const id = await s.campaign();
    const lines = ['email,firstName,referredByEmail', 'first@example.com,First,'];
    for (let i = 0; i < 1200; i++) lines.push(`p${i}@example.com,P${i},first@example.com`);
    const file = join(dir, 'people.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    await s.stop();
    const r = await cli(['participants', 'import', '--campaign', id, file, '--json'], { DATABASE_URL: s.database.url });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { created: 1201, skipped: 0 });
    assert.match(r.stderr, /importing \[[^\]]+\] 100% \| 1201 rows/);
    const again = await startService(sqlite!, { database: s.database });
    try {
      assert.equal((await again.admin.getParticipant(id, 'first@example.com')).totalReferrals, 1200);
    } finally {
      await again.stop();
    }
    const missing = await cli(['participants', 'import', '--campaign', 'cmp_nope', file], { DATABASE_URL: s.database.url });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /campaign_not_found/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s.database.drop();
  }
});
