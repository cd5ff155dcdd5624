/**
 * Property-based tests (fast-check) against the real service on SQLite and PostgreSQL: random and hostile
 * input (control and bidi characters, NUL, unpaired surrogates, broken URLs, leap seconds, huge and
 * infinite numbers, wrong types, nested JSON, raw percent-escapes) at every operation of the OpenAPI
 * document, with no key, a valid key, a wrong key and another account's key. Never a 500, never an
 * unhandled rejection, every error in the envelope, and a refused call changes no row.
 * FUZZ_RUNS sets the number of random requests per database (default 400); FUZZ_SEED replays a run.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { createApiKey } from '../../src/server/domain/keys.js';
import { dumpDatabase } from './helpers/dump.js';
import { listOperations, send, validFields, validSample, type Operation, type Schema } from './helpers/operations.js';
import { eachDatabaseShared } from './helpers/suite.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** Characters no request string may carry (tab and line breaks are allowed in multi-line texts). */
const LINE_BREAKS = ['\t', '\n', '\r'];
const FORBIDDEN = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)),
  '\u007f',
  '\u0080',
  '\u0085',
  '\u009f',
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069',
  '\u2028',
  '\u2029',
];
const LONE_SURROGATES = ['\ud800', '\udfff'];

/** Query values sent exactly as written (not percent-encoded by the test). */
const RAW_QUERY = new Set<unknown>(['%00', '%zz', '%', '%E0%A4%A', 'a%00b', '%u202e', '%F0%9F']);

const HOSTILE_STRINGS: unknown[] = [
  ...RAW_QUERY,
  '\u0000',
  'demo\u0000',
  'ann@example.com\u0000',
  '\u202eevil',
  'x\u2066y',
  '\u0007',
  '\u001b[31m',
  '\u0085',
  '\u2028',
  '\ud800',
  '\udfff\ud800',
  'http://[::127.0.0.1]/',
  'http://[::ffff:127.0.0.1]/',
  'https://a b.example/',
  'http://x.example:99999/',
  'http://a%09b.example/',
  'https://exa%zzmple.com/',
  'https://shop.example/%zz',
  'https://shop.example/a b',
  'https://shop.example\t/',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'http://',
  'https://user:pw@shop.example',
  '2016-12-31T23:59:60Z',
  '2030-02-30T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '0000-01-01T00:00:00Z',
  'Infinity',
  '-Infinity',
  '1e400',
  '-1e400',
  '1e-400',
  'NaN',
  '-0',
  '0x10',
  '9'.repeat(400),
  '',
  ' ',
  '  Ann@Example.com  ',
  '__proto__',
  'constructor',
  '😀',
  'ß',
  'İstanbul',
  'مرحبا',
  'x'.repeat(70),
  'x'.repeat(2100),
  "' or 1=1 --",
  '"; drop table participants; --',
  '<script>alert(1)</script>',
  'a@b',
  'a+tag@gmail.com',
];

const WRONG_TYPES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0,
  1e308,
  2 ** 53 + 2,
  2 ** 63,
  [],
  ['a', 'b'],
  {},
  { $gt: '' },
  { __proto__: { admin: true } },
  [[[[[[[[[[[[[[[[[[[[['deep']]]]]]]]]]]]]]]]]]]]],
];

/** Number literals JSON.stringify cannot write; spliced into the body text as written. */
const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '123456789012345678901234567890', '-0.0'];
const rawNumber = (text: string) => `@@raw:${text}@@`;

function bodyText(fields: Record<string, unknown>): string {
  return JSON.stringify(fields).replace(/"@@raw:([^@]+)@@"/g, '$1');
}

eachDatabaseShared('fuzz', (service, kind) => {
  let ops: Operation[] = [];
  let world: {
    campaigns: string[];
    emails: string[];
    codes: string[];
    ids: string[];
    otherKey: string;
  };
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

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
    world = {
      campaigns: [a, b, 'demo', 'cmp_nope'],
      emails: ['ann@example.com', 'ben@example.com', 'cat@example.com', 'new@example.com'],
      codes: [ann.referralCode!, ann.referralCode!.toLowerCase(), 'ZZZZZZZZ'],
      ids: [a, endpoint.id, decoy.id, delivery!.id, 'key_nope'],
      otherKey: other.key,
    };
  });
  after(() => {
    process.off('unhandledRejection', onRejection);
  });

  /** Values that mean something to the service for a field of this name, else one its schema accepts. */
  function plausible(name: string, schema: Schema): fc.Arbitrary<unknown> {
    if (name === 'id' || name === 'endpointId') return fc.constantFrom(...world.campaigns, ...world.ids);
    if (name === 'campaignId') return fc.constantFrom(...world.campaigns);
    if (/email/i.test(name)) return fc.constantFrom(...world.emails);
    if (/code/i.test(name)) return fc.constantFrom(...world.codes);
    if (name === 'eventTypes') return fc.subarray(['referrer_added', 'referee_added', 'reward_unlocked'], { minLength: 1 });
    const enumValues = schema.anyOf?.flatMap((s) => s.enum ?? []) ?? schema.enum;
    if (enumValues?.length) return fc.constantFrom(...enumValues);
    if (schema.type === 'integer') return fc.integer({ min: -2, max: 120 });
    return fc.constant(validSample(schema));
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
      fc.constantFrom('{', '{"id":', 'null', '[]', '"x"', '{"id":"a","id":"b"}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', `${'['.repeat(5000)}${']'.repeat(5000)}`),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
    );
    return fc.oneof({ weight: 9, arbitrary: structured }, { weight: 1, arbitrary: rawBody.map((b) => ({ fields: b, extra: {} })) });
  }

  it(`random and hostile requests to every operation: never 500, always the envelope, refusals change nothing`, async () => {
    const s = service();
    assert.ok(ops.length >= 20, `the OpenAPI document lists the operations (${ops.length})`);
    const key = { authorization: `Bearer ${s.secretKey}` };
    const auth = fc.constantFrom<Record<string, string>>(
      {},
      key,
      key,
      key,
      key,
      { authorization: `Bearer ${world.otherKey}` },
      { authorization: 'Bearer sk_wrong_0123456789abcdef' },
      { authorization: 'Bearer' },
      { authorization: `Basic ${s.secretKey}` },
    );
    const origin = fc.constantFrom<Record<string, string>>({}, {}, { origin: 'https://shop.example' }, { origin: 'https://evil.example' }, { origin: 'null' });
    const request = fc.constantFrom(...ops).chain((op) => fc.record({ op: fc.constant(op), req: requestFor(op), auth, origin }));
    const statuses = new Map<number, number>();

    // The rows as the previous call left them: each call's dump is the next one's "before" (nothing else
    // writes between two calls once the call's impressions, written in batches, are flushed), one dump per
    // call instead of two.
    let before = await dumpDatabase(s.ctx.store.db, kind.name);
    await fc.assert(
      fc.asyncProperty(request, async ({ op, req, auth: a, origin: o }) => {
        const fields = typeof req.fields === 'string' ? req.fields : { ...req.extra, ...req.fields };
        const payload = typeof fields === 'string' || op.in === 'query' ? fields : bodyText(fields);
        const res = await send(s.url, op, payload, { ...a, ...o }, RAW_QUERY);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const what = `${op.method} ${op.path} ${typeof payload === 'string' ? payload.slice(0, 300) : JSON.stringify(payload)} -> ${res.status} ${res.text.slice(0, 300)}`;
        assert.ok(res.status < 500, what);
        await s.ctx.store.flushImpressions();
        const after = await dumpDatabase(s.ctx.store.db, kind.name);
        if (res.status >= 400) {
          const error = (res.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
          assert.ok(typeof error?.code === 'string' && typeof error.message === 'string', `envelope: ${what}`);
          assert.equal(after, before, `a refused call changed rows: ${what}`);
        }
        before = after;
      }),
      { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }) },
    );
    assert.deepEqual(rejections, [], 'no unhandled rejection');
    assert.equal((await fetch(`${s.url}/readyz`)).status, 200, 'the service still answers');
    // The run reached past validation: some calls succeeded and some were refused by rules, not only by schemas.
    assert.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0, JSON.stringify([...statuses]));
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
    const before = await dumpDatabase(s.ctx.store.db, kind.name);
    await fc.assert(
      fc.asyncProperty(cases, async ({ t, c, at }) => {
        const valid = String(validSample(t.schema));
        const i = at % (valid.length + 1);
        const fields = { ...validFields(t.op), [t.name]: valid.slice(0, i) + c + valid.slice(i) };
        const res = await send(s.url, t.op, fields, headers);
        const what = `${t.op.path} ${t.name}=${JSON.stringify(fields[t.name])} -> ${res.status} ${res.text}`;
        assert.equal(res.status, 400, what);
        assert.deepEqual([(res.body as { error: { code: string; field?: string } }).error.code, (res.body as { error: { field?: string } }).error.field], ['invalid_request', t.name], what);
        assert.equal(await dumpDatabase(s.ctx.store.db, kind.name), before);
      }),
      { numRuns: Math.max(100, targets.length * 3), ...(SEED !== undefined && { seed: SEED }) },
    );
  });
}, { rateLimits: { perIp: 0, signupsPerIp: 0, signupsPerCampaign: 0, keyFailuresPerIp: 0, windowMs: 60_000, redisUrl: undefined } });
