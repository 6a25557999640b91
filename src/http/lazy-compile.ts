import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { ValidateFunction } from "ajv";

// Fastify compiles every route's validators and response serializers when the app starts. A
// process then holds the generated code of routes it may never serve: an API process that takes
// charges would keep the panel's, the checkout's and the admin's, about 17 MB of an idle
// process's resident memory (bench/RESULTS.md, "Issue 26, target 4: compiled on first use").
// Here each one is compiled on its route's first request instead, once, and kept. So that a
// schema error still shows in CI and not on a production request, compileEveryRoute() compiles
// all that are still pending (test/foundation/lazy-compile.test.ts does it on the whole app).

declare module "fastify" {
  interface FastifyInstance {
    /** Compiles every validator and serializer not yet compiled; returns how many it compiled. */
    compileEveryRoute(): number;
  }
}

type Serializer = (doc: unknown) => string;
type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** One app's validators and serializers, each compiled on its first call. */
export function compiledOnFirstUse() {
  const pending = new Set<() => unknown>();
  function once<T>(compile: () => T): () => T {
    let compiled: T | undefined;
    const get = (): T => {
      if (compiled === undefined) {
        compiled = compile();
        pending.delete(get);
      }
      return compiled;
    };
    pending.add(get);
    return get;
  }
  return {
    /**
     * A validator compiled on its first call; it hands on the compiled one's `errors`, and its
     * `schemaEnv`, which Fastify reads on each request to decide whether to pass the request as
     * the body's parent (what lets a missing body become {}).
     */
    validator(compile: () => ValidateFunction): ValidateFunction {
      const get = once(compile);
      const validate = Object.assign((data: unknown, cxt?: Parameters<ValidateFunction>[1]) => {
        const compiled = get();
        const ok = compiled(data, cxt);
        validate.errors = compiled.errors;
        return ok;
      }, { errors: null as ValidateFunction["errors"] });
      Object.defineProperty(validate, "schemaEnv", { get: () => get().schemaEnv });
      return validate as ValidateFunction;
    },
    /** Fastify's own serializer factory (fast-json-stringify, with the shared schemas), each route's serializer built on its first response. */
    serializers: {
      buildSerializer(externalSchemas?: unknown, options?: Parameters<SerializerFactory>[1]) {
        const compile = SerializerSelector()(externalSchemas, options);
        return (route: Parameters<typeof compile>[0]): Serializer => {
          const get = once(() => compile(route));
          return (doc) => get()(doc);
        };
      },
    },
    compileEveryRoute(): number {
      const all = [...pending];
      for (const get of all) get();
      return all.length;
    },
  };
}

export type CompiledOnFirstUse = ReturnType<typeof compiledOnFirstUse>;
