/**
 * The shapes a black-box probe turned into 500s (or stored as sent), each answered 400 naming its field,
 * with nothing changed, on both databases. The property tests in helpers/fuzz.ts search around these.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { it } from 'node:test';
import { MAX_RECORD_BYTES } from '../../src/server/referrals/domain/participant-csv.js';
import { LINE_RULE } from '../../src/server/kernel/text-rules.js';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import { eachDatabaseShared } from './helpers/suite.js';

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; link?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, ...(typeof res.headers.link === 'string' && { link: res.headers.link }) }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Case {
  what: string;
  method?: 'GET' | 'POST';
  /** Path and (already encoded) query. */
  path: string;
  body?: Record<string, unknown>;
  key?: boolean;
  field: string;
}

eachDatabaseShared('hostile input', (service, kind) => {
  it('NUL, control and bidi characters, infinite numbers, broken URLs and leap seconds: 400 naming the field, nothing changed', async () => {
    const s = service();
    const id = await s.campaign({ hostURL: 'https://shop.example/join', end: '2099-01-01T00:00:00Z' });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const cases: Case[] = [
      { what: 'NUL in a keyless query', path: `/api/v1/getCampaign?id=${id}%00`, field: 'id' },
      { what: 'NUL in a code', path: `/api/v1/validateCode?campaignId=${id}&code=${ann.referralCode}%00`, field: 'code' },
      { what: 'NUL in an email', method: 'POST', path: '/api/v1/addParticipant', body: { id, email: 'bob@example.com\u0000' }, field: 'email' },
      { what: 'NUL in a name', method: 'POST', path: '/api/v1/addParticipant', body: { id, email: 'bob@example.com', firstName: 'Bo\u0000b' }, field: 'firstName' },
      { what: 'NUL in a referral code', method: 'POST', path: '/api/v1/addParticipant', body: { id, email: 'bob@example.com', referredByCode: '\u0000' }, field: 'referredByCode' },
      { what: 'bidi override in an email', method: 'POST', path: '/api/v1/addParticipant', body: { id, email: 'moc.elpmaxe@\u202ebob' }, field: 'email' },
      { what: 'escape sequence in a name', method: 'POST', path: '/api/v1/addParticipant', body: { id, email: 'bob@example.com', lastName: '\u001b[2J' }, field: 'lastName' },
      { what: 'NUL in a keyed query', path: `/api/v1/getParticipant?id=${id}&email=ann%40example.com%00`, key: true, field: 'email' },
      { what: 'page=Infinity', path: `/api/v1/getAllParticipants?id=${id}&page=Infinity`, key: true, field: 'page' },
      { what: 'pageSize=1e400', path: `/api/v1/getAllParticipants?id=${id}&pageSize=1e400`, key: true, field: 'pageSize' },
      { what: 'page=-Infinity', path: `/api/v1/getReferrals?id=${id}&email=ann%40example.com&page=-Infinity`, key: true, field: 'page' },
      { what: 'limit=Infinity', path: '/api/v1/admin/listWebhookDeliveries?limit=Infinity', key: true, field: 'limit' },
      { what: 'searchParticipants pageSize=Infinity', path: `/api/v1/admin/searchParticipants?id=${id}&pageSize=Infinity`, key: true, field: 'pageSize' },
      { what: 'searchParticipants pageSize=1e400', path: `/api/v1/admin/searchParticipants?id=${id}&pageSize=1e400`, key: true, field: 'pageSize' },
      { what: 'hostURL with a space', method: 'POST', path: '/api/v1/admin/createCampaign', body: { campaignName: 'X', hostURL: 'https://a b.example/' }, key: true, field: 'hostURL' },
      { what: 'hostURL with %zz in the host', method: 'POST', path: '/api/v1/admin/createCampaign', body: { campaignName: 'X', hostURL: 'https://exa%zzmple.com/' }, key: true, field: 'hostURL' },
      { what: 'hostURL with port 99999', method: 'POST', path: '/api/v1/admin/updateCampaign', body: { id, hostURL: 'https://shop.example:99999/' }, key: true, field: 'hostURL' },
      { what: 'hostURL with %09 in the host', method: 'POST', path: '/api/v1/admin/updateCampaign', body: { id, hostURL: 'http://a%09b.example/' }, key: true, field: 'hostURL' },
      { what: 'allowedOrigins with a port out of range', method: 'POST', path: '/api/v1/admin/updateCampaign', body: { id, allowedOrigins: ['https://shop.example:99999'] }, key: true, field: 'allowedOrigins.0' },
      { what: 'allowedOrigins with a space', method: 'POST', path: '/api/v1/admin/updateCampaign', body: { id, allowedOrigins: ['https://a b.example'] }, key: true, field: 'allowedOrigins.0' },
      { what: 'webhook URL with %zz in the host', method: 'POST', path: '/api/v1/admin/createWebhookEndpoint', body: { url: 'https://exa%zzmple.com/', eventTypes: ['referrer_added'] }, key: true, field: 'url' },
      { what: 'webhook URL with port 99999', method: 'POST', path: '/api/v1/admin/createWebhookEndpoint', body: { url: 'http://hooks.example:99999/', eventTypes: ['referrer_added'] }, key: true, field: 'url' },
      { what: 'a leap second as end', method: 'POST', path: '/api/v1/admin/updateCampaign', body: { id, end: '2016-12-31T23:59:60Z' }, key: true, field: 'end' },
      { what: 'an impossible date as end', method: 'POST', path: '/api/v1/admin/updateCampaign', body: { id, end: '2030-02-30T00:00:00Z' }, key: true, field: 'end' },
      { what: 'a control character in a campaign text', method: 'POST', path: '/api/v1/admin/updateCampaign', body: { id, shareHeader: 'Share\u0007' }, key: true, field: 'shareHeader' },
    ];
    const before = await dumpDatabase(s.ctx.store.db, kind.dialect);
    for (const c of cases) {
      const res = await fetch(`${s.url}${c.path}`, {
        method: c.method ?? 'GET',
        headers: { ...(c.body && { 'content-type': 'application/json' }), ...(c.key && { authorization: `Bearer ${s.secretKey}` }) },
        ...(c.body && { body: JSON.stringify(c.body) }),
      });
      const body = (await res.json()) as { error: { code: string; field?: string; message: string } };
      assert.equal(res.status, 400, `${c.what}: ${JSON.stringify(body)}`);
      assert.deepEqual([body.error.code, body.error.field], ['invalid_request', c.field], c.what);
    }
    assert.equal(await dumpDatabase(s.ctx.store.db, kind.dialect), before, 'nothing changed');
    assert.equal((await s.admin.getCampaign(id)).end, '2099-01-01T00:00:00.000Z', 'the end date is kept');
  });

  it('a Host header that is no host[:port] is 400, also where an absolute URL is built from it (the paging Link)', async () => {
    const s = service();
    const id = await s.campaign();
    for (let i = 0; i < 2; i++) await s.admin.addParticipant({ id, email: `h${i}@example.com` });
    const url = `${s.url}/api/v1/getAllParticipants?id=${id}&pageSize=1`;
    const auth = { authorization: `Bearer ${s.secretKey}` };
    for (const host of ['bad host', '[::1', 'shop.example:99999', 'ex%zz.com', 'x@y', 'évil.com']) {
      const res = await getWithHost(url, host, auth);
      assert.equal(res.status, 400, `${host}: ${res.body}`);
      assert.equal((JSON.parse(res.body) as { error: { field: string } }).error.field, 'host');
    }
    const ok = await getWithHost(url, 'refkit.example:8443', auth);
    assert.equal(ok.status, 200);
    assert.match(ok.link!, /^<http:\/\/refkit\.example:8443\/api\/v1\/getAllParticipants\?/);
  });

  it('tabs and line breaks are allowed in descriptions, not in one-line fields; unicode text is kept as sent', async () => {
    const s = service();
    const id = await s.campaign();
    const c = await s.admin.updateCampaign({ id, shareDescription: 'Line one\nLine two\tend', shareHeader: 'Partagez 😀 — مرحبا' });
    assert.equal(c.shareDescription, 'Line one\nLine two\tend');
    assert.equal(c.shareHeader, 'Partagez 😀 — مرحبا');
    const p = await s.browser.addParticipant({ id, email: 'zoë@example.com', firstName: 'Zoë', lastName: 'İnce' });
    assert.equal(p.email, 'zoë@example.com');
    const res = await fetch(`${s.url}/api/v1/admin/updateCampaign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.secretKey}` },
      body: JSON.stringify({ id, campaignName: 'Two\nlines' }),
    });
    assert.equal(res.status, 400);
    const { error } = (await res.json()) as { error: { field: string; message: string } };
    assert.equal(error.field, 'campaignName');
    assert.match(error.message, /one line of text/);
  });

  it('CSV import: a NUL, control or bidi character in a row refuses that row (reported with line and field), and so the whole file', async () => {
    const s = service();
    const id = await s.campaign();
    const file = ['email,firstName,lastName', 'nul@example.com\u0000,A,B', 'ok@example.com,Ann,Lee', 'bell@example.com,Be\u0007n,X', 'rlo@example.com,Zed,\u202eeviL', 'ctl@example.com,"Two\u0085lines",Y'].join('\n');
    const refused = await rejects(() => s.admin.importParticipants(id, file), 400, 'invalid_request', 'file');
    assert.deepEqual(refused.rows?.map((e) => [e.line, e.field, e.message]), [
      [2, 'email', `email ${LINE_RULE}`],
      [4, 'firstName', `firstName ${LINE_RULE}`],
      [5, 'lastName', `lastName ${LINE_RULE}`],
      [6, 'firstName', `firstName ${LINE_RULE}`],
    ]);
    assert.deepEqual((await s.admin.searchParticipants({ id })).participants, []);
  });

  it('CSV import: a record past the size limit (a field without end) is 413 naming the file, and nothing is imported', async () => {
    const s = service();
    const id = await s.campaign();
    for (const file of [`email,firstName\nlong@example.com,${'x'.repeat(MAX_RECORD_BYTES + 1)}\n`, `email,firstName\nopen@example.com,"${'y'.repeat(MAX_RECORD_BYTES * 2)}`]) {
      const before = await dumpDatabase(s.ctx.store.db, kind.dialect);
      const res = await fetch(`${s.url}/api/v1/admin/importParticipants?id=${id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'text/csv' },
        body: file,
      });
      const body = (await res.json()) as { error: { code: string; field?: string; message: string } };
      assert.equal(res.status, 413, JSON.stringify(body));
      assert.deepEqual([body.error.code, body.error.field], ['payload_too_large', 'file']);
      assert.match(body.error.message, /^Record 2 of the file is longer than/);
      assert.equal(await dumpDatabase(s.ctx.store.db, kind.dialect), before);
    }
  });

  it('CSV import: a Content-Length past the import limit is 413 before anything is read', async () => {
    const s = service();
    const id = await s.campaign();
    const { hostname, port, host } = new URL(s.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      // A guard, not a measure: a service that waits for the body fails here instead of hanging the file.
      socket.setTimeout(5000, () => socket.end());
      let data = '';
      socket.on('data', (c: Buffer) => (data += c.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
      socket.write(
        `POST /api/v1/admin/importParticipants?id=${id} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${s.secretKey}\r\n` +
          `Content-Type: text/csv\r\nConnection: close\r\nContent-Length: ${2 ** 40}\r\n\r\nemail\n`,
      );
    });
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /"code":"payload_too_large"/);
  });
});
