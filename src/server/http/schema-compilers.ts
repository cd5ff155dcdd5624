/**
 * Schema compilers shared by every app a process builds. Fastify compiles each route's validator and
 * serializer per app instance; the CLI builds an app per command and the tests one per test, and that
 * compilation was most of their start-up. The route schemas are module constants, so a compiled
 * function can be reused wherever the same schema object comes back.
 *
 * And each is compiled when a request first needs it, not when the app starts: compiling all of them
 * (Ajv and fast-json-stringify for some 60 routes) was a third of a process's start-up, paid again by
 * every process of a WORKERS cluster and by every CLI command, most of which serve a route or two.
 * The price: a schema that cannot compile fails its route's first request instead of the start. Every
 * route is called by the suite (the fuzz test calls each operation of the OpenAPI document; the hidden
 * dashboard and widget routes have tests of their own), so such a schema fails a test, not a user.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type BuildSerializer = NonNullable<Compilers['buildSerializer']>;
type BuildValidator = NonNullable<Compilers['buildValidator']>;
type AjvValidate = ((data: unknown, dataCtx?: object) => unknown) & { errors?: unknown };

/** @fastify/ajv-compiler already pools its Ajv instances per (external schemas, options); shared here. */
const selectValidator = AjvCompiler();

type SelectValidator = typeof selectValidator;
type ValidatorRoute = Parameters<ReturnType<SelectValidator>>[0];

// Typed as Fastify's compiler: its type wants an Ajv function (with `schema` and the rest), which the
// wrapper is not, though it is everything Fastify uses of one (fastify/lib/validation.js).
const buildValidator = ((externalSchemas: Parameters<SelectValidator>[0], options: Parameters<SelectValidator>[1]) => {
  const compile = selectValidator(externalSchemas, options);
  return (route: ValidatorRoute) => {
    let fn: AjvValidate | undefined;
    const validate = ((data: unknown, dataCtx?: object) => {
      fn ??= compile(route) as AjvValidate;
      const valid = fn(data, dataCtx);
      validate.errors = fn.errors;
      return valid;
    }) as AjvValidate & { schemaEnv?: true };
    // Fastify hands the parent object (so that Ajv may coerce a root value) only to a function that
    // looks compiled by Ajv, which this one is on its first call.
    validate.schemaEnv = true;
    return validate;
  };
}) as unknown as BuildValidator;

const selectSerializer = SerializerSelector();
/** Per serializer options (by value), the compiled function of each response schema (by identity). */
const serializers = new Map<string, WeakMap<object, (data: unknown) => string>>();

const buildSerializer: BuildSerializer = (externalSchemas, options) => {
  const compile = selectSerializer(externalSchemas, options);
  const key = JSON.stringify([externalSchemas, options]);
  let cache = serializers.get(key);
  if (!cache) serializers.set(key, (cache = new WeakMap()));
  const known = cache;
  return (route) => {
    const schema = route.schema as object;
    // Looked up at the first call, not now: another app's route with the same schema may have compiled it since.
    const compiled = () => {
      let shared = known.get(schema);
      if (!shared) known.set(schema, (shared = compile(route) as (data: unknown) => string));
      return shared;
    };
    let fn: ((data: unknown) => string) | undefined;
    return (data: unknown) => (fn ??= compiled())(data);
  };
};

export const sharedCompilers: Compilers = { buildValidator, buildSerializer } as Compilers;
