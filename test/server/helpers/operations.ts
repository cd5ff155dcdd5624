/**
 * The service's operations as its own OpenAPI document lists them (so routes added later are covered by
 * every test that walks them), with their query parameters and JSON body properties, and a value that
 * each property's schema accepts. Requests are sent with fetch, query strings built by hand so that
 * hostile text (raw `%zz`, `%00`) reaches the service as written.
 */
import fc from 'fast-check';

export interface Schema {
  type?: string;
  format?: string;
  pattern?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  minimum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  nullable?: boolean;
}

export interface Operation {
  method: 'GET' | 'POST';
  path: string;
  /** Where the fields go: the query string (GET) or the JSON body (POST). */
  in: 'query' | 'body';
  fields: Record<string, Schema>;
  required: string[];
  /** Needs a secret key or an owner's session (the document's security names bearerAuth); a portal route, a participant's cookie, is not. */
  secret: boolean;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; required?: boolean; schema: Schema }[];
  /** JSON, or (an import) a CSV file, whose fields are its query's: the CSV fuzz sends the files. */
  requestBody?: { content: { 'application/json'?: { schema: Schema }; 'text/csv'?: { schema: Schema } } };
  security?: Record<string, unknown>[];
}

export async function listOperations(baseUrl: string): Promise<Operation[]> {
  const doc = (await (await fetch(`${baseUrl}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // A body that is one of several shapes (grantAccess: a count, or emails) is taken as its first. A webhook
      // receiver's is the sender's, signed, and read raw: documented, never checked field by field (docs/api.md).
      const whole = path.startsWith('/api/v1/integrations/') ? undefined : op.requestBody?.content['application/json']?.schema;
      const body = whole?.anyOf?.[0] ?? whole;
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      ops.push({
        method: method.toUpperCase() as 'GET' | 'POST',
        path,
        in: body ? 'body' : 'query',
        fields: body ? (body.properties ?? {}) : Object.fromEntries(query.map((p) => [p.name, p.schema])),
        required: body ? (body.required ?? []) : query.filter((p) => p.required).map((p) => p.name),
        secret: (op.security ?? []).some((r) => 'bearerAuth' in r),
      });
    }
  }
  return ops;
}

/** One value the schema accepts (formats as the service defines them). */
export function validSample(schema: Schema): unknown {
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return validSample(schema.anyOf[0]!);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => validSample(schema.items!));
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((k) => [k, validSample(schema.properties![k]!)]));
  }
  if (schema.pattern) return fc.sample(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length > 0 && s.length < 60), { numRuns: 1, seed: 1 })[0];
  switch (schema.format) {
    case 'http-url':
      return 'https://shop.example/join';
    case 'http-origin':
      return 'https://shop.example';
    case 'date-time':
      return '2099-01-01T00:00:00Z';
  }
  return 'x';
}

/** A request whose required fields all hold schema-valid values. */
export function validFields(op: Operation): Record<string, unknown> {
  return Object.fromEntries(op.required.map((k) => [k, validSample(op.fields[k]!)]));
}

/** Query text for any values: arrays repeat the name, objects go as JSON, `raw` strings are sent unencoded. */
export function queryString(fields: Record<string, unknown>, raw: ReadonlySet<unknown> = new Set()): string {
  // A URL carries UTF-8, which has no unpaired surrogates; they go as U+FFFD, as a browser sends them.
  const encode = (s: string) => encodeURIComponent(s.replace(/\p{Cs}/gu, '\ufffd'));
  const parts: string[] = [];
  const add = (k: string, v: unknown) => {
    const text = typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    parts.push(`${encode(k)}=${raw.has(v) ? text : encode(text)}`);
  };
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) v.forEach((item) => add(k, item));
    else add(k, v);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface Sent {
  status: number;
  body: unknown;
  text: string;
}

/** Sends one request; `body` is sent as given when it is a string, else as JSON. */
export async function send(
  baseUrl: string,
  op: Pick<Operation, 'method' | 'path' | 'in'>,
  fields: Record<string, unknown> | string,
  headers: Record<string, string> = {},
  raw?: ReadonlySet<unknown>,
): Promise<Sent> {
  const isGet = op.in === 'query';
  const path = `${op.path}${isGet && typeof fields === 'object' ? queryString(fields, raw) : ''}`;
  return sendRaw(baseUrl, op.method, path, {
    headers: isGet ? headers : { 'content-type': 'application/json', ...headers },
    ...(!isGet && { body: typeof fields === 'string' ? fields : JSON.stringify(fields) }),
  });
}

/** Sends a request as given: any method, path and query text, headers and body. */
export async function sendRaw(baseUrl: string, method: string, path: string, init: { headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {}): Promise<Sent> {
  const res = await fetch(`${baseUrl}${path}`, { method, headers: init.headers ?? {}, ...(init.body !== undefined && { body: init.body }) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

/** An answer as the walks of every route read it: status, text, the JSON body ({} for CSV), Idempotent-Replayed. */
export interface Answer {
  status: number;
  text: string;
  body: { error?: { code: string; field?: string } } & Record<string, unknown>;
  replayed: string | null;
}

/**
 * Calls one route as the walks of every route do: GET fields as the query, POST fields as JSON (or a
 * string as a CSV file), with `auth`'s headers and an Idempotency-Key when given.
 */
export async function callRoute(baseUrl: string, method: string, path: string, fields: Record<string, unknown> | string, auth: Record<string, string>, key?: string): Promise<Answer> {
  const isCsv = typeof fields === 'string';
  const query = method === 'GET' ? `?${new URLSearchParams(fields as Record<string, string>)}` : '';
  const res = await fetch(`${baseUrl}${path}${query}`, {
    method,
    headers: { ...auth, ...(method === 'POST' && { 'content-type': isCsv ? 'text/csv' : 'application/json' }), ...(key !== undefined && { 'idempotency-key': key }) },
    ...(method === 'POST' && { body: isCsv ? fields : JSON.stringify(fields) }),
  });
  const text = await res.text();
  let body: Answer['body'] = {};
  try {
    body = JSON.parse(text) as Answer['body'];
  } catch {
    // CSV
  }
  return { status: res.status, text, body, replayed: res.headers.get('idempotent-replayed') };
}
