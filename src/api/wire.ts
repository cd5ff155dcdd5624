/**
 * The wire shapes as the OpenAPI document spells them: the types openapi-typescript generated from the
 * document the service serves (packages/node/src/openapi.d.ts, made by `npm run api:generate` and checked by
 * test/server/openapi.test.ts), read by operation. The project's own client (./client.ts) and the Node SDK
 * (@refkit/node) are typed from this one contract, so that a shape is spelled once: in the route schemas.
 */
import type { operations } from '../../packages/node/src/openapi.js';

export type OperationName = keyof operations;

type Json<C> = C extends { content: { 'application/json': infer T } } ? T : never;

/** An operation's 200 answer, as JSON. */
export type Answer<K extends OperationName> = Json<operations[K]['responses'] extends { 200: infer R } ? R : never>;

/** An operation's JSON request body. */
export type Body<K extends OperationName> = Json<NonNullable<operations[K] extends { requestBody?: infer B } ? B : never>>;

/** An operation's query parameters. */
export type Query<K extends OperationName> = NonNullable<operations[K]['parameters']['query']>;

/** An operation's answer with `status` (a refusal's envelope: `{error: {code, message, field?}}`). */
export type Refusal<K extends OperationName, S extends number> = Json<operations[K]['responses'] extends Record<S, infer R> ? R : never>;

/** One item of a list answer. */
export type Item<K extends OperationName> = Answer<K> extends (infer T)[] ? T : never;
