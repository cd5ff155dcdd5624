import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { eachDatabaseShared } from './helpers/suite.js';

eachDatabaseShared('paging', (service) => {
  let id = '';
  let empty = '';
  const TOTAL = 45;

  it('setup: 45 participants, the first 12 referred by p0', async () => {
    const s = service();
    id = await s.campaign();
    empty = await s.campaign();
    const p0 = await s.admin.addParticipant({ id, email: 'p0@example.com' });
    for (let i = 1; i < TOTAL; i++) {
      await s.admin.addParticipant({ id, email: `p${i}@example.com`, ...(i <= 12 ? { referredByCode: p0.referralCode! } : {}) });
    }
    assert.equal((await s.browser.getCampaign(id)).participants, TOTAL);
  });

  it('an empty campaign is an empty array with no Link', async () => {
    const res = await fetch(`${service().url}/api/v1/getAllParticipants?id=${empty}`, { headers: { authorization: `Bearer ${service().secretKey}` } });
    assert.deepEqual(await res.json(), []);
    assert.equal(res.headers.get('link'), null);
  });

  it('20 by default, in join order; pages follow; the last is short and has no Link', async () => {
    const s = service();
    const first = await s.admin.getAllParticipantsPage(id);
    assert.equal(first.items.length, 20);
    assert.deepEqual(first.items.map((p) => p.email), Array.from({ length: 20 }, (_, i) => `p${i}@example.com`));
    assert.ok(first.nextCursor);
    const page3 = await s.admin.getAllParticipantsPage(id, { page: 3 });
    assert.equal(page3.items.length, 5);
    assert.equal(page3.items[4]!.email, 'p44@example.com');
    assert.equal(page3.nextCursor, undefined);
    assert.deepEqual(await s.admin.getAllParticipants(id, { page: 4 }), []);
  });

  it('cursors walk every row exactly once in order; pageSize goes up to 100', async () => {
    const s = service();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.admin.getAllParticipantsPage(id, { pageSize: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((p) => p.email!));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, Array.from({ length: TOTAL }, (_, i) => `p${i}@example.com`));
    assert.equal((await s.admin.getAllParticipants(id, { pageSize: 100 })).length, TOTAL);
  });

  it('the Link header is an absolute URL with the cursor', async () => {
    const s = service();
    const res = await fetch(`${s.url}/api/v1/getAllParticipants?id=${id}&pageSize=10`, { headers: { authorization: `Bearer ${s.secretKey}` } });
    const link = res.headers.get('link')!;
    const m = /^<([^>]+)>; rel="next"$/.exec(link);
    assert.ok(m, link);
    const next = new URL(m[1]!);
    assert.equal(next.searchParams.get('pageSize'), '10');
    assert.ok(next.searchParams.get('cursor'));
    const res2 = await fetch(next, { headers: { authorization: `Bearer ${s.secretKey}` } });
    assert.equal(((await res2.json()) as { email: string }[])[0]!.email, 'p10@example.com');
  });

  it('bad paging values are 400 with the field named', async () => {
    const s = service();
    for (const [paging, field] of [
      [{ pageSize: 101 }, 'pageSize'],
      [{ pageSize: 0 }, 'pageSize'],
      [{ page: 0 }, 'page'],
      [{ cursor: 'garbage' }, 'cursor'],
      [{ page: 2, cursor: 'WzEsMV0' }, 'cursor'],
    ] as const) {
      const err = await rejects(() => s.admin.getAllParticipants(id, paging), 400, 'invalid_request');
      assert.equal(err.field, field);
    }
    // Offsets are read row by row: past the first 10,000 rows `page` is refused, and the answer points to cursor.
    assert.deepEqual(await s.admin.getAllParticipants(id, { page: 501 }), []);
    const deep = await rejects(() => s.admin.getAllParticipants(id, { page: 502 }), 400, 'invalid_request');
    assert.equal(deep.field, 'page');
    assert.match(deep.message, /cursor/);
    await rejects(() => s.admin.getReferrals(id, 'p0@example.com', { page: 102, pageSize: 100 }), 400, 'invalid_request');
    const res = await fetch(`${s.url}/api/v1/getAllParticipants?id=${id}&page=abc`, { headers: { authorization: `Bearer ${s.secretKey}` } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { field: string } }).error.field, 'page');
  });

  it('getReferrals lists only the referrals of one participant, paged the same way', async () => {
    const s = service();
    const page1 = await s.admin.getReferralsPage(id, 'p0@example.com', { pageSize: 10 });
    assert.equal(page1.items.length, 10);
    const page2 = await s.admin.getReferralsPage(id, 'p0@example.com', { pageSize: 10, cursor: page1.nextCursor! });
    assert.deepEqual(page2.items.map((p) => p.email), ['p11@example.com', 'p12@example.com']);
    assert.equal(page2.nextCursor, undefined);
    assert.ok(page1.items.every((p) => p.referredByCode));
    assert.deepEqual(await s.admin.getReferrals(id, 'p13@example.com'), []);
    await rejects(() => s.admin.getReferrals(id, 'ghost@example.com'), 404, 'participant_not_found');
  });
});
