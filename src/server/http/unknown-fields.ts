/**
 * Unknown fields, by who sends them:
 * - The owner's bodies (every route under /api/v1/admin/) are closed: a field the schema does not name,
 *   at any depth, is 400 invalid_request with `field` its dotted path (`retention.ipDayz`), and nothing
 *   runs. A typo must never be read as "not given" (`createApiKey {mode: 'test'}` made a live key).
 *   Routes declare their bodies as they like; this closes every object in them when the route is added,
 *   on a copy (the schemas are shared with answers and with other routes).
 * - The referral interface's operations (`config.interfaceFields`) ignore unknown fields, as older
 *   clients send some, except a likely misspelling of one they know (5 characters or more, within 2
 *   edits: `refferedByCode`), and names that are known mistakes for another (`referralCode` on
 *   addParticipant means `referredByCode`): 400 naming the field and the one meant.
 * - Webhook receivers (/api/v1/integrations/) take any payload: the sender's shape is the sender's.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { distance } from 'fastest-levenshtein';
import { AppError } from '../kernel/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The referral interface's own leniency (./unknown-fields.ts): unknown fields are ignored, except
     * likely misspellings; `misnamed` maps names that mean another field to it.
     */
    interfaceFields?: { misnamed?: Readonly<Record<string, string>> };
  }
}

type Schema = Record<string, unknown>;

/** A copy of `schema` in which every object schema that does not say otherwise refuses other properties. */
export function closeObjects<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closeObjects) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [k, v] of Object.entries(schema as Schema)) copy[k] = k === 'properties' || k === 'patternProperties' ? mapValues(v as Schema, closeObjects) : closeObjects(v);
  const open = copy.additionalProperties !== undefined || copy.patternProperties !== undefined || copy.unevaluatedProperties !== undefined;
  if (copy.type === 'object' && copy.properties !== undefined && !open) copy.additionalProperties = false;
  return copy as T;
}

const mapValues = (o: Schema, f: (v: unknown) => unknown): Schema => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

/** Within this many edits a name of at least MIN_TYPO_LENGTH characters reads as a misspelling of a known one. */
const MAX_EDITS = 2;
const MIN_TYPO_LENGTH = 5;

/** The known field `name` is likely a misspelling of, if any (the closest). */
export function misspellingOf(name: string, known: readonly string[]): string | undefined {
  if (name.length < MIN_TYPO_LENGTH || known.includes(name)) return undefined;
  let best: { field: string; edits: number } | undefined;
  for (const field of known) {
    const edits = distance(name.toLowerCase(), field.toLowerCase());
    if (edits <= MAX_EDITS && (!best || edits < best.edits)) best = { field, edits };
  }
  return best?.field;
}

const propertiesOf = (schema: unknown): string[] => Object.keys(((schema ?? {}) as { properties?: Schema }).properties ?? {});

const isPost = (route: RouteOptions) => [route.method].flat().includes('POST');

async function unknownFields(app: FastifyInstance) {
  /** By route: the names its interface fields know, for the misspelling check. */
  const known = new Map<string, string[]>();
  app.addHook('onRoute', (route) => {
    const body = route.schema?.body;
    if (route.url.startsWith('/api/v1/admin/') && body && isPost(route)) route.schema = { ...route.schema, body: closeObjects(body) };
    if (route.config?.interfaceFields) known.set(route.url, [...propertiesOf(route.schema?.body), ...propertiesOf(route.schema?.querystring)]);
  });

  // Before validation: the misspelled field would otherwise pass unseen (or a required one be "missing").
  app.addHook('preValidation', (request, _reply, done) => {
    const lenient = request.routeOptions.config.interfaceFields;
    if (!lenient) return done();
    const fields = known.get(request.routeOptions.url!) ?? [];
    for (const source of [request.body, request.query]) {
      if (source === null || typeof source !== 'object' || Array.isArray(source)) continue;
      for (const name of Object.keys(source)) {
        if (fields.includes(name)) continue;
        const meant = lenient.misnamed?.[name] ?? misspellingOf(name, fields);
        if (meant) return done(new AppError(400, 'invalid_request', `Unknown field ${name}: did you mean ${meant}?`, name));
      }
    }
    done();
  });
}

export default fp(unknownFields, { name: 'refkit-unknown-fields' });
