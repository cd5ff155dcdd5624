/**
 * Hostile input for the fuzz tests (test/server/helpers/fuzz.ts): strings, wrong types, number forms JSON
 * and query strings can carry, header variants, and CSV files for the import.
 */
import fc from 'fast-check';

/** Characters no request string may carry (tab and line breaks are allowed in multi-line texts). */
export const LINE_BREAKS = ['\t', '\n', '\r'];
export const FORBIDDEN = [
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
export const LONE_SURROGATES = ['\ud800', '\udfff'];

/** Query values sent exactly as written (not percent-encoded by the test). */
export const RAW_QUERY = new Set<unknown>(['%00', '%zz', '%', '%E0%A4%A', 'a%00b', '%u202e', '%F0%9F']);

/**
 * The forms a number takes in a query string that are not a plain decimal integer: what ajv's coercion
 * may turn into Infinity, NaN, -0, a fraction or a number past 2^53, and what it must refuse.
 */
export const NUMBER_TEXTS = [
  'Infinity',
  '-Infinity',
  '+Infinity',
  '1e400',
  '-1e400',
  '1e-400',
  'NaN',
  '-0',
  '0x10',
  '0b1',
  '0o7',
  '1e2',
  '1.0',
  '1.5',
  '+1',
  ' 1',
  '1 ',
  '',
  ' ',
  '9'.repeat(400),
  String(2 ** 53 + 2),
  '00001',
];

export const HOSTILE_STRINGS: unknown[] = [
  ...RAW_QUERY,
  ...NUMBER_TEXTS,
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

export const WRONG_TYPES: unknown[] = [
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
  ['1', '2'],
  {},
  { $gt: '' },
  { __proto__: { admin: true } },
  [[[[[[[[[[[[[[[[[[[[['deep']]]]]]]]]]]]]]]]]]]]],
];

/** Number literals JSON.stringify cannot write; spliced into the body text as written (see bodyText). */
export const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '123456789012345678901234567890', '-0.0', '1.0', '1E2', '0.1e1'];
export const rawNumber = (text: string) => `@@raw:${text}@@`;

/** JSON text of the fields, with rawNumber(...) markers written as bare number literals. */
export function bodyText(fields: Record<string, unknown>): string {
  return JSON.stringify(fields).replace(/"@@raw:([^@]+)@@"/g, '$1');
}

/** Every edge form a numeric field is tried with: in a query (text, or repeated) and in a JSON body. */
export const QUERY_NUMBER_EDGES: unknown[] = [...NUMBER_TEXTS, ['1', '2'], ['Infinity'], '%00', '%zz'];
export const BODY_NUMBER_EDGES: unknown[] = [
  ...RAW_NUMBERS.map(rawNumber),
  ...NUMBER_TEXTS,
  -0,
  0.5,
  2 ** 53 + 2,
  1e308,
  -1e308,
  null,
  [1, 2],
  [],
  {},
  true,
];
/** The few forms every other field is tried with. */
export const QUERY_OTHER_EDGES: unknown[] = ['', ['a', 'b'], 'Infinity'];
export const BODY_OTHER_EDGES: unknown[] = ['', null, ['a', 'b'], rawNumber('1e400')];

/**
 * Headers that lie about the body or carry junk: a wrong Content-Type, an Idempotency-Key-like header
 * the service does not know, proof headers that prove nothing, forwarding headers from an untrusted hop.
 */
export const HEADER_VARIANTS: Record<string, string>[] = [
  { 'content-type': 'text/csv' },
  { 'content-type': 'text/plain' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  { 'content-type': 'multipart/form-data; boundary=xyz' },
  { 'content-type': 'application/json; charset=utf-16' },
  { 'content-type': 'application/json; charset=latin1' },
  { 'content-type': 'application/json, text/csv' },
  { 'content-type': 'application/jsonx' },
  { 'content-type': '' },
  { 'content-type': ';;;' },
  { 'content-type': 'text/csv; charset=utf-8; boundary="' },
  { 'idempotency-key': '' },
  { 'idempotency-key': 'x'.repeat(8000) },
  { 'idempotency-key': '%00\u00ff' },
  { 'refkit-participant-token': 'x'.repeat(200) },
  { 'refkit-participant-token': '' },
  { 'refkit-participant-token': '%00' },
  { 'refkit-email-signature': 'zz' },
  { 'refkit-email-signature': '0'.repeat(64) },
  { 'refkit-email-signature': 'a'.repeat(500) },
  { 'refkit-email-link': 'send' },
  { 'refkit-email-link': 'SEND' },
  { 'refkit-email-link': '' },
  { 'x-forwarded-for': 'not-an-ip, ::1, 300.1.1.1' },
  { 'x-forwarded-host': 'evil.example:99999' },
  { 'x-forwarded-proto': 'gopher' },
  { accept: 'text/csv' },
  { accept: '*/*;q=abc' },
  { 'accept-encoding': 'br;q=NaN, gzip;q=1e400' },
  { 'content-encoding': 'gzip' },
  { cookie: 'refkit_session=%zz' },
  { cookie: 'refkit_session=' },
  { cookie: 'refkit_session="' },
  { cookie: ';;=;refkit_session=a;refkit_session=b' },
  { origin: '%%' },
  { origin: 'http://[::1' },
  { origin: 'https://shop.example:99999' },
  { origin: '' },
  { 'x-csrf-token': 'x'.repeat(5000) },
];

/** The import's columns, a few it does not know, and the same one twice. */
const CSV_COLUMNS = ['email', 'firstName', 'lastName', 'referralCode', 'referredByCode', 'referredByEmail', 'createdOn', 'fraudScore', '', '__proto__', 'email'];

const csvQuote = (v: string) => `"${v.replaceAll('"', '""')}"`;

/**
 * A CSV file for the import: a header of known and unknown columns, rows of values that fit their column
 * (`cellFor`: a new email under email, so that rows reach the database) or are hostile, quoted or written
 * raw (so that quotes and separators may break the file), a cell too few or too many, and sometimes bytes
 * that are not UTF-8 or a byte-order mark.
 */
export function csvFile(cellFor: (column: string) => fc.Arbitrary<string>): fc.Arbitrary<Uint8Array<ArrayBuffer>> {
  const hostile = (column: string) =>
    fc.oneof(
      { weight: 6, arbitrary: cellFor(column) },
      { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((s): s is string => typeof s === 'string')) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
      // NUL on its own: the one character PostgreSQL refuses to store.
      { weight: 2, arbitrary: cellFor(column).map((v) => `${v}\u0000`) },
      {
        weight: 3,
        arbitrary: fc
          .tuple(cellFor(column), fc.constantFrom(...FORBIDDEN, ...LONE_SURROGATES), fc.nat())
          .map(([v, c, at]) => v.slice(0, at % (v.length + 1)) + c + v.slice(at % (v.length + 1))),
      },
    );
  const cell = (column: string) => fc.tuple(hostile(column), fc.boolean()).map(([v, quoted]) => (quoted ? csvQuote(v) : v));
  const row = (columns: string[]) =>
    fc.tuple(fc.tuple(...columns.map(cell)), fc.constantFrom(0, 0, 0, -1, 1)).map(([cells, more]) => (more < 0 ? cells.slice(0, -1) : more > 0 ? [...cells, 'extra'] : cells));
  const text = fc.subarray(CSV_COLUMNS, { minLength: 1 }).chain((columns) =>
    fc
      .tuple(fc.array(row(columns), { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r'))
      .map(([rows, eol]) => [columns.join(','), ...rows.map((r) => r.join(','))].join(eol)),
  );
  const prefix = fc.constantFrom(Buffer.alloc(0), Buffer.alloc(0), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from([0xff, 0xfe]), Buffer.from([0xc3]));
  const suffix = fc.constantFrom(Buffer.alloc(0), Buffer.alloc(0), Buffer.from('\n"unclosed'), Buffer.from([0x80, 0xff]), Buffer.from('\u0000'));
  return fc.tuple(prefix, text, suffix).map(([p, t, s]) => new Uint8Array(Buffer.concat([p, Buffer.from(t, 'utf8'), s])));
}
