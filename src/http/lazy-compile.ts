import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { ValidateFunction } from "ajv";

// Fastify compiles every route's validators and response serializers when the app starts. A
// process then holds the generated code of routes it may never serve: an API process that takes
// charges would keep the panel's, the checkout's and the admin's, about 14 MB of its resting
// memory (bench/RESULTS.md, "Issue 26, target 4: compiled on first use"). Here each one is
// compiled on its route's first request instead, once, and kept. Schemas are static and every
// route is exercised by the tests, so a schema error still shows in CI, not in production.

/**
 * A validator compiled on its first call; it hands on the compiled one's `errors`, and its
 * `schemaEnv`, which Fastify reads on each request to decide whether to pass the request as the
 * body's parent (what lets a missing body become {}).
 */
export function validatorOnFirstCall(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const get = () => (compiled ??= compile());
  const validate = Object.assign((data: unknown, cxt?: Parameters<ValidateFunction>[1]) => {
    const ok = get()(data, cxt);
    validate.errors = get().errors;
    return ok;
  }, { errors: null as ValidateFunction["errors"] });
  Object.defineProperty(validate, "schemaEnv", { get: () => get().schemaEnv });
  return validate as ValidateFunction;
}

type Serializer = (doc: unknown) => string;

/** Fastify's own serializer factory (fast-json-stringify, with the shared schemas), each route's serializer built on its first response. */
export const serializersOnFirstCall = {
  buildSerializer(externalSchemas?: unknown, options?: Parameters<ReturnType<typeof SerializerSelector>>[1]) {
    const compile = SerializerSelector()(externalSchemas, options);
    return (route: Parameters<typeof compile>[0]): Serializer => {
      let serialize: Serializer | undefined;
      return (doc) => (serialize ??= compile(route))(doc);
    };
  },
};
