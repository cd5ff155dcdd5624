/**
 * Unknown fields (src/server/http/unknown-fields.ts), on both databases: every owner's body refuses a field
 * it does not know, at any depth, naming it and changing nothing; the referral interface ignores unknown
 * fields except likely misspellings and names that mean another field; webhook receivers take any shape.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { dumpTables } from './helpers/dump.js';
import { callRoute, listOperations, validFields } from './helpers/operations.js';
import { eachDatabase } from './helpers/suite.js';

eachDatabase('unknown fields', (service) => {
  it('every admin body refuses a field it does not know (400 naming it), and nothing changes', async () => {
    const s = service();
    const id = await s.campaign();
    const auth = { authorization: `Bearer ${s.secretKey}` };
    const ops = (await listOperations(s.url)).filter((op) => op.method === 'POST' && op.path.startsWith('/api/v1/admin/') && op.in === 'body');
    assert.ok(ops.length >= 30, `admin bodies: ${ops.length}`);
    for (const op of ops) {
      const fields: Record<string, unknown> = { ...validFields(op), zzUnknownField: 1 };
      if ('id' in op.fields) fields.id = id;
      const before = await dumpTables(s.ctx.store.db, s.ctx.store.dialect);
      const res = await callRoute(s.url, 'POST', op.path, fields, auth);
      assert.equal(res.status, 400, `${op.path}: ${res.text}`);
      assert.deepEqual([res.body.error?.code, res.body.error?.field], ['invalid_request', 'zzUnknownField'], `${op.path}: ${res.text}`);
      assert.deepEqual(await dumpTables(s.ctx.store.db, s.ctx.store.dialect), before, `${op.path} changed nothing`);
    }
  });

  it('a nested unknown field is named by its dotted path; createApiKey {mode} makes no key', async () => {
    const s = service();
    const auth = { authorization: `Bearer ${s.secretKey}` };
    const nested = await callRoute(s.url, 'POST', '/api/v1/admin/updateAccountSettings', { retention: { ipDayz: 3 } }, auth);
    assert.equal(nested.status, 400, nested.text);
    assert.equal(nested.body.error?.field, 'retention.ipDayz');
    assert.match(String((nested.body.error as { message?: string }).message), /Unknown field retention\.ipDayz/);
    const keys = (await s.admin.listApiKeys()).length;
    const mode = await callRoute(s.url, 'POST', '/api/v1/admin/createApiKey', { name: 'ci', mode: 'test' }, auth);
    assert.deepEqual([mode.status, mode.body.error?.field], [400, 'mode']);
    assert.equal((await s.admin.listApiKeys()).length, keys);
  });

  it('the interface ignores unknown fields, but not a likely misspelling of one it knows, nor a name for the referrer\'s code', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const auth = { authorization: `Bearer ${s.secretKey}` };
    const post = (path: string, fields: Record<string, unknown>) => callRoute(s.url, 'POST', `/api/v1/${path}`, fields, auth);
    // Older clients send fields of their own: ignored.
    assert.equal((await post('addParticipant', { id, email: 'ben@example.com', utm_source: 'mail', x: 1 })).status, 200);
    for (const [name, meant] of [
      ['refferedByCode', 'referredByCode'],
      ['referralCode', 'referredByCode'],
      ['referrerCode', 'referredByCode'],
      ['code', 'referredByCode'],
      ['firstNmae', 'firstName'],
    ]) {
      const res = await post('addParticipant', { id, email: 'cy@example.com', [name!]: ann.referralCode });
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.equal(res.body.error?.field, name);
      assert.match(String((res.body.error as { message?: string }).message), new RegExp(`did you mean ${meant}`));
    }
    assert.equal((await s.admin.getAllParticipants(id)).length, 2, 'no misspelled sign-up was made');
    const paid = await post('qualifyParticipant', { id, email: 'ben@example.com', amountPayed: '9.00' });
    assert.deepEqual([paid.status, paid.body.error?.field], [400, 'amountPayed']);
    const read = await callRoute(s.url, 'GET', '/api/v1/getParticipant', { id, email: 'ann@example.com', emial: 'x' }, auth);
    assert.deepEqual([read.status, read.body.error?.field], [400, 'emial']);
    assert.equal((await callRoute(s.url, 'GET', '/api/v1/getParticipant', { id, email: 'ann@example.com', fields: 'all' }, auth)).status, 200);
  });
});
