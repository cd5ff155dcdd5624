/**
 * Property-based tests (fast-check) against the real service on SQLite and PostgreSQL: random and hostile
 * input (control and bidi characters, NUL, unpaired surrogates, broken URLs, leap seconds, huge and
 * infinite numbers in every form a query or JSON can carry, wrong types, nested JSON, raw
 * percent-escapes, lying and junk headers, broken CSV files) at every operation of the OpenAPI document,
 * with no key, a valid key, a wrong key, another account's key and an owner's session cookie (with and
 * without its CSRF token); every method at every route the app serves; requests HTTP itself refuses.
 * Never a 500, never an unhandled rejection, every error in the envelope, and a refused call changes no
 * row. The last test checks that every route is covered: a route the OpenAPI document does not list must
 * be named in HIDDEN_ROUTES.
 * FUZZ_RUNS sets the number of random requests per database (default 600, spread evenly over the
 * operations); FUZZ_SEED replays a run.
 *
 * One file a database kind runs it (fuzz-sqlite.test.ts, fuzz-postgres.test.ts): each kind takes minutes,
 * and as two files the runner runs them side by side, each within the per-file limit.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { createApiKey } from '../../../src/server/accounts/domain/keys.js';
import { createOwner, resetOwner } from '../../../src/server/accounts/domain/owners.js';
import { watchRows, type RowsWatch } from './dump.js';
import {
  BODY_NUMBER_EDGES,
  BODY_OTHER_EDGES,
  bodyText,
  csvFile,
  FORBIDDEN,
  HEADER_VARIANTS,
  HOSTILE_STRINGS,
  LINE_BREAKS,
  LONE_SURROGATES,
  QUERY_NUMBER_EDGES,
  QUERY_OTHER_EDGES,
  RAW_NUMBERS,
  RAW_QUERY,
  rawNumber,
  WRONG_TYPES,
} from './hostile.js';
import { listOperations, queryString, send, sendRaw, validFields, validSample, type Operation, type Schema, type Sent } from './operations.js';
import { OWNER, signIn, type SignedIn } from './owner.js';
import { appRoutes } from './routes.js';
import { eachDatabaseShared } from './suite.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const seeded = SEED === undefined ? {} : { seed: SEED };

/** Operations whose body is a CSV file (Content-Type: text/csv), not JSON: their query names the campaign. */
const CSV_OPERATIONS = new Set(['POST /api/v1/admin/importParticipants']);

/**
 * Routes the app serves that the OpenAPI document does not list, so the structured fuzz cannot know their
 * fields; each is called by the method sweep here, and has tests of its own. A route that is neither in
 * the document nor here fails the coverage test.
 */
const HIDDEN_ROUTES: { method: string; path: RegExp; why: string }[] = [
  { method: 'OPTIONS', path: /^\/api\/v1\/\w+$/, why: 'CORS preflights of the public routes (auth.test.ts)' },
  { method: 'GET|HEAD', path: /^\/api\/openapi\.json$/, why: 'the OpenAPI document itself (errors.test.ts)' },
  { method: 'GET|HEAD', path: /^\/api\/docs(\/.*)?$/, why: 'the document viewer, Redoc (openapi.test.ts, security-headers.test.ts)' },
  { method: 'GET|HEAD', path: /^\/admin(\/?\*)?$/, why: "the dashboard's files (security-headers.test.ts, e2e)" },
  { method: 'GET|HEAD', path: /^\/widget\/\*$|^\/\*$|^\*$/, why: "the widget's files (security-headers.test.ts, e2e)" },
  { method: 'GET|HEAD', path: /^\/portal\/(:id|\*)$|^\/portal\/assets\/\*$/, why: "the referrer's portal page and its files (portal.test.ts, e2e/portal.test.ts)" },
];

/** Methods tried at every route, whether or not it has them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'];
/** What a wildcard route is called with. */
const WILDCARD_TAILS = ['index.html', '%zz', '%00', '..%2f..%2fpackage.json', 'a'.repeat(3000)];

const opKey = (op: Pick<Operation, 'method' | 'path'>) => `${op.method} ${op.path}`;
const isNumeric = (schema: Schema) => schema.type === 'integer' || schema.type === 'number';

interface RawAnswer {
  status: number;
  text: string;
}

/**
 * Writes bytes on a fresh connection and reads the answer: for requests fetch will not send (a
 * Content-Length that lies, malformed headers). The connection is closed after the first answer.
 */
function rawHttp(url: string, request: string): Promise<RawAnswer | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    // A guard, not a measure: a request the service leaves unanswered fails its case instead of hanging the file.
    socket.setTimeout(5000, () => done());
    let data = '';
    const done = () => {
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(data);
      resolve(m ? { status: Number(m[1]), text: m[3]! } : undefined);
    };
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const head = /\r\n\r\n/.exec(data);
      const length = /\r\ncontent-length: (\d+)/i.exec(data);
      if (head && length && data.length >= head.index + 4 + Number(length[1])) done();
    });
    socket.on('end', done);
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? done() : reject(err)));
    socket.write(request, 'latin1');
  });
}

/**
 * The fuzz tests on one database kind. Never through PgBouncer: they take minutes a kind, and the pooler
 * changes nothing they look for (input refused before any statement, the envelope, no 500).
 */
export function fuzzSuite(only: 'sqlite' | 'postgres'): void {
  eachDatabaseShared('fuzz', (service, kind) => {
    let ops: Operation[] = [];
    let world: {
      campaigns: string[];
      emails: string[];
      codes: string[];
      ids: string[];
      otherKey: string;
    };
    let session: SignedIn;
    /** Every answer's status, per operation of the document ("POST /api/v1/addParticipant"). */
    const statuses = new Map<string, Map<number, number>>();
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    /** The rows as the previous call left them: each call's dump is the next one's "before". */
    let rows = '';
    /** Dumps the rows again only when something wrote since (./dump.ts). */
    let watch: RowsWatch;

    before(async () => {
      process.on('unhandledRejection', onRejection);
      const s = service();
      ops = await listOperations(s.url);
      const a = await s.campaign({ hostURL: 'https://shop.example/join' });
      const b = await s.campaign({ hostURL: 'https://other.example/' });
      const ann = await s.admin.addParticipant({ id: a, email: 'ann@example.com' });
      await s.admin.addParticipant({ id: a, email: 'ben@example.com', referredByCode: ann.referralCode! });
      const endpoint = await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added'] });
      await s.admin.addParticipant({ id: b, email: 'cat@example.com' });
      const [delivery] = await s.admin.listWebhookDeliveries({});
      const decoy = await s.admin.createApiKey('decoy');
      // A second account with its own key: it must reach nothing of the first.
      const [account] = await s.ctx.store.db.insertInto('accounts').values({ name: 'other', created_on: Date.now() }).returning('id').execute();
      const other = await createApiKey(s.ctx, { accountId: Number(account!.id) }, 'other');
      await createOwner(s.ctx, OWNER.email, OWNER.password);
      session = await signIn(s);
      watch = await watchRows(s.ctx.store.db, kind.dialect, s.database.url);
      world = {
        campaigns: [a, b, 'demo', 'cmp_nope'],
        emails: ['ann@example.com', 'ben@example.com', 'cat@example.com', 'new@example.com', OWNER.email],
        codes: [ann.referralCode!, ann.referralCode!.toLowerCase(), 'ZZZZZZZZ'],
        ids: [a, endpoint.id, decoy.id, delivery!.id, 'key_nope'],
        otherKey: other.key,
      };
    });
    after(async () => {
      process.off('unhandledRejection', onRejection);
      await watch?.close();
    });

    /**
     * The checks every answer gets: not a 500; an error in the envelope (HEAD answers have no body); a
     * refusal changes no row. Counts the status for the operation, if it is one of the document's.
     */
    async function judge(what: string, method: string, key: string | undefined, res: Pick<Sent, 'status' | 'text'> & { body?: unknown }) {
      const s = service();
      if (key !== undefined) {
        const counts = statuses.get(key) ?? new Map<number, number>();
        counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
        statuses.set(key, counts);
      }
      const said = `${what} -> ${res.status} ${res.text.slice(0, 300)}`;
      assert.ok(res.status < 500, said);
      // A call's impressions are written in batches after the answer: flushed, so they count as its own.
      await s.ctx.store.flushImpressions();
      const now = await watch.rows();
      if (res.status >= 400) {
        if (method !== 'HEAD') {
          const body = res.body ?? (() => { try { return JSON.parse(res.text) as unknown; } catch { return undefined; } })();
          const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
          assert.ok(typeof error?.code === 'string' && typeof error.message === 'string', `envelope: ${said}`);
        }
        assert.equal(now, rows, `a refused call changed rows: ${said}`);
      }
      rows = now;
    }

    /** Starts a test's chain of calls from the rows as they are now (set-up may have written some). */
    async function fromHere() {
      const s = service();
      await s.ctx.store.flushImpressions();
      rows = await watch.rows();
    }

    /** Values that mean something to the service for a field of this name, else one its schema accepts. */
    function plausible(name: string, schema: Schema): fc.Arbitrary<unknown> {
      if (name === 'id' || name === 'endpointId') return fc.constantFrom(...world.campaigns, ...world.ids);
      if (name === 'campaignId') return fc.constantFrom(...world.campaigns);
      if (/email/i.test(name)) return fc.constantFrom(...world.emails);
      if (/code/i.test(name)) return fc.constantFrom(...world.codes);
      if (/password/i.test(name)) return fc.constantFrom(OWNER.password, 'wrong password');
      if (name === 'eventTypes') return fc.subarray(['referrer_added', 'referee_added', 'reward_unlocked'], { minLength: 1 });
      const enumValues = schema.anyOf?.flatMap((s) => s.enum ?? []) ?? schema.enum;
      if (enumValues?.length) return fc.constantFrom(...enumValues);
      if (schema.type === 'integer') return fc.integer({ min: -2, max: 120 });
      return fc.constant(validSample(schema));
    }

    /** The first plausible value: one that reaches past validation to the rules. */
    function firstPlausible(name: string, schema: Schema): unknown {
      return fc.sample(plausible(name, schema), { numRuns: 1, seed: 0 })[0];
    }

    function fieldValue(name: string, schema: Schema): fc.Arbitrary<unknown> {
      return fc.oneof(
        { weight: 5, arbitrary: plausible(name, schema) },
        { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
        { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
        { weight: 1, arbitrary: fc.constantFrom(...WRONG_TYPES) },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBERS.map(rawNumber)) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(plausible(name, schema), fc.constantFrom(...FORBIDDEN, ...LONE_SURROGATES), fc.nat())
            .map(([v, c, at]) => (typeof v === 'string' ? v.slice(0, at % (v.length + 1)) + c + v.slice(at % (v.length + 1)) : v)),
        },
      );
    }

    /**
     * Mostly a plausible request with one field made hostile (what reaches past validation to the rules and
     * the database), sometimes every field random, sometimes a body that is not the object asked for.
     */
    function requestFor(op: Operation): fc.Arbitrary<{ fields: Record<string, unknown> | string; extra: Record<string, unknown> }> {
      const names = Object.keys(op.fields);
      const optional = (name: string, value: fc.Arbitrary<unknown>) => fc.option(value, { nil: undefined, freq: op.required.includes(name) ? 20 : 2 });
      const plausibleFields = fc.record(Object.fromEntries(names.map((n) => [n, optional(n, plausible(n, op.fields[n]!))])));
      const randomFields = fc.record(Object.fromEntries(names.map((n) => [n, optional(n, fieldValue(n, op.fields[n]!))])));
      const oneHostile =
        names.length === 0
          ? plausibleFields
          : fc
              .tuple(plausibleFields, fc.constantFrom(...names))
              .chain(([f, name]) => fieldValue(name, op.fields[name]!).map((v) => ({ ...f, [name]: v })));
      const extra = fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) });
      const structured = fc
        .record({ fields: fc.oneof({ weight: 4, arbitrary: oneHostile }, { weight: 1, arbitrary: randomFields }), extra })
        .map(({ fields: f, extra: e }) => ({ fields: f as Record<string, unknown>, extra: e }));
      if (op.in === 'query') return structured;
      const rawBody = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom('', '{', '{"id":', 'null', '[]', '"x"', '{"id":"a","id":"b"}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', `${'['.repeat(5000)}${']'.repeat(5000)}`),
        fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
      );
      return fc.oneof({ weight: 9, arbitrary: structured }, { weight: 1, arbitrary: rawBody.map((b) => ({ fields: b, extra: {} })) });
    }

    /** Who calls: the credentials are looked up when the request is sent (the session may have been renewed). */
    type Caller = 'none' | 'key' | 'other account' | 'wrong key' | 'bare bearer' | 'basic' | 'session' | 'session without csrf' | 'session, wrong csrf' | 'unknown session';
    function credentials(caller: Caller): Record<string, string> {
      const s = service();
      switch (caller) {
        case 'none':
          return {};
        case 'key':
          return { authorization: `Bearer ${s.secretKey}` };
        case 'other account':
          return { authorization: `Bearer ${world.otherKey}` };
        case 'wrong key':
          return { authorization: 'Bearer sk_wrong_0123456789abcdef' };
        case 'bare bearer':
          return { authorization: 'Bearer' };
        case 'basic':
          return { authorization: `Basic ${s.secretKey}` };
        case 'session':
          return { cookie: session.cookie, 'x-csrf-token': session.csrfToken };
        case 'session without csrf':
          return { cookie: session.cookie };
        case 'session, wrong csrf':
          return { cookie: session.cookie, 'x-csrf-token': `${session.csrfToken.slice(1)}x` };
        case 'unknown session':
          return { cookie: 'refkit_session=abcdefghijklmnopqrstuvwxyz', 'x-csrf-token': 'abc' };
      }
    }
    const callers = fc.constantFrom<Caller>(
      'none',
      'key',
      'key',
      'key',
      'other account',
      'wrong key',
      'bare bearer',
      'basic',
      'session',
      'session',
      'session',
      'session without csrf',
      'session, wrong csrf',
      'unknown session',
    );

    /**
     * After a call that may have ended the owner's session, changed their password or used up the sign-in
     * throttle with wrong passwords: the owner's password as it was, and a fresh session (the throttle's
     * rows are the one write a refusal makes; cleared here so that the fuzz keeps reaching past it).
     */
    async function keepSignedIn(op: Operation) {
      if (!op.path.startsWith('/api/v1/auth/')) return;
      const s = service();
      const live = await fetch(`${s.url}/api/v1/auth/session`, { headers: { cookie: session.cookie } });
      if (live.status === 200) return;
      await resetOwner(s.ctx, OWNER.email, OWNER.password);
      await s.ctx.store.db.deleteFrom('signin_failures').execute();
      session = await signIn(s);
      rows = await watch.rows();
    }

    it(`random and hostile requests to every operation, as every kind of caller: never 500, always the envelope, refusals change nothing`, async () => {
      const s = service();
      assert.ok(ops.length >= 20, `the OpenAPI document lists the operations (${ops.length})`);
      const origin = fc.constantFrom<Record<string, string>>({}, {}, { origin: 'https://shop.example' }, { origin: 'https://evil.example' }, { origin: 'null' });
      const junk = fc.option(fc.constantFrom(...HEADER_VARIANTS), { nil: {}, freq: 4 });
      await fromHere();
      // Each operation gets its share of the runs, so that none is left out by chance.
      const perOperation = Math.max(4, Math.ceil(RUNS / ops.length));
      for (const op of ops) {
        // Besides the random callers, one call as each caller that may pass (a key, a session): with a few runs
        // an operation, random callers alone can miss an operation only one of them may call.
        const [byKey, bySession] = fc.sample(requestFor(op), { numRuns: 2, ...seeded });
        const examples: [{ req: typeof byKey; caller: Caller; origin: Record<string, string>; junk: Record<string, string> }][] = [
          [{ req: byKey!, caller: 'key', origin: {}, junk: {} }],
          [{ req: bySession!, caller: 'session', origin: {}, junk: {} }],
        ];
        await fc.assert(
          fc.asyncProperty(fc.record({ req: requestFor(op), caller: callers, origin, junk }), async ({ req, caller, origin: o, junk: j }) => {
            const fields = typeof req.fields === 'string' ? req.fields : { ...req.extra, ...req.fields };
            const payload = typeof fields === 'string' || op.in === 'query' ? fields : bodyText(fields);
            const res = await send(s.url, op, payload, { ...credentials(caller), ...o, ...j }, RAW_QUERY);
            const what = `${caller}: ${op.method} ${op.path} ${JSON.stringify(j)} ${typeof payload === 'string' ? payload.slice(0, 300) : JSON.stringify(payload)}`;
            await judge(what, op.method, opKey(op), res);
            await keepSignedIn(op);
          }),
          { numRuns: perOperation, examples, ...seeded },
        );
      }
      assert.deepEqual(rejections, [], 'no unhandled rejection');
      assert.equal((await fetch(`${s.url}/readyz`)).status, 200, 'the service still answers');
      const all = new Map<number, number>();
      for (const counts of statuses.values()) for (const [status, n] of counts) all.set(status, (all.get(status) ?? 0) + n);
      // The run reached past validation: some calls succeeded and some were refused by rules, not only by schemas.
      assert.ok((all.get(200) ?? 0) > 0 && (all.get(400) ?? 0) > 0 && (all.get(403) ?? 0) > 0, JSON.stringify([...all]));
    });

    it('every field of every operation, with every edge form of a number (Infinity, 1e400, -0, hex, "", repeated): never 500', async () => {
      const s = service();
      const key = { authorization: `Bearer ${s.secretKey}` };
      await fromHere();
      let sent = 0;
      for (const op of ops) {
        const base = Object.fromEntries(op.required.map((n) => [n, firstPlausible(n, op.fields[n]!)]));
        for (const [name, schema] of Object.entries(op.fields)) {
          const edges = op.in === 'query' ? (isNumeric(schema) ? QUERY_NUMBER_EDGES : QUERY_OTHER_EDGES) : isNumeric(schema) ? BODY_NUMBER_EDGES : BODY_OTHER_EDGES;
          for (const edge of edges) {
            const fields = { ...base, [name]: edge };
            const res = await send(s.url, op, op.in === 'query' ? fields : bodyText(fields), key, new Set([...RAW_QUERY, edge]));
            await judge(`${op.method} ${op.path} ${name}=${JSON.stringify(edge)}`, op.method, opKey(op), res);
            sent++;
          }
        }
      }
      assert.ok(sent >= 300, `edge requests sent: ${sent}`);
    });

    it('a control, bidi or separator character (or an unpaired surrogate) in any string field: 400 naming that field', async () => {
      const s = service();
      const headers = { authorization: `Bearer ${s.secretKey}` };
      const targets = ops.flatMap((op) =>
        Object.entries(op.fields)
          .filter(([, schema]) => schema.type === 'string' || schema.anyOf?.every((x) => x.type === 'string'))
          .map(([name, schema]) => ({ op, name, schema })),
      );
      assert.ok(targets.length >= 30, `string fields found: ${targets.length}`);
      const forbidden = (t: (typeof targets)[number]) =>
        [...FORBIDDEN, ...(t.op.in === 'body' ? LONE_SURROGATES : [])].filter((c) => t.schema.format !== 'text' || !LINE_BREAKS.includes(c));
      const cases = fc.constantFrom(...targets).chain((t) => fc.record({ t: fc.constant(t), c: fc.constantFrom(...forbidden(t)), at: fc.nat() }));

      // Every call here is refused, so the rows never change from this dump.
      const before = await watch.rows();
      await fc.assert(
        fc.asyncProperty(cases, async ({ t, c, at }) => {
          const valid = String(validSample(t.schema));
          const i = at % (valid.length + 1);
          const fields = { ...validFields(t.op), [t.name]: valid.slice(0, i) + c + valid.slice(i) };
          const res = await send(s.url, t.op, fields, headers);
          const what = `${t.op.path} ${t.name}=${JSON.stringify(fields[t.name])} -> ${res.status} ${res.text}`;
          assert.equal(res.status, 400, what);
          assert.deepEqual([(res.body as { error: { code: string; field?: string } }).error.code, (res.body as { error: { field?: string } }).error.field], ['invalid_request', t.name], what);
          assert.equal(await watch.rows(), before);
        }),
        { numRuns: Math.max(100, targets.length * 3), ...seeded },
      );
    });

    it('CSV files with hostile values, broken quoting, stray bytes and any Content-Type, to every CSV operation: never 500', async () => {
      const s = service();
      const csvOps = ops.filter((op) => CSV_OPERATIONS.has(opKey(op)));
      assert.equal(csvOps.length, CSV_OPERATIONS.size, 'every CSV operation is in the document');
      // Mostly new emails, so that rows get as far as the database; referrers and codes the campaigns have.
      const cellFor = (column: string): fc.Arbitrary<string> => {
        if (/email/i.test(column)) return fc.oneof(fc.nat({ max: 10 ** 9 }).map((n) => `import${n}@example.com`), fc.constantFrom(...world.emails));
        if (/code/i.test(column)) return fc.constantFrom(...world.codes, 'ABCD1234');
        if (column === 'createdOn') return fc.constantFrom('2024-01-31T00:00:00Z', '2016-12-31T23:59:60Z', 'yesterday', '');
        return fc.constantFrom('Ann', '', 'x'.repeat(150));
      };
      // Mostly what reaches the rows (the right type, a campaign of the account, credentials), sometimes not.
      const contentType = fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('text/csv', 'text/csv; charset=utf-8', 'TEXT/CSV') },
        { weight: 2, arbitrary: fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', 'text/csvx') },
      );
      const caller = fc.oneof({ weight: 8, arbitrary: fc.constantFrom<Caller>('key', 'session') }, { weight: 2, arbitrary: fc.constantFrom<Caller>('session without csrf', 'other account', 'none') });
      const campaign = fc.oneof({ weight: 8, arbitrary: fc.constant(world.campaigns[0]!) }, { weight: 2, arbitrary: fc.constantFrom(...world.campaigns) });
      await fromHere();
      for (const op of csvOps) {
        await fc.assert(
          fc.asyncProperty(csvFile(cellFor), campaign, contentType, caller, async (file, id, type, who) => {
            const res = await sendRaw(s.url, op.method, `${op.path}${queryString({ id })}`, { headers: { ...credentials(who), 'content-type': type }, body: file });
            await judge(`${who}: ${op.method} ${op.path}?id=${id} (${type}) ${JSON.stringify(Buffer.from(file).toString('latin1').slice(0, 300))}`, op.method, opKey(op), res);
          }),
          { numRuns: Math.max(40, Math.ceil(RUNS / 6)), ...seeded },
        );
      }
    });

    it('every method at every route the app serves, wildcards with hostile paths: never 500, errors in the envelope', async () => {
      const s = service();
      await fromHere();
      // Taken in turn, so that each route meets several of them across its methods.
      const headerSets: Record<string, string>[] = [
        {},
        { authorization: `Bearer ${s.secretKey}` },
        { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
        { cookie: session.cookie },
        { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' },
        { origin: '%%', 'content-type': 'application/json' },
      ];
      const routes = appRoutes(s.app).flatMap((r) => {
        const path = r.path.startsWith('/') ? r.path : `/${r.path}`;
        return path.endsWith('*') ? WILDCARD_TAILS.map((tail) => `${path.slice(0, -1).replace(/([^/])$/, '$1/')}${tail}`) : [path];
      });
      let turn = 0;
      for (const path of routes) {
        for (const method of METHODS) {
          const h = headerSets[turn++ % headerSets.length]!;
          const res = await sendRaw(s.url, method, path, { headers: h });
          const doc = ops.find((op) => op.path === path && (op.method === method || (method === 'HEAD' && op.method === 'GET')));
          await judge(`${method} ${path} ${JSON.stringify(h)}`, method, doc && opKey(doc), res);
        }
      }
    });

    it('requests HTTP refuses or that lie about their body (Content-Length, Transfer-Encoding, header syntax): 4xx in the envelope', async () => {
      const s = service();
      await fromHere();
      const host = `Host: ${new URL(s.url).host}\r\n`;
      const json = `${host}Content-Type: application/json\r\nAuthorization: Bearer ${s.secretKey}\r\nConnection: close\r\n`;
      const body = `{"id":"${world.campaigns[0]}","email":"lies@example.com"}`;
      const cases: [string, string][] = [
        ['Content-Length far past the body limit', `POST /api/v1/addParticipant HTTP/1.1\r\n${json}Content-Length: 99999999999\r\n\r\n${body}`],
        ['Content-Length past the import limit', `POST /api/v1/admin/importParticipants?id=${world.campaigns[0]} HTTP/1.1\r\n${host}Content-Type: text/csv\r\nAuthorization: Bearer ${s.secretKey}\r\nConnection: close\r\nContent-Length: 9999999999999\r\n\r\nemail\n`],
        ['Content-Length not a number', `POST /api/v1/addParticipant HTTP/1.1\r\n${json}Content-Length: abc\r\n\r\n${body}`],
        ['Content-Length negative', `POST /api/v1/addParticipant HTTP/1.1\r\n${json}Content-Length: -1\r\n\r\n${body}`],
        ['two Content-Lengths', `POST /api/v1/addParticipant HTTP/1.1\r\n${json}Content-Length: 5\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
        ['Content-Length and Transfer-Encoding', `POST /api/v1/addParticipant HTTP/1.1\r\n${json}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`],
        ['a broken chunk size', `POST /api/v1/addParticipant HTTP/1.1\r\n${json}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`],
        ['a NUL in a header', `GET /api/v1/getCampaign?id=${world.campaigns[0]} HTTP/1.1\r\n${host}X-Junk: a\u0000b\r\nConnection: close\r\n\r\n`],
        ['a header without a colon', `GET /healthz HTTP/1.1\r\n${host}Junk\r\nConnection: close\r\n\r\n`],
        ['headers past the size limit', `GET /healthz HTTP/1.1\r\n${host}X-Junk: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`],
        ['a space in the path', `GET /api/v1/get Campaign HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
        ['an unknown HTTP version', `GET /healthz HTTP/9.9\r\n${host}Connection: close\r\n\r\n`],
        ['no Host header', `GET /api/v1/getCampaign?id=${world.campaigns[0]} HTTP/1.1\r\nConnection: close\r\n\r\n`],
        ['Expect: 100-continue never followed', `POST /api/v1/addParticipant HTTP/1.1\r\n${json}Expect: 99-nope\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
      ];
      for (const [what, request] of cases) {
        const res = await rawHttp(s.url, request);
        assert.ok(res, `${what}: an HTTP answer`);
        assert.ok(res.status >= 400 && res.status < 500, `${what} -> ${res.status} ${res.text}`);
        await judge(what, 'POST', undefined, res);
      }
      // A body shorter than its Content-Length, then the client goes away: no answer to give, nothing kept.
      const { hostname, port } = new URL(s.url);
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), hostname, () => {
          socket.setTimeout(5000, () => socket.destroy());
          socket.end(`POST /api/v1/addParticipant HTTP/1.1\r\n${json}Content-Length: ${body.length + 100}\r\n\r\n${body}`);
        });
        socket.on('close', () => resolve());
        socket.resume();
      });
      assert.equal((await fetch(`${s.url}/readyz`)).status, 200, 'the service still answers');
      assert.equal(await watch.rows(), rows, 'the cut-off request changed nothing');
      assert.deepEqual(rejections, [], 'no unhandled rejection');
    });

    it('coverage: every route is in the OpenAPI document or named in HIDDEN_ROUTES, and every operation of the document was called', () => {
      const s = service();
      const documented = new Set(ops.map(opKey));
      // The document writes a path parameter as {name}, the router as :name.
      const asDocumented = (path: string) => path.replace(/:(\w+)/g, '{$1}');
      const unknown = appRoutes(s.app).flatMap((r) =>
        r.methods
          .filter((m) => !documented.has(`${m} ${asDocumented(r.path)}`) && !(m === 'HEAD' && documented.has(`GET ${asDocumented(r.path)}`)))
          .filter((m) => !HIDDEN_ROUTES.some((h) => new RegExp(`^(${h.method})$`).test(m) && h.path.test(r.path)))
          .map((m) => `${m} ${r.path}`),
      );
      assert.deepEqual(unknown, [], 'routes the fuzz cannot know the fields of: list them in the OpenAPI document (or in HIDDEN_ROUTES, with their tests)');
      const uncalled = [...documented].filter((k) => !statuses.has(k));
      assert.deepEqual(uncalled, [], 'operations of the document the fuzz never called');
      // Past the key check: every operation answered something other than 401 and 403 at least once.
      const neverPast = [...documented].filter((k) => [...(statuses.get(k)?.keys() ?? [])].every((status) => status === 401 || status === 403));
      assert.deepEqual(neverPast, [], 'operations the fuzz never got past the credentials of');
    });
  }, { rateLimits: { perIp: 0, signupsPerIp: 0, signupsPerCampaign: 0, keyFailuresPerIp: 0, windowMs: 60_000, redisUrl: undefined }, pgbouncer: false, only });
}
