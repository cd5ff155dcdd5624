/**
 * Schema compilers shared by every app a process builds. Fastify compiles each route's validator and
 * serializer per app instance; the CLI builds an app per command and the tests one per test, and that
 * compilation was most of their start-up. The route schemas are module constants, so a compiled
 * function can be reused wherever the same schema object comes back.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type BuildSerializer = NonNullable<Compilers['buildSerializer']>;

/** @fastify/ajv-compiler already pools its Ajv instances per (external schemas, options); shared here. */
const buildValidator = AjvCompiler();

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
    let fn = known.get(schema);
    if (!fn) known.set(schema, (fn = compile(route) as (data: unknown) => string));
    return fn;
  };
};

export const sharedCompilers: Compilers = { buildValidator, buildSerializer } as Compilers;
