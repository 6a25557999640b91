import { Ajv, type Options } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { registerInputGuard } from "./input-guard.js";

// Two validators. Bodies are validated strictly: a string "10" is not the number 10, and an
// unknown field is an error (Stripe's "unknown parameter"), not silently dropped, so a client
// cannot believe it set something we ignored (e.g. freight_amount). Query strings, params and
// headers arrive as text, so they are coerced to the schema's types. Before either, the input
// guard refuses what no schema expresses (NUL, lone surrogates, deep nesting).
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function build(options: Options): Ajv {
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

export function registerValidation(app: FastifyInstance): void {
  // Bodies are JSON. Fastify's default text/plain parser would hand a string to the schema
  // and answer a puzzling 422 "body must be object"; without it the answer is 415.
  app.removeContentTypeParser("text/plain");
  registerInputGuard(app);
  // JSON.parse("1e400") is Infinity: strictNumbers makes a body "number" finite. Not for the
  // coercing validator: Ajv 8.20 then skips the isFinite check of a coerced "1e400" and also
  // its minimum/maximum, so ?limit=1e400 would pass as Infinity; without it, maximum refuses it.
  const strict = build({ coerceTypes: false, strictNumbers: true });
  const coercing = build({ coerceTypes: "array" });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === "body" ? strict : coercing).compile(schema) as never,
  );
}
