import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own schema compilers (Ajv for requests, fast-json-stringify for responses), with what they compile kept
 * for the process by what it was compiled from: the schema's JSON, the app's shared schemas and its options. A
 * process that builds the same app again (a test process starts Hush dozens of times, the simulator a new life
 * after each crash) reuses the functions instead of compiling every route again: about 0.1 s of CPU per start.
 * Equal JSON, shared schemas and options compile to the same function, and neither kind keeps state between calls
 * but Ajv's `errors` of the call just made, read before anything else runs. What is not in the cache is compiled by
 * the app's own compiler, as Fastify does without this (one Ajv per app: a schema's `$id` is the app's).
 */
type Compiled = (...args: never[]) => unknown;
const compiled = new Map<string, Compiled>();

/** `build(def)` for a route schema not compiled before with the same JSON and `context`, else the function it gave. */
function kept<D extends { schema: unknown }>(context: unknown, build: () => (def: D) => unknown): (def: D) => unknown {
  const prefix = JSON.stringify(context);
  let own: ((def: D) => unknown) | undefined;
  return (def) => {
    const key = `${prefix}\n${JSON.stringify(def.schema)}`;
    let fn = compiled.get(key);
    if (!fn) {
      own ??= build();
      fn = own(def) as Compiled;
      compiled.set(key, fn);
    }
    return fn;
  };
}

/** For `Fastify({ schemaController: { compilersFactory } })`. */
export const compilersFactory = {
  buildValidator: (externalSchemas: unknown, options: unknown) =>
    kept(['validator', externalSchemas, options], () => AjvCompiler()(externalSchemas as never, options as never) as (def: { schema: unknown }) => unknown),
  buildSerializer: (externalSchemas: unknown, options: unknown) =>
    kept(['serializer', externalSchemas, options], () => SerializerSelector()(externalSchemas as never, options as never) as unknown as (def: { schema: unknown }) => unknown),
} as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
