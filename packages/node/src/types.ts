/**
 * The methods' types, derived from the generated contract (./openapi.d.ts, ./operations.ts) rather than
 * written by hand: a route's schema changes, `npm run api:generate` runs, and the client's types follow.
 * Each method takes one object, its query parameters and JSON body fields together (a CSV upload's text as
 * `csv`), and answers its 200's JSON (a CSV export's text as a string).
 */
import type { operations } from './openapi.js';
import type { OPERATIONS, OperationId } from './operations.js';
import type { PagedList } from './paging.js';

type Operation<K extends OperationId> = operations[K];

/** `never` (an absent part of the request) read as "no fields". */
type Fields<T> = [T] extends [never] ? unknown : [T] extends [undefined] ? unknown : T;

type QueryOf<K extends OperationId> = Fields<NonNullable<Operation<K>['parameters']['query']>>;

type BodyOf<K extends OperationId> =
  Operation<K> extends { requestBody?: infer B }
    ? [NonNullable<B>] extends [never]
      ? unknown
      : NonNullable<B> extends { content: { 'application/json': infer J } }
        ? J
        : NonNullable<B> extends { content: { 'text/csv': unknown } }
          ? { /** The CSV file's text (UTF-8, a header row first). */ csv: string }
          : unknown
    : unknown;

type Flatten<T> = { [P in keyof T]: T[P] };

/**
 * The one argument of operation K. An operation with no fields at all takes `Record<string, never>` so
 * that a misspelt field is still an error (TypeScript checks no excess properties against `{}`).
 */
export type Params<K extends OperationId> =
  keyof (QueryOf<K> & BodyOf<K>) extends never ? Record<string, never> : Flatten<QueryOf<K> & BodyOf<K>>;

type Ok<K extends OperationId> = Operation<K>['responses'] extends { 200: { content: infer C } } ? C : never;

/** What operation K answers: its 200's JSON, or the text of a CSV export. */
export type Answer<K extends OperationId> = (typeof OPERATIONS)[K]['answer'] extends 'text'
  ? string
  : Ok<K> extends { 'application/json': infer J }
    ? J
    : never;

/** One element of a paged list's answer (the answer is a bare array, the next page in its Link header). */
export type Item<K extends OperationId> = Answer<K> extends readonly (infer T)[] ? T : never;

/** What the method of K returns: a promise of the answer, or a paged list (awaitable and iterable). */
export type Result<K extends OperationId> = (typeof OPERATIONS)[K]['paged'] extends true ? PagedList<Item<K>> : Promise<Answer<K>>;

/** Per call, beside the operation's fields. */
export interface RequestOptions {
  /**
   * The Idempotency-Key of an operation that takes one (default: a random UUID made once per call, kept
   * across its retries). Pass your own to make a retry of your own (another process, after a crash) safe.
   */
  idempotencyKey?: string;
  /** Extra request headers, e.g. `{ 'refkit-locale': 'de' }` for addParticipant. */
  headers?: Record<string, string>;
  /** Cancels the call, its retries and waits included. */
  signal?: AbortSignal;
  /** This call's timeout per attempt, in ms (default: the client's). */
  timeout?: number;
}

/** An object with no fields: it is one of the Params when none is required, and then the argument may be left out. */
type NoFields = Record<never, never>;

type Method<K extends OperationId> = NoFields extends Params<K>
  ? (params?: Params<K>, options?: RequestOptions) => Result<K>
  : (params: Params<K>, options?: RequestOptions) => Result<K>;

/** A method per operation a secret key may call, named by its operationId. */
export type Methods = { [K in OperationId]: Method<K> };
