import { Ajv, type AnySchema, type Options, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifyInstance } from "fastify";
import type { CompiledOnFirstUse } from "./lazy-compile.js";

// Two validators. Bodies are validated strictly: a string "10" is not the number 10, and an
// unknown field is an error (Stripe's "unknown parameter"), not silently dropped, so a client
// cannot believe it set something we ignored (e.g. freight_amount). Query strings, params and
// headers arrive as text, so they are coerced to the schema's types. Before either, the input
// guard (input-guard.ts, hooked in hooks.ts) refuses what no schema expresses (NUL, lone
// surrogates, deep nesting).
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** The API's validator settings; the panel checks its forms against the API's schemas with them. */
export function build(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: false, useDefaults: true, removeAdditional: false, strict: false, discriminator: true,
    // Without it 1.19 is not a "multiple of 0.0001" (1.19 / 0.0001 is 11899.999999999998 in
    // binary floating point), and valid percentages would be refused.
    multipleOfPrecision: 9,
    ...options,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * A body whose schema requires nothing (a refund of the whole rest, a cancel, a redelivery)
 * may be left out: a missing body is validated and handled as {}, instead of answering "body
 * must be object". Fastify hands a missing body over as null with the request as parent; a
 * body that is literally `null` is still refused.
 */
function missingBodyAsEmpty(validate: ValidateFunction): ValidateFunction {
  const wrapped = Object.assign((data: unknown, cxt?: Parameters<ValidateFunction>[1]) => {
    const request = cxt?.parentData as { body?: unknown } | undefined;
    let value = data;
    if (data === null && request && request.body === undefined) value = request.body = {};
    const ok = validate(value, cxt);
    wrapped.errors = validate.errors;
    return ok;
  }, { schema: validate.schema, schemaEnv: validate.schemaEnv, errors: null as ValidateFunction["errors"] });
  return wrapped as ValidateFunction;
}

/**
 * `shared`: the schemas routes name by `$ref` (the app also adds them to the document as
 * components); these validators are not Fastify's, so they are given them here.
 */
export function registerValidation(app: FastifyInstance, compilers: CompiledOnFirstUse, shared: AnySchema[] = []): void {
  // Bodies are JSON. Fastify's default text/plain parser would hand a string to the schema
  // and answer a puzzling 422 "body must be object"; without it the answer is 415.
  app.removeContentTypeParser("text/plain");
  // An empty body sent with Content-Type: application/json (curl -X POST -H 'content-type:
  // application/json' with no -d) is a missing body, as without the header: {} where the body
  // is optional, "body is missing ..." where it is not.
  const json = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    if (body === "") return done(null, undefined);
    return json(req, body as string, done);
  });
  // JSON.parse("1e400") is Infinity: strictNumbers makes a body "number" finite. Not for the
  // coercing validator: Ajv 8.20 then skips the isFinite check of a coerced "1e400" and also
  // its minimum/maximum, so ?limit=1e400 would pass as Infinity; without it, maximum refuses it.
  // verbose: a body error carries the value and the field's schema, so that its message can
  // say "a number in currency units (e.g. 10.5), not a string" (src/http/errors.ts).
  const strict = build({ coerceTypes: false, strictNumbers: true, verbose: true });
  const coercing = build({ coerceTypes: "array" });
  for (const ajv of [strict, coercing]) ajv.addSchema(shared);
  app.setValidatorCompiler(({ schema, httpPart }) => compilers.validator(() => {
    if (httpPart !== "body") return coercing.compile(schema);
    const validate = strict.compile(schema);
    return validate({}) ? missingBodyAsEmpty(validate) : validate;
  }) as never);
}
